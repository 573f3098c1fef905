-- The earliest a released attempt may be retaken by a client's retry (IDEMPOTENCY_RETAKE_INTERVAL_MS): one key
-- cannot keep the provider busy by retrying as fast as it is answered.
ALTER TABLE "idempotency_keys" ADD COLUMN "retake_after" TIMESTAMPTZ(3);
