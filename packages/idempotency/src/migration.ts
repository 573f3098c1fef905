/**
 * The tables the engine needs, for adopters to apply with their own migration
 * tool (copy it into a migration, or run it once). Idempotent only in the
 * sense that matters here: it creates, it never drops. PostgreSQL 13 or later
 * (`gen_random_uuid()`).
 *
 * `open_slot` is for a gate (gate.ts) that caps a subject's unfinished
 * records: unique per subject and endpoint while set, cleared when the
 * record finishes. A gate that does not cap leaves it null.
 *
 * `live_group` is for a gate that lets at most one record of a group (an
 * order, a cart) be live: unique among the records that have not failed, so
 * of two fresh claims racing for one group the later fails in its own
 * statement and, run again, sees the first. Null: no group.
 */
export const MIGRATION_SQL = `-- @checkout/idempotency: the claim records.
CREATE TYPE "idempotency_status" AS ENUM ('in_progress', 'completed', 'failed');

CREATE TABLE "idempotency_keys" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "subject_id" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "key" UUID NOT NULL,
    "request_hash" CHAR(64) NOT NULL,
    "status" "idempotency_status" NOT NULL DEFAULT 'in_progress',
    "lock_token" UUID,
    "locked_at" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 1,
    "response_status" INTEGER,
    -- The stored bytes: jsonb would reorder the keys of the body.
    "response_body" TEXT,
    "response_headers" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "next_attempt_at" TIMESTAMPTZ(3),
    "reconcile_tries" INTEGER NOT NULL DEFAULT 0,
    "retake_after" TIMESTAMPTZ(3),
    "open_slot" INTEGER,
    "live_group" UUID,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "idempotency_keys_subject_id_endpoint_key_key" ON "idempotency_keys"("subject_id", "endpoint", "key");
CREATE UNIQUE INDEX "idempotency_keys_subject_id_endpoint_open_slot_key" ON "idempotency_keys"("subject_id", "endpoint", "open_slot");
CREATE UNIQUE INDEX "idempotency_keys_live_group_key" ON "idempotency_keys"("live_group") WHERE "live_group" IS NOT NULL AND "status" <> 'failed';
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");
CREATE INDEX "idempotency_keys_status_locked_at_idx" ON "idempotency_keys"("status", "locked_at");
CREATE INDEX "idempotency_keys_status_next_attempt_at_idx" ON "idempotency_keys"("status", "next_attempt_at");
`;
