/**
 * Abuse limits (docs/contract.md §10) other than the checkout's own (those
 * are checked in the claim: admission.ts): how many sessions and 3-D
 * Secure returns one client address and one session may start per window.
 * Counted by rate-limiter-flexible in the shop's own PostgreSQL, so every
 * instance shares one count, in `rate_limit.counters`, which a migration
 * makes: the app's runtime role needs no CREATE, and nothing here runs DDL.
 * A bucket spent is refused in memory until its window ends, with no write.
 * Nothing here knows HTTP.
 */
import type pg from "pg";
import { RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import type { Observe } from "@/lib/observability";

export type LimitRule =
  | "session_per_address"
  | "return_per_address"
  | "return_per_session"
  | "csp_report_per_address"
  | "ops_signin_per_address";

export interface LimitSettings {
  windowSeconds: number;
  /** Multiplies every limit (tests and the demo raise it). */
  scale: number;
  perWindow: Record<LimitRule, number>;
}

export type LimitDecision =
  { ok: true } | { ok: false; rule: LimitRule; retryAfterSeconds: number; unavailable?: true };

export const LIMITS_SCHEMA = "rate_limit";
export const LIMITS_TABLE = "counters";
/** How long a request refused because the count could not be made waits before asking again. */
export const UNCOUNTED_RETRY_AFTER_SECONDS = 5;

export class AbuseLimits {
  private readonly limiters = new Map<LimitRule, RateLimiterPostgres>();

  constructor(
    pool: pg.Pool,
    settings: LimitSettings,
    private readonly log?: Observe,
  ) {
    let first = true;
    for (const rule of Object.keys(settings.perWindow) as LimitRule[]) {
      const points = settings.perWindow[rule] * settings.scale;
      this.limiters.set(
        rule,
        new RateLimiterPostgres({
          storeClient: pool,
          storeType: "pool",
          schemaName: LIMITS_SCHEMA,
          tableName: LIMITS_TABLE,
          // Made by the migration (prisma/migrations/…_admission_in_the_claim): no DDL at request time.
          tableCreated: true,
          keyPrefix: rule,
          points,
          duration: settings.windowSeconds,
          // Past its limit a bucket is refused from memory until its window ends: a flood costs no writes.
          inMemoryBlockOnConsumed: points + 1,
          // One sweeper of expired counters per process is enough; they share the table.
          clearExpiredByTimeout: first,
        }),
      );
      first = false;
    }
  }

  /**
   * Counts one event against every (rule, key) given, in order; the first
   * over its limit answers with how long until it has room again. When the
   * store cannot count (the database is down, a permission is missing), the
   * request is refused (`unavailable`, an alarm in the log) unless
   * `failOpen`: a limit that cannot count must not switch itself off.
   */
  async consume(checks: Array<[LimitRule, string]>, options: { failOpen?: boolean } = {}): Promise<LimitDecision> {
    for (const [rule, key] of checks) {
      try {
        await this.limiters.get(rule)!.consume(key, 1);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
          this.log?.("rate_limited", { rule, retryAfterSeconds });
          return { ok: false, rule, retryAfterSeconds };
        }
        this.log?.("rate_limit_error", { rule, reason: String(rejection), alarm: true, failOpen: !!options.failOpen });
        if (!options.failOpen) {
          return { ok: false, rule, retryAfterSeconds: UNCOUNTED_RETRY_AFTER_SECONDS, unavailable: true };
        }
      }
    }
    return { ok: true };
  }
}
