-- The audit of the shop against Stripe's record: each run's summary, each
-- finding once (with who handled it, when, and why), and the lease that lets
-- one instance of the fleet run it at a time.
-- CreateTable
CREATE TABLE "audit_runs" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "window_from" TIMESTAMPTZ(3) NOT NULL,
    "window_to" TIMESTAMPTZ(3) NOT NULL,
    "intents" INTEGER NOT NULL,
    "counts" JSONB NOT NULL,
    "money_wrong" BOOLEAN NOT NULL,

    CONSTRAINT "audit_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_findings" (
    "key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "finding" JSONB NOT NULL,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_run_id" UUID NOT NULL,
    "handled_at" TIMESTAMPTZ(3),
    "handled_by" TEXT,
    "handled_note" TEXT,

    CONSTRAINT "audit_findings_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "leases" (
    "name" TEXT NOT NULL,
    "holder" UUID NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "leases_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "audit_runs_finished_at_idx" ON "audit_runs"("finished_at" DESC);

-- CreateIndex
CREATE INDEX "audit_findings_last_run_id_idx" ON "audit_findings"("last_run_id");

-- CreateIndex: the audit reads the orders of a window
CREATE INDEX "orders_created_at_idx" ON "orders"("created_at");
