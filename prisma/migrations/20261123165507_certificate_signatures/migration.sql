-- AlterTable
ALTER TABLE "certificates" ADD COLUMN     "key_id" TEXT NOT NULL,
ADD COLUMN     "payload" JSONB NOT NULL,
ADD COLUMN     "signature" TEXT NOT NULL;

-- One certificate in force per calculation (issuing again returns it; a revoked one frees the slot).
-- Partial: not expressible in schema.prisma, and Prisma's diff leaves such indexes alone.
CREATE UNIQUE INDEX "certificates_calculation_id_active_key" ON "certificates"("calculation_id") WHERE "revoked_at" IS NULL;
