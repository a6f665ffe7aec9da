-- Idempotency-Key on every POST that creates or spends (src/idempotency/): one table of reserved keys and
-- their stored answers, unique per API key scope and key. Export submissions use it too, so their own
-- per-UTC-day bucket (idempotency_day and its unique index) goes; idempotency_key stays on the job as a record.

-- DropIndex
DROP INDEX "export_jobs_org_id_idempotency_key_idempotency_day_key";

-- AlterTable
ALTER TABLE "export_jobs" DROP COLUMN "idempotency_day";

-- CreateTable
CREATE TABLE "idempotency_records" (
    "scope" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "status" INTEGER,
    "headers" JSONB,
    "body" BYTEA,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "locked_until" TIMESTAMPTZ(3),

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("scope","key")
);

-- CreateIndex
CREATE INDEX "idempotency_records_expires_at_idx" ON "idempotency_records"("expires_at");
