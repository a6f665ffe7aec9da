-- CreateEnum
CREATE TYPE "ErasureSyncStatus" AS ENUM ('running', 'completed', 'failed', 'interrupted');

-- Connections named an environment variable (credential_ref); the key is now stored encrypted and must be
-- configured again through PUT /v1/blancco/connection.
DELETE FROM "erasure_connections";

-- AlterTable
ALTER TABLE "erasure_connections" DROP COLUMN "credential_ref",
ADD COLUMN     "api_key_encrypted" TEXT NOT NULL,
ADD COLUMN     "api_key_hint" TEXT NOT NULL,
ADD COLUMN     "configured_by_key" UUID,
ADD COLUMN     "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- AlterTable
ALTER TABLE "erasure_reports" ADD COLUMN     "category" TEXT,
ADD COLUMN     "erasure_state" TEXT;

-- AlterTable
ALTER TABLE "erasure_sync_runs" ADD COLUMN     "api_key_id" UUID,
ADD COLUMN     "continued_from" UUID,
ADD COLUMN     "cursor" TEXT,
ADD COLUMN     "error_code" TEXT,
ADD COLUMN     "error_message" TEXT,
ADD COLUMN     "has_more" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "lease_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "status" "ErasureSyncStatus" NOT NULL DEFAULT 'completed';
-- Runs recorded before this migration are finished ones; new runs start as running.
ALTER TABLE "erasure_sync_runs" ALTER COLUMN "status" SET DEFAULT 'running';

-- CreateIndex
CREATE UNIQUE INDEX "erasure_sync_runs_one_running_per_org" ON "erasure_sync_runs"("org_id") WHERE (status = 'running'::"ErasureSyncStatus");
