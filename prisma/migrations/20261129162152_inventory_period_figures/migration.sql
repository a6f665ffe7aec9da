-- AlterTable
ALTER TABLE "assets" ADD COLUMN     "annual_kwh" DOUBLE PRECISION,
ADD COLUMN     "calculated_at" TIMESTAMPTZ(3),
ADD COLUMN     "end_of_life_kg" DOUBLE PRECISION,
ADD COLUMN     "lifetime_years" DOUBLE PRECISION,
ADD COLUMN     "transport_kg" DOUBLE PRECISION,
ADD COLUMN     "uncertainty_pct" DOUBLE PRECISION;

-- CreateIndex
CREATE INDEX "asset_events_inventory_retirements_idx" ON "asset_events"("org_id", "asset_id", "created_at") WHERE ((event = 'asset.status_changed'::text) AND (to_value = ANY (ARRAY['resold'::text, 'recycled'::text, 'disposed'::text])));

-- CreateIndex
CREATE INDEX "assets_org_id_calculated_at_idx" ON "assets"("org_id", "calculated_at");

-- The period inventory (src/inventory/, docs/inventory.md) sums these in grouped SQL over the assets alone:
-- each asset carries the figures of its active calculation that the inventory needs. One row trigger fills
-- them whenever active_calculation_id is written, so every path that writes assets (API and CSV imports,
-- seed-demo, the sandbox copy) keeps them without knowing of them. A number missing from an older result
-- stays null (the asset is then reported as not calculated, never given a sibling's value).
CREATE FUNCTION assets_active_calculation_figures() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  m jsonb;
BEGIN
  IF NEW.active_calculation_id IS NULL THEN
    NEW.transport_kg := NULL; NEW.end_of_life_kg := NULL; NEW.annual_kwh := NULL;
    NEW.lifetime_years := NULL; NEW.uncertainty_pct := NULL; NEW.calculated_at := NULL;
    RETURN NEW;
  END IF;
  SELECT c.transport_kg, c.end_of_life_kg, c.created_at, c.result -> 'methodology'
    INTO NEW.transport_kg, NEW.end_of_life_kg, NEW.calculated_at, m
    FROM calculations c WHERE c.id = NEW.active_calculation_id;
  NEW.annual_kwh := CASE WHEN jsonb_typeof(m -> 'annual_kwh') = 'number' THEN (m ->> 'annual_kwh')::float8 END;
  NEW.lifetime_years := CASE WHEN jsonb_typeof(m -> 'lifetime_years') = 'number' THEN (m ->> 'lifetime_years')::float8 END;
  NEW.uncertainty_pct := CASE WHEN jsonb_typeof(m -> 'uncertainty_pct') = 'number' THEN (m ->> 'uncertainty_pct')::float8 END;
  RETURN NEW;
END;
$$;

CREATE TRIGGER assets_active_calculation_figures_insert BEFORE INSERT ON assets
  FOR EACH ROW EXECUTE FUNCTION assets_active_calculation_figures();
CREATE TRIGGER assets_active_calculation_figures_update BEFORE UPDATE OF active_calculation_id ON assets
  FOR EACH ROW WHEN (NEW.active_calculation_id IS DISTINCT FROM OLD.active_calculation_id)
  EXECUTE FUNCTION assets_active_calculation_figures();

-- Backfill: the assets recorded before this migration.
UPDATE assets a SET
  transport_kg = c.transport_kg,
  end_of_life_kg = c.end_of_life_kg,
  calculated_at = c.created_at,
  annual_kwh = CASE WHEN jsonb_typeof(c.result -> 'methodology' -> 'annual_kwh') = 'number' THEN (c.result -> 'methodology' ->> 'annual_kwh')::float8 END,
  lifetime_years = CASE WHEN jsonb_typeof(c.result -> 'methodology' -> 'lifetime_years') = 'number' THEN (c.result -> 'methodology' ->> 'lifetime_years')::float8 END,
  uncertainty_pct = CASE WHEN jsonb_typeof(c.result -> 'methodology' -> 'uncertainty_pct') = 'number' THEN (c.result -> 'methodology' ->> 'uncertainty_pct')::float8 END
FROM calculations c WHERE c.id = a.active_calculation_id;
