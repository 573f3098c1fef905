-- AlterTable
ALTER TABLE "orders" ADD COLUMN "payment_method" TEXT;
