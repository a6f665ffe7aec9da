-- CreateEnum
CREATE TYPE "Plan" AS ENUM ('free', 'pro', 'business', 'enterprise');

-- CreateEnum
CREATE TYPE "AssetStatus" AS ENUM ('in_stock', 'in_use', 'in_repair', 'refurbished', 'resold', 'recycled', 'disposed');

-- CreateEnum
CREATE TYPE "CalculationKind" AS ENUM ('footprint', 'savings', 'refurbishment');

-- CreateEnum
CREATE TYPE "Confidence" AS ENUM ('manufacturer_verified', 'estimated_high', 'estimated_medium', 'estimated_low');

-- CreateEnum
CREATE TYPE "FactorType" AS ENUM ('GRID');

-- CreateEnum
CREATE TYPE "ExportJobStatus" AS ENUM ('pending', 'processing', 'completed', 'failed', 'cancelled', 'expired');

-- CreateEnum
CREATE TYPE "ErasureItemStatus" AS ENUM ('synced', 'skipped', 'error');

-- CreateTable
CREATE TABLE "organizations" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "plan" "Plan" NOT NULL DEFAULT 'free',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "profiles" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "display_name" TEXT,
    "role" TEXT NOT NULL DEFAULT 'member',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3),

    CONSTRAINT "profiles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "name" TEXT,
    "environment" TEXT NOT NULL DEFAULT 'live',
    "plan" "Plan" NOT NULL,
    "bi_enabled" BOOLEAN NOT NULL DEFAULT false,
    "org_context" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "assets" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "brand" TEXT NOT NULL,
    "mpn" TEXT,
    "model" TEXT,
    "serial_number" TEXT,
    "category" TEXT NOT NULL,
    "status" "AssetStatus" NOT NULL DEFAULT 'in_use',
    "purchase_date" DATE,
    "country" TEXT NOT NULL,
    "specs" JSONB NOT NULL DEFAULT '{}',
    "product_id" UUID,
    "active_calculation_id" UUID,
    "total_kg_co2e" DOUBLE PRECISION,
    "production_kg" DOUBLE PRECISION,
    "use_phase_kg" DOUBLE PRECISION,
    "source" TEXT NOT NULL DEFAULT 'api',
    "external_ref" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "assets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "asset_events" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "asset_id" UUID NOT NULL,
    "event" TEXT NOT NULL,
    "from_value" TEXT,
    "to_value" TEXT,
    "data" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "asset_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "asset_imports" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "total_rows" INTEGER NOT NULL,
    "created" INTEGER NOT NULL,
    "updated" INTEGER NOT NULL,
    "failed" INTEGER NOT NULL,
    "errors" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "asset_imports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "calculations" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "asset_id" UUID,
    "api_key_id" UUID,
    "kind" "CalculationKind" NOT NULL DEFAULT 'footprint',
    "engine_version" TEXT NOT NULL,
    "country" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "product_id" UUID,
    "confidence" "Confidence" NOT NULL,
    "total_kg_co2e" DOUBLE PRECISION NOT NULL,
    "production_kg" DOUBLE PRECISION NOT NULL,
    "transport_kg" DOUBLE PRECISION NOT NULL,
    "use_phase_kg" DOUBLE PRECISION NOT NULL,
    "end_of_life_kg" DOUBLE PRECISION NOT NULL,
    "inputs" JSONB NOT NULL,
    "result" JSONB NOT NULL,
    "grid_factor_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "calculations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "calculation_factors" (
    "calculation_id" UUID NOT NULL,
    "factor_id" UUID NOT NULL,
    "role" TEXT NOT NULL,
    "org_id" UUID NOT NULL,

    CONSTRAINT "calculation_factors_pkey" PRIMARY KEY ("calculation_id","role")
);

