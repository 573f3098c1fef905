import type { OpsOverview } from "@/lib/ops/overview";
import { OpsNotice, type Notice } from "./ops-notice";

const when = (date: Date) => date.toISOString().replace("T", " ").slice(0, 16) + " UTC";
const money = (cents: number | undefined, currency: string | undefined) =>
  cents === undefined ? "" : `${(cents / 100).toFixed(2)} ${(currency ?? "").toUpperCase()}`;

/** The signed-in operator's view: audits, findings with what to do, money owed, stuck attempts, the inbox. */
export function OpsDashboard({
  operator,
  overview,
  notice,
}: {
  operator: string;
  overview: OpsOverview;
  notice: Notice | undefined;
}) {
  const { runs, findings, owed, stuck, inbox } = overview;
  const open = findings.filter((f) => f.handled === null);
  return (
    <section className="ops" aria-labelledby="ops-title">
      <div className="ops-head">
        <h1 id="ops-title">Operations</h1>
        <form method="post" action="/api/ops/sign-out">
          <button type="submit" className="secondary">
            Sign out
          </button>
        </form>
      </div>
      <p className="muted">Signed in as {operator}.</p>
      <OpsNotice notice={notice} />

      <h2>Audits</h2>
      {runs.length === 0 ? (
        <p>No audit has run yet (AUDIT_INTERVAL_MS, or npm run audit).</p>
      ) : (
        <div className="ops-scroll" role="region" aria-label="Audit runs, scrollable" tabIndex={0}>
          <table>
            <caption className="visually-hidden">The latest audit runs</caption>
            <thead>
              <tr>
                <th scope="col">Finished</th>
                <th scope="col">Window</th>
                <th scope="col">Intents</th>
                <th scope="col">Findings</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((run) => {
                const total = Object.values(run.counts).reduce((a, b) => a + b, 0);
                return (
                  <tr key={run.id}>
                    <td>{when(run.finishedAt)}</td>
                    <td>
                      {when(run.windowFrom)} – {when(run.windowTo)}
                    </td>
                    <td>{run.intents}</td>
                    <td>{total === 0 ? "none" : `${total}${run.moneyWrong ? " (money is wrong)" : ""}`}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}

      <h2>Open findings ({open.length})</h2>
      {findings.length === 0 && <p>The latest audit found nothing.</p>}
      <ul className="ops-findings">
        {findings.map(({ finding, handled, whatToDo, firstSeenAt }) => (
          <li key={finding.key} className={handled ? "ops-finding ops-handled" : "ops-finding"}>
            <h3>
              <code>{finding.kind}</code> {money(finding.amountCents, finding.currency)}
            </h3>
            <p>{finding.detail}</p>
            <p className="muted">
              First seen {when(firstSeenAt)}
              {finding.orderId && <> · order {finding.orderId}</>}
              {finding.customerId && <> · customer {finding.customerId}</>}
            </p>
            <p>
              <strong>What to do:</strong> {whatToDo}
            </p>
            {finding.dashboardUrl && (
              <p>
                <a href={finding.dashboardUrl} rel="noreferrer">
                  Open {finding.paymentIntentIds?.[0] ?? "the payment"} in Stripe&apos;s Dashboard
                </a>
              </p>
            )}
            {handled ? (
              <p>
                Handled by {handled.by} at {when(handled.at)}: {handled.note}
              </p>
            ) : (
              <form method="post" action="/api/ops/findings/handled" className="ops-handle">
                <input type="hidden" name="key" value={finding.key} />
                <label htmlFor={`note-${finding.key}`}>What you did</label>
                <input id={`note-${finding.key}`} name="note" required maxLength={1000} />
                <button type="submit">Mark handled</button>
              </form>
            )}
          </li>
        ))}
      </ul>

      <h2>Orders owed money ({owed.length})</h2>
      {owed.length === 0 ? (
        <p>No refund has failed.</p>
      ) : (
        <ul className="ops-list">
          {owed.map((order) => (
            <li key={order.id}>
              Order {order.id}, customer {order.customerId}: {money(order.amountCents, order.currency)} not given back (
              {order.refundFailure ?? "refund failed"}, {order.refundFailedAt ? when(order.refundFailedAt) : ""}).
              Contact the shopper or <a href={`/ops/orders/${order.id}`}>refund again</a>.{" "}
              {order.dashboardUrl && (
                <a href={order.dashboardUrl} rel="noreferrer">
                  Payment in the Dashboard
                </a>
              )}
            </li>
          ))}
        </ul>
      )}

      <h2>Attempts past their deadline ({stuck.length})</h2>
      {stuck.length === 0 ? (
        <p>Every attempt ended in time.</p>
      ) : (
        <ul className="ops-list">
          {stuck.map((attempt) => (
            <li key={attempt.key}>
              Attempt {attempt.key} of customer {attempt.subjectId}, begun {when(attempt.createdAt)}: run npm run
              reconcile and read its errors.{" "}
              {attempt.dashboardUrl && (
                <a href={attempt.dashboardUrl} rel="noreferrer">
                  Payment in the Dashboard
                </a>
              )}
            </li>
          ))}
        </ul>
      )}

      <h2>Webhook inbox</h2>
      <p>
        {inbox.unprocessed} event(s) not processed yet.
        {inbox.oldest && (
          <>
            {" "}
            The oldest, {inbox.oldest.type} {inbox.oldest.id}, arrived {when(inbox.oldest.receivedAt)} and was tried{" "}
            {inbox.oldest.attempts} time(s){inbox.oldest.lastError ? `: ${inbox.oldest.lastError}` : ""}. Fix its cause;
            the maintenance loop retries it.
          </>
        )}
      </p>
    </section>
  );
}
