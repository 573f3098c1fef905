export {
  IdempotencyEngine,
  IN_PROGRESS_RETRY_AFTER_SECONDS,
  RECONCILE_BACKOFF_BASE_MS,
  RECONCILE_BACKOFF_MAX_MS,
  type IdempotencyOptions,
} from "./engine";
export { heldBy, heldRecord, type OutcomeEffect } from "./fence";
export { IN_FLIGHT_MARGIN_MS } from "./in-flight";
export { closedGate, type Gate, type Refusal } from "./gate";
export { deleteExpiredKeys, type CleanupOptions, type CleanupResult } from "./cleanup";
export { canonicalJson, fingerprint } from "./fingerprint";
export { deriveId, downstreamKey, normaliseKey } from "./keys";
export { MIGRATION_SQL } from "./migration";
export { CONFLICT_CODES, conflictAnswer, DEFAULT_CONFLICT_POLICY, type ConflictPolicy } from "./policy";
export { empty, join, pgDatabase, raw, run, Sql, sql, type Database, type PgQueryable } from "./sql";
export type { AbandonedRecord, ClaimResult, IdempotencyStatus, KeyScope, Ownership, StoredResponse } from "./types";
