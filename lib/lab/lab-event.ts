/**
 * What the lab's timeline is drawn from: events the app itself records while
 * it serves a lab run's requests (see event-log.ts). Shared by the server,
 * which writes them, and the page, which only reads them.
 */
export const LANES = ["naive", "idempotent"] as const;
export type Lane = (typeof LANES)[number];

export type LabEventBody =
  /** A request reached the lane's endpoint. */
  | { type: "request"; key: string | null }
  /** The idempotency layer's decision for it (claimed, in_progress, replay, mismatch). */
  | { type: "claim"; decision: string; retaken: boolean }
  /** The naive endpoint wrote an order before charging. */
  | { type: "order"; orderId: string }
  /** The app heard back from the gateway about a payment. */
  | {
      type: "charge";
      outcome: "succeeded" | "declined" | "unknown";
      paymentIntentId: string | null;
      orderId: string | null;
      reason: string | null;
    }
  /** The endpoint produced its answer; `clientGone` when the browser had already hung up. */
  | {
      type: "response";
      status: number;
      replayed: boolean;
      retryAfterSeconds: number | null;
      orderId: string | null;
      error: string | null;
      clientGone: boolean;
    }
  /** The lab's lossy hop threw the answer away and cut the connection. */
  | { type: "dropped" };

export type LabEvent = LabEventBody & {
  /** Order of recording in this app process. */
  seq: number;
  /** Server clock, ms since the epoch. */
  at: number;
  runId: string;
  lane: Lane;
  /** `<press>.<try>` as the page numbered it: press 2's first retry is `2.2`. */
  requestId: string;
};

/** GET /api/lab/events. */
export interface LabEventsResponse {
  /** The server's clock now: where still-open requests end on the timeline. */
  now: number;
  events: LabEvent[];
}

/** GET /api/lab/ledger: the gateway's own record of a run's PaymentIntents, per lane. */
export interface LabLedgerResponse {
  lanes: Record<
    Lane,
    { charges: number; intents: Array<{ id: string; status: string; amount: number; created: number }> }
  >;
}

/** The headers a lab page adds to each request it sends. */
export const LAB_RUN_HEADER = "x-lab-run";
export const LAB_REQUEST_HEADER = "x-lab-request";
