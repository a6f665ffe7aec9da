-- CreateEnum
CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('pending', 'succeeded', 'failed');

-- AlterTable
ALTER TABLE "export_jobs" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "cancelled_at" TIMESTAMPTZ(3),
ADD COLUMN     "failed_at" TIMESTAMPTZ(3),
ADD COLUMN     "lease_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "progress" JSONB,
ADD COLUMN     "worker_id" TEXT,
ALTER COLUMN "total_rows" SET DATA TYPE BIGINT,
ALTER COLUMN "bytes" SET DATA TYPE BIGINT;

-- AlterTable
ALTER TABLE "webhook_deliveries" DROP COLUMN "attempts",
ADD COLUMN     "attempt" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "duration_ms" INTEGER,
ADD COLUMN     "error" TEXT,
ADD COLUMN     "message_id" TEXT NOT NULL,
ADD COLUMN     "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'pending';

-- AlterTable
ALTER TABLE "webhook_endpoints" ADD COLUMN     "deleted_at" TIMESTAMPTZ(3),
ADD COLUMN     "description" TEXT;

-- CreateIndex
CREATE INDEX "export_jobs_status_created_at_idx" ON "export_jobs"("status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "export_jobs_one_active_per_org" ON "export_jobs"("org_id") WHERE (status IN ('pending', 'processing'));

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_message_id_idx" ON "webhook_deliveries"("message_id");
