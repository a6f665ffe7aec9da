-- AlterTable
ALTER TABLE "assets" ADD COLUMN     "adpe_kg_sb_eq" DOUBLE PRECISION,
ADD COLUMN     "pe_mj" DOUBLE PRECISION;

-- The trigger of migration inventory_period_figures, which keeps an asset's figures of its active calculation,
-- now also keeps the whole-life ADPe and PE of the calculation's stored impacts (docs/methodology.md section 13).
-- A result stored before impacts existed has none: the columns stay null, never a sibling's value.
-- A calculation inserted by the same statement as the asset (the demo estate, a sandbox copy) is not visible to
-- the row trigger: the figures that statement writes are kept (before, they were nulled).
CREATE OR REPLACE FUNCTION assets_active_calculation_figures() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  c record;
BEGIN
  IF NEW.active_calculation_id IS NULL THEN
    NEW.transport_kg := NULL; NEW.end_of_life_kg := NULL; NEW.annual_kwh := NULL;
    NEW.lifetime_years := NULL; NEW.uncertainty_pct := NULL; NEW.calculated_at := NULL;
    NEW.adpe_kg_sb_eq := NULL; NEW.pe_mj := NULL;
    RETURN NEW;
  END IF;
  SELECT k.transport_kg, k.end_of_life_kg, k.created_at, k.result -> 'methodology' AS m, k.result -> 'impacts' AS i
    INTO c FROM calculations k WHERE k.id = NEW.active_calculation_id;
  IF NOT FOUND THEN
    RETURN NEW;
  END IF;
  NEW.transport_kg := c.transport_kg;
  NEW.end_of_life_kg := c.end_of_life_kg;
  NEW.calculated_at := c.created_at;
  NEW.annual_kwh := CASE WHEN jsonb_typeof(c.m -> 'annual_kwh') = 'number' THEN (c.m ->> 'annual_kwh')::float8 END;
  NEW.lifetime_years := CASE WHEN jsonb_typeof(c.m -> 'lifetime_years') = 'number' THEN (c.m ->> 'lifetime_years')::float8 END;
  NEW.uncertainty_pct := CASE WHEN jsonb_typeof(c.m -> 'uncertainty_pct') = 'number' THEN (c.m ->> 'uncertainty_pct')::float8 END;
  NEW.adpe_kg_sb_eq := CASE WHEN jsonb_typeof(c.i -> 'adpe' -> 'total') = 'number' THEN (c.i -> 'adpe' ->> 'total')::float8 END;
  NEW.pe_mj := CASE WHEN jsonb_typeof(c.i -> 'pe' -> 'total') = 'number' THEN (c.i -> 'pe' ->> 'total')::float8 END;
  RETURN NEW;
END;
$$;

-- Backfill: the assets recorded before this migration.
UPDATE assets a SET
  adpe_kg_sb_eq = CASE WHEN jsonb_typeof(c.result -> 'impacts' -> 'adpe' -> 'total') = 'number' THEN (c.result -> 'impacts' -> 'adpe' ->> 'total')::float8 END,
  pe_mj = CASE WHEN jsonb_typeof(c.result -> 'impacts' -> 'pe' -> 'total') = 'number' THEN (c.result -> 'impacts' -> 'pe' ->> 'total')::float8 END
FROM calculations c WHERE c.id = a.active_calculation_id;