-- CreateTable
CREATE TABLE "certificates" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "calculation_id" UUID NOT NULL,
    "asset_id" UUID,
    "certificate_number" TEXT NOT NULL,
    "issued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "content_sha256" TEXT NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "certificates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reports" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "api_key_id" UUID,
    "type" TEXT NOT NULL,
    "date_from" DATE,
    "date_to" DATE,
    "pages" INTEGER,
    "bytes" INTEGER,
    "sha256" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "reports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "export_jobs" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "status" "ExportJobStatus" NOT NULL DEFAULT 'pending',
    "scope" JSONB NOT NULL,
    "format" TEXT NOT NULL DEFAULT 'zip',
    "total_tables" INTEGER,
    "total_rows" INTEGER,
    "bytes" INTEGER,
    "sha256" TEXT,
    "manifest" JSONB,
    "error_code" TEXT,
    "error_message" TEXT,
    "idempotency_key" TEXT,
    "idempotency_day" DATE,
    "storage_path" TEXT,
    "requested_by_key" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),

    CONSTRAINT "export_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_log" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "event" TEXT NOT NULL,
    "actor_key_id" UUID,
    "subject_type" TEXT,
    "subject_id" TEXT,
    "data" JSONB,
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "events" TEXT[],
    "active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "event" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "response_status" INTEGER,
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "erasure_connections" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "provider" TEXT NOT NULL DEFAULT 'blancco',
    "base_url" TEXT NOT NULL,
    "credential_ref" TEXT NOT NULL,
    "default_country" TEXT NOT NULL DEFAULT 'NL',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_synced_at" TIMESTAMPTZ(3),

    CONSTRAINT "erasure_connections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "erasure_sync_runs" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "params" JSONB NOT NULL,
    "synced" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "erasure_sync_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "erasure_reports" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "sync_run_id" UUID,
    "external_uuid" TEXT NOT NULL,
    "status" "ErasureItemStatus" NOT NULL,
    "brand" TEXT,
    "model" TEXT,
    "serial_number" TEXT,
    "erased_at" TIMESTAMPTZ(3),
    "report" JSONB,
    "asset_id" UUID,
    "calculation_id" UUID,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "erasure_reports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sbti_targets" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "base_year" INTEGER NOT NULL,
    "base_year_kg_co2e" DOUBLE PRECISION NOT NULL,
    "target_year" INTEGER NOT NULL,
    "reduction_pct" DOUBLE PRECISION NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'committed',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sbti_targets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "monthly_emissions" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "month" DATE NOT NULL,
    "category" TEXT NOT NULL,
    "country" TEXT NOT NULL,
    "kg_co2e" DOUBLE PRECISION NOT NULL,
    "asset_count" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "monthly_emissions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scenario_runs" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "api_key_id" UUID,
    "kind" TEXT NOT NULL,
    "asset_ids" UUID[],
    "result" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scenario_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_counters" (
    "bucket" TEXT NOT NULL,
    "org_id" UUID,
    "api_key_id" UUID,
    "window" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "usage_counters_pkey" PRIMARY KEY ("bucket")
);

-- CreateTable
CREATE TABLE "console_sessions" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "token_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "console_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "products" (
    "id" UUID NOT NULL,
    "brand" TEXT NOT NULL,
    "mpn" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "release_year" INTEGER,
    "aliases" TEXT[],
    "weight_kg" DOUBLE PRECISION,
    "screen_size_inch" DOUBLE PRECISION,
    "screen_type" TEXT,
    "processor_tdp_w" DOUBLE PRECISION,
    "ram_gb" DOUBLE PRECISION,
    "storage_gb" DOUBLE PRECISION,
    "storage_type" TEXT,
    "battery_wh" DOUBLE PRECISION,
    "typical_consumption_kwh" DOUBLE PRECISION,
    "pcf_total_kg" DOUBLE PRECISION,
    "pcf_lifetime_years" DOUBLE PRECISION,
    "pcf_use_location" TEXT,
    "pcf_source_url" TEXT,
    "source" TEXT NOT NULL,
    "source_note" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "products_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "factor_registries" (
    "id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "current_version" TEXT NOT NULL,
    "url" TEXT,
    "license" TEXT,
    "next_check_after" DATE,

    CONSTRAINT "factor_registries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "emission_factors" (
    "id" UUID NOT NULL,
    "type" "FactorType" NOT NULL,
    "region_code" TEXT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "unit" TEXT NOT NULL,
    "registry_id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "source_version" TEXT NOT NULL,
    "source_url" TEXT,
    "source_license" TEXT,
    "valid_from" DATE NOT NULL,
    "valid_to" DATE,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "emission_factors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "regions" (
    "code" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "parent_code" TEXT,

    CONSTRAINT "regions_pkey" PRIMARY KEY ("code")
);

