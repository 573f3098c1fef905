import { randomUUID } from "node:crypto";
import type { LedgerRefund } from "./checker/evidence";
import type { Journal } from "./journal";
import type { Random } from "./random";

/**
 * The operator at /ops, refunding paid orders through the real route
 * (`POST /api/ops/orders/{orderId}/refunds`, with the ops credential) while
 * the soak's faults go on. Every paid order the shoppers' journal shows is
 * picked with `OPERATOR_PERCENT` chance, and its refunds follow the next of
 * the scenarios in turn:
 *
 * - `double_click`: one key sent twice at once;
 * - `lost_response`: the connection dropped after the request was sent,
 *   then the same key again;
 * - `two_operators`: two keys at once, each asking for all that remains;
 * - `partial_then_rest`: a third of the order, then the rest under another key.
 *
 * Any send is also cut with `CUT_PERCENT` chance, and the soak's
 * `instance_kill` kills instances with refunds in flight (seen here as a
 * 502 or a dropped connection). Each press retries with its key until a
 * final answer (409 after Retry-After, errors with a short backoff), as the
 * page does. A `404` is a refusal too: a failover can lose a paid order
 * until the catch-up restores it. After convergence `judge` holds every answer against Stripe's
 * refunds (the checker's evidence): the checker's invariants 8 and 9 judge
 * the same list.
 */
export const OPS_TOKEN = "5b1e8d3a7f0c2e9b4d6a1f8c3e7b0d5a9f2c6e1b8d4a7f3c0e9b5d2a6f1c8e4b";
export const OPERATOR_PERCENT = 35;
const CUT_PERCENT = 15;
/** An order is refunded once this many attempts began after its own, and this long after it was first seen. */
const SETTLED_AFTER_ATTEMPTS = 12;
const SETTLED_AFTER_MS = 3_000;
/** How long a press keeps retrying its key: longer than an instance's restart and the attempt's TTL. */
const PRESS_DEADLINE_MS = 120_000;

export const SCENARIOS = ["double_click", "lost_response", "two_operators", "partial_then_rest"] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface OperatorAnswer {
  status: number | null;
  body: unknown;
  replayed: boolean;
  /** The operator's side dropped the connection after sending. */
  cut: boolean;
  error?: string;
}

export interface RefundPress {
  key: string;
  orderId: string;
  scenario: Scenario;
  amountCents: number | null;
  answers: OperatorAnswer[];
  /** The first final answer (201 or 4xx but 409); null if none came before the deadline. */
  final: { status: number; body: unknown } | null;
}

export interface OperatorReport {
  orders: number;
  scenarios: Record<Scenario, number>;
  presses: number;
  requests: number;
  /** Final answers by status; `none` for a press that got none before its deadline. */
  finals: Record<string, number>;
  /** Sends the operator cut after sending; sends that met a dead instance or a restart (502, connection error). */
  cut: number;
  crashed: number;
  /** 409s waited out (a duplicate in flight). */
  inProgress: number;
  /** Judged after convergence, from Stripe's list: refunds carrying an operator's attempt key, and their keys. */
  stripeRefunds: number;
  attemptsAtStripe: number;
  findings: string[];
}

