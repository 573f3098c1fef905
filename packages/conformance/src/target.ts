/**
 * What the kit needs to know about an endpoint: where it is, and the hooks
 * only its owner can write — how to become a subject, what to send, and how
 * to count its effect (charges, orders, emails: whatever must happen once).
 */
export interface Target {
  /** A name for the report, e.g. "checkout". */
  name: string;
  /** The endpoint's full URL. */
  url: string;
  /** The method of the request (default POST). */
  method?: string;
  /** The header that carries the key (default `Idempotency-Key`). */
  keyHeader?: string;
  /** A fresh valid key (default: a random UUIDv4). */
  newKey?: () => string;
  /** A key the endpoint must refuse as malformed (default `not-a-key`). */
  malformedKey?: string;
  /** Headers every request carries (e.g. content-type is set to JSON unless given). */
  headers?: Record<string, string>;
  /** A new subject (a session, a user): the headers that identify it, e.g. its cookie. */
  subject(): Promise<Record<string, string>>;
  /** The bodies to send: the request, and the same request changed deep inside and at its top level. */
  bodies: {
    base(): unknown;
    nestedChange(): unknown;
    topLevelChange(): unknown;
  };
  /** How many effects the endpoint has had so far; the kit compares before and after each check. */
  effects(): Promise<number>;
  /** The statuses the endpoint refuses with (defaults: 422 for a changed body, 400 for a missing or malformed key). */
  expect?: {
    changedBody?: number;
    missingKey?: number;
    malformedKey?: number;
  };
  /**
   * Holds the effect in flight (e.g. a payment provider's gate): `close` makes
   * the next effect wait, `held` resolves once one waits, `open` lets it go.
   * With it the kit loses an answer before it is written; without it, once the
   * effect counter moved.
   */
  hold?: {
    close(): Promise<void>;
    held(): Promise<void>;
    open(): Promise<void>;
  };
  /** Kills the server (`stop`) and starts it again (`start`, resolving once it serves). Needs `hold`. */
  restart?: {
    stop(): Promise<void>;
    start(): Promise<void>;
  };
  /** Copies in the storm (default 30). */
  storm?: number;
  /** How long the kit waits for an attempt in progress to finish, retrying as Retry-After says (default 60 s). */
  settleMs?: number;
}

export interface Check {
  /** The property, e.g. `storm.one-effect`. */
  name: string;
  pass: boolean;
  /** What was seen, in one line. */
  detail: string;
}

export interface Report {
  target: string;
  pass: boolean;
  checks: Check[];
  /** Checks the target's hooks do not allow (e.g. `crash` without a restart hook); not in `checks`. */
  notRun: string[];
}