-- CreateTable
CREATE TABLE "device_categories" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "group" TEXT NOT NULL,
    "lifetime_years" DOUBLE PRECISION NOT NULL,
    "fallback_kwh_per_year" DOUBLE PRECISION NOT NULL,
    "defaults" JSONB NOT NULL,
    "parameters" JSONB NOT NULL,

    CONSTRAINT "device_categories_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "catalogue_cache" (
    "key" TEXT NOT NULL,
    "found" BOOLEAN NOT NULL,
    "payload" JSONB,
    "fetched_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "catalogue_cache_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "reference_datasets" (
    "name" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "loaded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "row_count" INTEGER NOT NULL,

    CONSTRAINT "reference_datasets_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "profiles_org_id_email_key" ON "profiles"("org_id", "email");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_key" ON "api_keys"("key");

-- CreateIndex
CREATE INDEX "api_keys_org_id_created_at_idx" ON "api_keys"("org_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "assets_active_calculation_id_key" ON "assets"("active_calculation_id");

-- CreateIndex
CREATE INDEX "assets_org_id_created_at_idx" ON "assets"("org_id", "created_at");

-- CreateIndex
CREATE INDEX "assets_org_id_status_idx" ON "assets"("org_id", "status");

-- CreateIndex
CREATE INDEX "assets_org_id_category_idx" ON "assets"("org_id", "category");

-- CreateIndex
CREATE INDEX "assets_org_id_country_idx" ON "assets"("org_id", "country");

-- CreateIndex
CREATE INDEX "assets_org_id_purchase_date_idx" ON "assets"("org_id", "purchase_date");

-- CreateIndex
CREATE UNIQUE INDEX "assets_org_id_serial_number_key" ON "assets"("org_id", "serial_number");

-- CreateIndex
CREATE INDEX "asset_events_asset_id_created_at_idx" ON "asset_events"("asset_id", "created_at");

-- CreateIndex
CREATE INDEX "asset_events_org_id_created_at_idx" ON "asset_events"("org_id", "created_at");

-- CreateIndex
CREATE INDEX "asset_imports_org_id_created_at_idx" ON "asset_imports"("org_id", "created_at");

-- CreateIndex
CREATE INDEX "calculations_org_id_created_at_idx" ON "calculations"("org_id", "created_at");

-- CreateIndex
CREATE INDEX "calculations_asset_id_created_at_idx" ON "calculations"("asset_id", "created_at");

-- CreateIndex
CREATE INDEX "calculation_factors_org_id_idx" ON "calculation_factors"("org_id");

-- CreateIndex
CREATE INDEX "calculation_factors_factor_id_idx" ON "calculation_factors"("factor_id");

-- CreateIndex
CREATE UNIQUE INDEX "certificates_certificate_number_key" ON "certificates"("certificate_number");

-- CreateIndex
CREATE INDEX "certificates_org_id_issued_at_idx" ON "certificates"("org_id", "issued_at");

-- CreateIndex
CREATE INDEX "certificates_calculation_id_idx" ON "certificates"("calculation_id");

-- CreateIndex
CREATE INDEX "reports_org_id_created_at_idx" ON "reports"("org_id", "created_at");

-- CreateIndex
CREATE INDEX "export_jobs_org_id_created_at_idx" ON "export_jobs"("org_id", "created_at");

-- CreateIndex
CREATE INDEX "export_jobs_org_id_status_idx" ON "export_jobs"("org_id", "status");

-- CreateIndex
CREATE INDEX "export_jobs_status_expires_at_idx" ON "export_jobs"("status", "expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "export_jobs_org_id_idempotency_key_idempotency_day_key" ON "export_jobs"("org_id", "idempotency_key", "idempotency_day");

-- CreateIndex
CREATE INDEX "audit_log_org_id_created_at_idx" ON "audit_log"("org_id", "created_at");

-- CreateIndex
CREATE INDEX "audit_log_org_id_event_idx" ON "audit_log"("org_id", "event");

-- CreateIndex
CREATE INDEX "webhook_endpoints_org_id_idx" ON "webhook_endpoints"("org_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_org_id_created_at_idx" ON "webhook_deliveries"("org_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_created_at_idx" ON "webhook_deliveries"("endpoint_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "erasure_connections_org_id_provider_key" ON "erasure_connections"("org_id", "provider");

-- CreateIndex
CREATE INDEX "erasure_sync_runs_org_id_started_at_idx" ON "erasure_sync_runs"("org_id", "started_at");

-- CreateIndex
CREATE INDEX "erasure_reports_org_id_created_at_idx" ON "erasure_reports"("org_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "erasure_reports_org_id_external_uuid_key" ON "erasure_reports"("org_id", "external_uuid");

-- CreateIndex
CREATE INDEX "sbti_targets_org_id_idx" ON "sbti_targets"("org_id");

-- CreateIndex
CREATE UNIQUE INDEX "monthly_emissions_org_id_month_category_country_key" ON "monthly_emissions"("org_id", "month", "category", "country");

-- CreateIndex
CREATE INDEX "scenario_runs_org_id_created_at_idx" ON "scenario_runs"("org_id", "created_at");

-- CreateIndex
CREATE INDEX "usage_counters_org_id_window_start_idx" ON "usage_counters"("org_id", "window_start");

-- CreateIndex
CREATE INDEX "usage_counters_window_start_idx" ON "usage_counters"("window_start");

-- CreateIndex
CREATE UNIQUE INDEX "console_sessions_token_hash_key" ON "console_sessions"("token_hash");

-- CreateIndex
CREATE INDEX "console_sessions_org_id_idx" ON "console_sessions"("org_id");

-- CreateIndex
CREATE INDEX "products_category_idx" ON "products"("category");

-- CreateIndex
CREATE UNIQUE INDEX "products_brand_mpn_key" ON "products"("brand", "mpn");

-- CreateIndex
CREATE UNIQUE INDEX "factor_registries_key_key" ON "factor_registries"("key");

-- CreateIndex
CREATE INDEX "emission_factors_type_region_code_valid_from_valid_to_idx" ON "emission_factors"("type", "region_code", "valid_from", "valid_to");

-- CreateIndex
CREATE UNIQUE INDEX "emission_factors_type_region_code_valid_from_key" ON "emission_factors"("type", "region_code", "valid_from");

-- CreateIndex
CREATE INDEX "catalogue_cache_expires_at_idx" ON "catalogue_cache"("expires_at");

-- AddForeignKey
ALTER TABLE "profiles" ADD CONSTRAINT "profiles_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "assets" ADD CONSTRAINT "assets_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "assets" ADD CONSTRAINT "assets_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "assets" ADD CONSTRAINT "assets_active_calculation_id_fkey" FOREIGN KEY ("active_calculation_id") REFERENCES "calculations"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "asset_events" ADD CONSTRAINT "asset_events_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "asset_events" ADD CONSTRAINT "asset_events_asset_id_fkey" FOREIGN KEY ("asset_id") REFERENCES "assets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "asset_imports" ADD CONSTRAINT "asset_imports_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calculations" ADD CONSTRAINT "calculations_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calculations" ADD CONSTRAINT "calculations_asset_id_fkey" FOREIGN KEY ("asset_id") REFERENCES "assets"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calculations" ADD CONSTRAINT "calculations_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calculations" ADD CONSTRAINT "calculations_grid_factor_id_fkey" FOREIGN KEY ("grid_factor_id") REFERENCES "emission_factors"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calculation_factors" ADD CONSTRAINT "calculation_factors_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calculation_factors" ADD CONSTRAINT "calculation_factors_calculation_id_fkey" FOREIGN KEY ("calculation_id") REFERENCES "calculations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calculation_factors" ADD CONSTRAINT "calculation_factors_factor_id_fkey" FOREIGN KEY ("factor_id") REFERENCES "emission_factors"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "certificates" ADD CONSTRAINT "certificates_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "certificates" ADD CONSTRAINT "certificates_calculation_id_fkey" FOREIGN KEY ("calculation_id") REFERENCES "calculations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "certificates" ADD CONSTRAINT "certificates_asset_id_fkey" FOREIGN KEY ("asset_id") REFERENCES "assets"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reports" ADD CONSTRAINT "reports_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "export_jobs" ADD CONSTRAINT "export_jobs_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "erasure_connections" ADD CONSTRAINT "erasure_connections_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "erasure_sync_runs" ADD CONSTRAINT "erasure_sync_runs_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "erasure_reports" ADD CONSTRAINT "erasure_reports_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "erasure_reports" ADD CONSTRAINT "erasure_reports_sync_run_id_fkey" FOREIGN KEY ("sync_run_id") REFERENCES "erasure_sync_runs"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "erasure_reports" ADD CONSTRAINT "erasure_reports_asset_id_fkey" FOREIGN KEY ("asset_id") REFERENCES "assets"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sbti_targets" ADD CONSTRAINT "sbti_targets_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "monthly_emissions" ADD CONSTRAINT "monthly_emissions_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scenario_runs" ADD CONSTRAINT "scenario_runs_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "usage_counters" ADD CONSTRAINT "usage_counters_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "emission_factors" ADD CONSTRAINT "emission_factors_registry_id_fkey" FOREIGN KEY ("registry_id") REFERENCES "factor_registries"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
