-- An operator's cancel of a payment not yet succeeded: the claim that holds it (one at a time per order, taken
-- in the claim's own statement under the order row's lock), the reason the operator chose, and when Stripe
-- cancelled it at the operator's request.
ALTER TABLE "orders" ADD COLUMN "cancel_key_id" UUID;
ALTER TABLE "orders" ADD COLUMN "cancel_reason" TEXT;
ALTER TABLE "orders" ADD COLUMN "canceled_at" TIMESTAMPTZ(3);
