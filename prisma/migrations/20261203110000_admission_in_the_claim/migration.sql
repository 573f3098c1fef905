-- The abuse limits' storage, made by the owner at deploy time, so the app's runtime role needs no CREATE.

-- rate-limiter-flexible's table (sessions per address, 3-D Secure returns), in the shape the library would create.
CREATE SCHEMA IF NOT EXISTS "rate_limit";
CREATE TABLE IF NOT EXISTS "rate_limit"."counters" (
    "key" VARCHAR(255) NOT NULL,
    "points" INTEGER NOT NULL DEFAULT 0,
    "expire" BIGINT,

    CONSTRAINT "counters_pkey" PRIMARY KEY ("key")
);

-- Fresh checkout keys admitted per window, counted by the claim's own statement: per client address (spread
-- over shards, so shoppers behind one address do not queue on one row) and per session.
CREATE TABLE "admission_counters" (
    "rule" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "shard" INTEGER NOT NULL,
    "hits" INTEGER NOT NULL,

    CONSTRAINT "admission_counters_pkey" PRIMARY KEY ("rule", "bucket", "window_start", "shard")
);
CREATE INDEX "admission_counters_window_start_idx" ON "admission_counters"("window_start");

-- An unfinished attempt holds one of its customer's open slots (0 .. CHECKOUT_MAX_OPEN_ATTEMPTS - 1) until its
-- outcome is recorded: two fresh claims racing for the last slot cannot both win. NULLs are distinct, so finished
-- attempts (no slot) never collide.
ALTER TABLE "idempotency_keys" ADD COLUMN "open_slot" INTEGER;
UPDATE "idempotency_keys" AS k SET "open_slot" = s.n
  FROM (SELECT "id", row_number() OVER (PARTITION BY "subject_id", "endpoint" ORDER BY "created_at") - 1 AS n
          FROM "idempotency_keys" WHERE "status" = 'in_progress') AS s
 WHERE k."id" = s."id";
CREATE UNIQUE INDEX "idempotency_keys_subject_id_endpoint_open_slot_key" ON "idempotency_keys"("subject_id", "endpoint", "open_slot");
