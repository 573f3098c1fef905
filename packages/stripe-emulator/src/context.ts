import type { EventLog, EventRequest } from "./events";
import type { FaultSettings, FaultStats } from "./faults";
import type { Later } from "./later";
import type { Ledger } from "./ledger";
import type { ApiResponse } from "./responses";

/** What a handler may touch while it executes: the ledger, the event log, and the counters. */
export interface Ctx {
  ledger: Ledger;
  events: EventLog;
  stats: FaultStats;
  /** The armed faults a handler itself honours (search lag, an account without search). */
  settings: Readonly<FaultSettings>;
  /** Work done after the answer (refunds settling later). */
  later: Later;
  /** Stamped on the events this request causes. */
  request: EventRequest;
  apiVersion: string;
  /** The emulator as the caller reached it, for links it hands out (the authentication page). */
  origin: string;
  /** How long a ConfirmationToken made now stays usable. */
  confirmationTokenTtlMs: number;
  /** Made with a publishable key (as Stripe.js makes it), on a route that allows one. */
  publishable?: boolean;
}

export interface Outcome {
  response: ApiResponse;
  /** The request got past validation and acted: Stripe keeps such results for idempotent replay. */
  executed: boolean;
  /** A charge was attempted by this request, and how it went. */
  charge: "succeeded" | "declined" | null;
}

/** The API version stripe-node@23 pins (node_modules/stripe/esm/apiVersion.js), used when a request names none. */
export const DEFAULT_API_VERSION = "2026-10-28.endive";

export function emit(ctx: Ctx, type: string, object: unknown): void {
  ctx.events.record(type, object, ctx.request, ctx.apiVersion);
}

/** An event of something that happened later, on Stripe's side: no request caused it, as at Stripe. */
export function emitLater(ctx: Ctx, type: string, object: unknown): void {
  ctx.events.record(type, object, { id: null, idempotency_key: null }, ctx.apiVersion);
}

export function notExecuted(response: ApiResponse): Outcome {
  return { response, executed: false, charge: null };
}
