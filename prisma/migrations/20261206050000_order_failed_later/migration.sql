-- A payment Stripe accepted (processing) and failed days later: an order the shopper was told of, kept in the history.
ALTER TABLE "orders" ADD COLUMN "failed_later_at" TIMESTAMPTZ(3);
