-- One ledger of every refund of an order's payment: the operator's (one per
-- attempt, reserved in the claim's own statement before Stripe is called),
-- the shop's own (late successes) and Stripe's news (the Dashboard).
CREATE TABLE "refunds" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "order_id" UUID NOT NULL,
    "idempotency_key_id" UUID,
    "stripe_refund_id" TEXT,
    "amount_cents" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "reason" TEXT,
    "failure_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "refunds_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "refunds_amount_positive" CHECK ("amount_cents" > 0),
    CONSTRAINT "refunds_status_known" CHECK ("status" IN ('pending', 'succeeded', 'failed', 'canceled'))
);

CREATE UNIQUE INDEX "refunds_idempotency_key_id_key" ON "refunds"("idempotency_key_id");
CREATE UNIQUE INDEX "refunds_stripe_refund_id_key" ON "refunds"("stripe_refund_id");
CREATE INDEX "refunds_order_id_idx" ON "refunds"("order_id");

ALTER TABLE "refunds" ADD CONSTRAINT "refunds_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_idempotency_key_id_fkey" FOREIGN KEY ("idempotency_key_id") REFERENCES "idempotency_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- What the ledger's pending and succeeded refunds hold back, kept on the
-- order row so that the claim's one statement reads it under the row's lock.
ALTER TABLE "orders" ADD COLUMN "refund_held_cents" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "orders" ADD CONSTRAINT "orders_refund_held_within_charge" CHECK ("refund_held_cents" >= 0 AND "refund_held_cents" <= "amount_cents");

-- Refunds recorded before the ledger (on the order alone) still count against what remains.
UPDATE "orders" SET "refund_held_cents" = LEAST("refunded_cents", "amount_cents") WHERE "refunded_cents" > 0;
