-- CreateEnum
CREATE TYPE "HardwareAccounting" AS ENUM ('capital_goods', 'purchased_goods');

-- CreateEnum
CREATE TYPE "ContractualInstrumentKind" AS ENUM ('supplier_specific', 'energy_attribute_certificate');

-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "FactorType" ADD VALUE 'RESIDUAL_MIX';
ALTER TYPE "FactorType" ADD VALUE 'ELECTRICITY_ADPE';
ALTER TYPE "FactorType" ADD VALUE 'ELECTRICITY_PE';

-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "hardware_accounting" "HardwareAccounting" NOT NULL DEFAULT 'capital_goods';

-- CreateTable
CREATE TABLE "contractual_instruments" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "kind" "ContractualInstrumentKind" NOT NULL,
    "country" TEXT NOT NULL,
    "valid_from" DATE NOT NULL,
    "valid_to" DATE NOT NULL,
    "emission_factor_kg_per_kwh" DOUBLE PRECISION,
    "coverage_share" DOUBLE PRECISION,
    "label" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "contractual_instruments_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "contractual_instruments_org_id_country_valid_from_idx" ON "contractual_instruments"("org_id", "country", "valid_from");

-- AddForeignKey
ALTER TABLE "contractual_instruments" ADD CONSTRAINT "contractual_instruments_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
