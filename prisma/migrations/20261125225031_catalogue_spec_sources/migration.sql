-- AlterTable
ALTER TABLE "products" ADD COLUMN     "spec_sources" JSONB;
