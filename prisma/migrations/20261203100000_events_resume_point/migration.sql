-- The events catch-up's resume point: the newest event stored, so a pass
-- pages on from it (ending_before) rather than from a time alone.
-- AlterTable
ALTER TABLE "provider_cursors" ADD COLUMN "event_id" TEXT;
