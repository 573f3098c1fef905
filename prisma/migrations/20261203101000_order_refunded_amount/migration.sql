-- How much of an order's payment has been given back, as Stripe's refunds
-- (succeeded or pending) add up: a partial refund leaves the order paid.
-- AlterTable
ALTER TABLE "orders" ADD COLUMN "refunded_cents" INTEGER NOT NULL DEFAULT 0;
