-- The idle-customer sweep (lib/customers/expire.ts) looks for customers older than a session can live: by this index,
-- not by reading every customer ever made.
CREATE INDEX "customers_created_at_idx" ON "customers"("created_at");
