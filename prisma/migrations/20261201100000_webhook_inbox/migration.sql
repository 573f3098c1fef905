-- The webhook inbox (docs/contract.md, "Webhooks"): one row per Stripe event id, inserted
-- when a delivery's signature checks out, processed at least once until done.
-- CreateTable
CREATE TABLE "webhook_events" (
    "id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "payment_intent_id" TEXT,
    "payload" JSONB NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),
    "outcome" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_error" TEXT,

    CONSTRAINT "webhook_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_events_processed_at_next_attempt_at_idx" ON "webhook_events"("processed_at", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_events_payment_intent_id_idx" ON "webhook_events"("payment_intent_id");

-- A payment that succeeded after its attempt was recorded as failed is refunded (late success).
-- AlterTable
ALTER TABLE "orders" ADD COLUMN "refunded_at" TIMESTAMPTZ(3),
ADD COLUMN "refund_id" TEXT,
ADD COLUMN "refund_reason" TEXT;
