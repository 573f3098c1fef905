-- AlterTable
ALTER TABLE "orders" ADD COLUMN "receipt_email" TEXT,
ADD COLUMN "card_brand" TEXT,
ADD COLUMN "card_last4" TEXT;
