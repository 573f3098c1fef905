import type { Lane } from "@/lib/lab/lab-event";
import type { LaneTotals } from "@/lib/lab/verdict";

/** "Charges at the gateway / orders the shopper sees": the lane's running total, read out as it changes. */
export function LaneTotalsView(props: {
  lane: Lane;
  totals: LaneTotals | null;
  live: boolean;
  ledgerEnabled: boolean;
}) {
  const { lane, totals, live } = props;
  const chargesId = `${lane}-charges-label`;
  const seenId = `${lane}-seen-label`;
  return (
    <div
      className={`lab-totals lab-totals-${totals?.verdict.tone ?? "neutral"}`}
      role="status"
      aria-live="polite"
      aria-atomic="true"
    >
      <dl>
        <div>
          <dt id={chargesId}>Charges at the gateway</dt>
          <dd aria-labelledby={chargesId}>{totals ? totals.charges : "–"}</dd>
        </div>
        <div>
          <dt id={seenId}>Orders the shopper sees</dt>
          <dd aria-labelledby={seenId}>{totals ? totals.ordersSeen : "–"}</dd>
        </div>
      </dl>
      {totals && (
        <p className="lab-verdict">
          <strong>
            {live ? "So far: " : ""}
            {totals.verdict.text}.
          </strong>{" "}
          <span className="lab-source">
            {sourceOf(totals, props.ledgerEnabled)}
            {totals.ordersRecorded > totals.ordersSeen &&
              ` The shop wrote ${totals.ordersRecorded} orders; the shopper saw ${totals.ordersSeen}.`}
          </span>
        </p>
      )}
    </div>
  );
}

function sourceOf(totals: LaneTotals, ledgerEnabled: boolean): string {
  if (totals.chargesFrom === "ledger") return "Counted in the gateway's ledger.";
  if (!ledgerEnabled) return "From the app's payment events (the ledger view needs LAB_NAIVE_ENDPOINT=1).";
  return "As the app heard them; the ledger is read when the run ends.";
}
