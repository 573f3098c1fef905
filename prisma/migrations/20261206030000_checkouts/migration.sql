-- A checkout on the server: the cart as the shop priced it, held by the browser by id. Its attempts' orders and
-- claims name it; at most one of them is live (docs/decisions/0027-one-payment-per-checkout.md).
CREATE TABLE "checkouts" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "customer_id" UUID NOT NULL,
    "amount_cents" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    -- [{ sku, name, price_cents, quantity }], priced from the catalogue when the lines were set.
    "lines" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "checkouts_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "checkouts_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "checkouts_customer_id_created_at_idx" ON "checkouts"("customer_id", "created_at" DESC);

-- Every attempt's order belongs to a checkout (one of its own when the request sent items); the key it was
-- claimed under stays on it after the claim's record is cleaned up.
ALTER TABLE "orders" ADD COLUMN "checkout_id" UUID;
ALTER TABLE "orders" ADD COLUMN "attempt_key" UUID;
ALTER TABLE "orders" ADD CONSTRAINT "orders_checkout_id_fkey" FOREIGN KEY ("checkout_id") REFERENCES "checkouts"("id") ON DELETE SET NULL ON UPDATE CASCADE;
CREATE INDEX "orders_checkout_id_idx" ON "orders"("checkout_id");

-- The checkout a claim pays for, as the package's `live_group`: at most one claim per checkout that has not failed
-- (in progress, waiting for the shopper, processing or paid). Partial, so declined attempts never collide; a
-- concurrent second claim for the same checkout fails in the claim's own statement.
ALTER TABLE "idempotency_keys" ADD COLUMN "live_group" UUID;
CREATE UNIQUE INDEX "idempotency_keys_live_group_key" ON "idempotency_keys"("live_group") WHERE "live_group" IS NOT NULL AND "status" <> 'failed';
