-- How far the events catch-up has read Stripe's event list: the newest event's
-- creation time (Unix seconds) seen by any instance.
-- CreateTable
CREATE TABLE "provider_cursors" (
    "name" TEXT NOT NULL,
    "created_seconds" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_cursors_pkey" PRIMARY KEY ("name")
);