export class Operator {
  readonly presses: RefundPress[] = [];
  private readonly picked = new Set<string>();
  /** When each paid order was first seen in the journal. */
  private readonly seen = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  private turn = 0;
  private requests = 0;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly journal: Journal,
    private readonly random: Random,
  ) {}

  /** Picks newly paid orders from the journal until `stop`, starting each one's scenario at once. */
  async run(): Promise<void> {
    while (!this.stopped) {
      this.pickNew();
      await sleep(300);
    }
  }

  /** Stops picking; resolves once every started scenario has its final answers (or gave up). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.pickNew(); // the last orders, paid before the shoppers stopped
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private pickNew(): void {
    const attempts = [...this.journal.attempts.values()];
    // Orders paid a while ago, as an operator's are: out of reach of `rows_lost`, which takes one of the
    // newest attempts' rows within 1.5 s (a paid order whose rows are lost after its refund is restored
    // without its refund state: docs/reliability.md, "Known gaps").
    const settled = attempts.slice(0, Math.max(0, attempts.length - SETTLED_AFTER_ATTEMPTS));
    for (const attempt of settled) {
      for (const answer of attempt.answers) {
        const body = answer.body as { orderId?: unknown; amountCents?: unknown } | null;
        if (answer.method !== "POST" || answer.status !== 201 || typeof body?.orderId !== "string") continue;
        if (this.picked.has(body.orderId)) continue;
        const seen = this.seen.get(body.orderId) ?? Date.now();
        this.seen.set(body.orderId, seen);
        if (Date.now() - seen < SETTLED_AFTER_MS && !this.stopped) continue;
        this.picked.add(body.orderId);
        if (this.random.int(1, 100) > OPERATOR_PERCENT) continue;
        const amount = typeof body.amountCents === "number" ? body.amountCents : null;
        const scenario = SCENARIOS[this.turn++ % SCENARIOS.length]!;
        const work = this.play(scenario, body.orderId, amount).catch(() => undefined);
        this.running.add(work);
        void work.finally(() => this.running.delete(work));
      }
    }
  }

  private async play(scenario: Scenario, orderId: string, amountCents: number | null): Promise<void> {
    switch (scenario) {
      case "double_click": {
        const key = randomUUID();
        await Promise.all([this.press(scenario, orderId, key, null), this.press(scenario, orderId, key, null)]);
        return;
      }
      case "lost_response":
        await this.press(scenario, orderId, randomUUID(), null, true);
        return;
      case "two_operators":
        await Promise.all([
          this.press(scenario, orderId, randomUUID(), null),
          this.press(scenario, orderId, randomUUID(), null),
        ]);
        return;
      case "partial_then_rest": {
        const part = amountCents === null ? 100 : Math.max(1, Math.floor(amountCents / 3));
        await this.press(scenario, orderId, randomUUID(), part);
        await this.press(scenario, orderId, randomUUID(), null);
        return;
      }
    }
  }

  /** One press of Refund: the key sent until a final answer, as the page's client does. */
  private async press(
    scenario: Scenario,
    orderId: string,
    key: string,
    amountCents: number | null,
    cutFirst = false,
  ): Promise<void> {
    const press: RefundPress = { key, orderId, scenario, amountCents, answers: [], final: null };
    this.presses.push(press);
    const body = JSON.stringify(
      amountCents === null ? { reason: `chaos ${scenario}` } : { amountCents, reason: `chaos ${scenario}` },
    );
    const deadline = Date.now() + PRESS_DEADLINE_MS;
    for (let tries = 0; Date.now() < deadline; tries++) {
      const cut = (tries === 0 && cutFirst) || this.random.int(1, 100) <= CUT_PERCENT;
      const answer = await this.send(orderId, key, body, cut);
      press.answers.push(answer);
      if (answer.status !== null && answer.status !== 409 && answer.status < 500 && answer.status !== 429) {
        press.final = { status: answer.status, body: answer.body };
        return;
      }
      const retryAfter = answer.status === 409 ? Number(answer.retryAfter ?? 1) : 0;
      await sleep(retryAfter > 0 ? retryAfter * 1000 : this.random.int(200, 800));
    }
  }

  private async send(
    orderId: string,
    key: string,
    body: string,
    cut: boolean,
  ): Promise<OperatorAnswer & { retryAfter?: string | null }> {
    this.requests += 1;
    const controller = new AbortController();
    // Dropped after sending: the request is on its way (or being answered) when the operator's side goes.
    const timer = cut ? setTimeout(() => controller.abort(), this.random.int(5, 60)) : null;
    try {
      const response = await fetch(`${this.url}/api/ops/orders/${orderId}/refunds`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${OPS_TOKEN}`,
          "content-type": "application/json",
          "idempotency-key": key,
        },
        body,
        signal: AbortSignal.any([controller.signal, AbortSignal.timeout(15_000)]),
      });
      const text = await response.text();
      return {
        status: response.status,
        body: parse(text),
        replayed: response.headers.get("idempotent-replayed") === "true",
        cut: false,
        retryAfter: response.headers.get("retry-after"),
      };
    } catch (err) {
      return {
        status: null,
        body: null,
        replayed: false,
        cut: controller.signal.aborted,
        error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
      };
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  /**
   * Every press's answers against Stripe's refunds: one final answer per key
   * however often it was sent, a 201 names the one refund Stripe made for
   * that key, and a refusal (422, or 404 for an order the shop lost for a while) names none.
   */
  judge(refunds: readonly LedgerRefund[]): OperatorReport {
    const byKey = new Map<string, LedgerRefund[]>();
    for (const refund of refunds) {
      const key = refund.metadata.attempt_key?.toLowerCase();
      if (key) byKey.set(key, [...(byKey.get(key) ?? []), refund]);
    }
    const findings: string[] = [];
    const finalsByKey = new Map<string, string[]>();
    for (const press of this.presses) {
      if (!press.final) continue;
      finalsByKey.set(press.key, [...(finalsByKey.get(press.key) ?? []), JSON.stringify(press.final)]);
    }
    for (const [key, finals] of finalsByKey)
      if (new Set(finals).size > 1) findings.push(`${key}: two different final answers: ${finals.join(" / ")}`);
    const trail = (press: RefundPress) =>
      ` [${press.scenario}, ${press.amountCents ?? "all"}; order ${press.orderId}; answers ${press.answers
        .map((a) => `${a.status ?? (a.cut ? "cut" : "error")}${a.replayed ? " (replay)" : ""}`)
        .join(", ")}]`;
    for (const press of this.presses) {
      if (!press.final) {
        findings.push(`${press.key}: no final answer within ${PRESS_DEADLINE_MS / 1000} s${trail(press)}`);
        continue;
      }
      const atStripe = byKey.get(press.key) ?? [];
      const before = findings.length;
      const body = press.final.body as { stripeRefundId?: unknown; amountCents?: unknown } | null;
      if (press.final.status === 201) {
        const named = atStripe.find((r) => r.id === body?.stripeRefundId);
        if (!named)
          findings.push(
            `${press.key}: answered 201 with ${String(body?.stripeRefundId)}, not a refund of this key at Stripe`,
          );
        else if (named.amount !== body?.amountCents)
          findings.push(`${press.key}: answered ${String(body?.amountCents)}, Stripe refunded ${named.amount}`);
      } else if (press.final.status !== 422 && press.final.status !== 404) {
        findings.push(`${press.key}: answered ${press.final.status}: ${JSON.stringify(press.final.body)}`);
      } else if (atStripe.length > 0) {
        findings.push(
          `${press.key}: answered ${press.final.status}, yet Stripe has ${atStripe.map((r) => `${r.id} (${r.amount}, ${r.status})`).join(", ")}`,
        );
      }
      if (findings.length > before) findings[findings.length - 1] += trail(press);
    }
    const scenarios = Object.fromEntries(SCENARIOS.map((s) => [s, 0])) as Record<Scenario, number>;
    const orders = new Map<string, Scenario>();
    for (const press of this.presses) orders.set(press.orderId, press.scenario);
    for (const scenario of orders.values()) scenarios[scenario] += 1;
    const finals: Record<string, number> = {};
    for (const press of this.presses) {
      const status = press.final ? String(press.final.status) : "none";
      finals[status] = (finals[status] ?? 0) + 1;
    }
    const answers = this.presses.flatMap((p) => p.answers);
    const keysUsed = new Set(this.presses.map((p) => p.key));
    return {
      orders: orders.size,
      scenarios,
      presses: this.presses.length,
      requests: this.requests,
      finals,
      cut: answers.filter((a) => a.cut).length,
      crashed: answers.filter((a) => (a.status === null && !a.cut) || a.status === 502).length,
      inProgress: answers.filter((a) => a.status === 409).length,
      stripeRefunds: [...byKey.entries()].filter(([key]) => keysUsed.has(key)).reduce((n, [, r]) => n + r.length, 0),
      attemptsAtStripe: [...byKey.keys()].filter((key) => keysUsed.has(key)).length,
      findings,
    };
  }
}

/** One line for the log and the table. */
export function operatorLine(report: OperatorReport): string {
  const scenarios = Object.entries(report.scenarios)
    .map(([s, n]) => `${s} ${n}`)
    .join(" · ");
  const finals = Object.entries(report.finals)
    .map(([s, n]) => `${s} ${n}`)
    .join(" · ");
  return (
    `${report.orders} orders refunded by an operator (${scenarios}): ${report.presses} presses, ${report.requests} requests ` +
    `(${report.cut} cut after sending, ${report.crashed} met a dead instance, ${report.inProgress} answered 409); ` +
    `final answers ${finals}; at Stripe ${report.stripeRefunds} refunds of ${report.attemptsAtStripe} operator attempts; ` +
    `${report.findings.length} answers contradicting Stripe`
  );
}

function parse(text: string): unknown {
  try {
    return text === "" ? null : JSON.parse(text);
  } catch {
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
