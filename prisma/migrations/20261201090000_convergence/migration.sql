-- Replays are the stored bytes: jsonb would reorder the keys of the body.
ALTER TABLE "idempotency_keys" ALTER COLUMN "response_body" TYPE TEXT USING "response_body"::text;

-- Each attempt's own next try for the reconciler (fairness), and how many
-- times the reconciler found its outcome unknown (the backoff's exponent).
ALTER TABLE "idempotency_keys" ADD COLUMN "next_attempt_at" TIMESTAMPTZ(3);
ALTER TABLE "idempotency_keys" ADD COLUMN "reconcile_tries" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "idempotency_keys_status_next_attempt_at_idx" ON "idempotency_keys"("status", "next_attempt_at");
