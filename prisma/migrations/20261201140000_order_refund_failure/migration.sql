-- AlterTable: a refund Stripe accepted and the card network later refused (the money is back on the account, not with the shopper)
ALTER TABLE "orders" ADD COLUMN "refund_failed_at" TIMESTAMPTZ(3),
ADD COLUMN "refund_failure_reason" TEXT;
