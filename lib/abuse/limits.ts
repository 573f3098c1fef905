/**
 * Abuse limits (docs/contract.md, "Abuse limits"): how many sessions, fresh
 * checkout attempts and 3-D Secure returns one client address and one
 * session may start per window. Counted by rate-limiter-flexible in the
 * shop's own PostgreSQL, so every instance shares one count; the library
 * creates its table (schema `rate_limit`) itself. Nothing here knows HTTP.
 */
import type pg from "pg";
import { RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import type { Observe } from "@/lib/observability";

export type LimitRule =
  "session_per_address" | "checkout_per_address" | "checkout_per_session" | "return_per_address" | "return_per_session";

export interface LimitSettings {
  windowSeconds: number;
  /** Multiplies every limit (tests and the demo raise it). */
  scale: number;
  perWindow: Record<LimitRule, number>;
}

export type LimitDecision = { ok: true } | { ok: false; rule: LimitRule; retryAfterSeconds: number };

export const LIMITS_SCHEMA = "rate_limit";
export const LIMITS_TABLE = "counters";

export class AbuseLimits {
  private readonly limiters = new Map<LimitRule, RateLimiterPostgres>();
  private ready: Promise<void> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly settings: LimitSettings,
    private readonly log?: Observe,
  ) {}

  /** Creates the table on first use; a failed start is tried again by the next call, not cached. */
  private started(): Promise<void> {
    this.ready ??= this.createLimiters(this.pool, this.settings).catch((err: unknown) => {
      this.ready = undefined;
      throw err;
    });
    return this.ready;
  }

  /**
   * Counts one event against every (rule, key) given, in order; the first
   * over its limit answers with how long until it has room again. A store
   * that cannot be reached lets the request through (logged): the request
   * meets the same database next and fails there with its own 503.
   */
  async consume(checks: Array<[LimitRule, string]>): Promise<LimitDecision> {
    try {
      await this.started();
    } catch (err) {
      this.log?.("rate_limit_error", { reason: String(err) });
      return { ok: true };
    }
    for (const [rule, key] of checks) {
      try {
        await this.limiters.get(rule)!.consume(key, 1);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
          this.log?.("rate_limited", { rule, retryAfterSeconds });
          return { ok: false, rule, retryAfterSeconds };
        }
        this.log?.("rate_limit_error", { rule, reason: String(rejection) });
      }
    }
    return { ok: true };
  }

  private async createLimiters(pool: pg.Pool, settings: LimitSettings): Promise<void> {
    // Several instances may start at once: a lost race to create the schema is fine.
    await pool.query(`create schema if not exists ${LIMITS_SCHEMA}`).catch((err: { code?: string }) => {
      if (err.code !== "23505" && err.code !== "42P06") throw err;
    });
    const rules = Object.keys(settings.perWindow) as LimitRule[];
    let first = true;
    for (const rule of rules) {
      const limiter = await new Promise<RateLimiterPostgres>((resolve, reject) => {
        const created: RateLimiterPostgres = new RateLimiterPostgres(
          {
            storeClient: pool,
            storeType: "pool",
            schemaName: LIMITS_SCHEMA,
            tableName: LIMITS_TABLE,
            keyPrefix: rule,
            points: settings.perWindow[rule] * settings.scale,
            duration: settings.windowSeconds,
            // One sweeper of expired counters per process is enough; they share the table.
            clearExpiredByTimeout: first,
          },
          (err?: Error) => (err ? reject(err) : resolve(created)),
        );
      });
      first = false;
      this.limiters.set(rule, limiter);
    }
  }
}
