-- AlterTable
ALTER TABLE "orders" ADD COLUMN "return_url" TEXT;
