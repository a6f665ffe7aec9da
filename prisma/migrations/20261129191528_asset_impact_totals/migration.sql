-- AlterTable
ALTER TABLE "assets" ADD COLUMN     "adpe_kg_sb_eq" DOUBLE PRECISION,
ADD COLUMN     "pe_mj" DOUBLE PRECISION;

-- The trigger of migration inventory_period_figures, which keeps an asset's figures of its active calculation,
-- now also keeps the whole-life ADPe and PE of the calculation's stored impacts (docs/methodology.md section 13).
-- A result stored before impacts existed has none: the columns stay null, never a sibling's value.
CREATE OR REPLACE FUNCTION assets_active_calculation_figures() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  m jsonb;
  i jsonb;
BEGIN
  IF NEW.active_calculation_id IS NULL THEN
    NEW.transport_kg := NULL; NEW.end_of_life_kg := NULL; NEW.annual_kwh := NULL;
    NEW.lifetime_years := NULL; NEW.uncertainty_pct := NULL; NEW.calculated_at := NULL;
    NEW.adpe_kg_sb_eq := NULL; NEW.pe_mj := NULL;
    RETURN NEW;
  END IF;
  SELECT c.transport_kg, c.end_of_life_kg, c.created_at, c.result -> 'methodology', c.result -> 'impacts'
    INTO NEW.transport_kg, NEW.end_of_life_kg, NEW.calculated_at, m, i
    FROM calculations c WHERE c.id = NEW.active_calculation_id;
  NEW.annual_kwh := CASE WHEN jsonb_typeof(m -> 'annual_kwh') = 'number' THEN (m ->> 'annual_kwh')::float8 END;
  NEW.lifetime_years := CASE WHEN jsonb_typeof(m -> 'lifetime_years') = 'number' THEN (m ->> 'lifetime_years')::float8 END;
  NEW.uncertainty_pct := CASE WHEN jsonb_typeof(m -> 'uncertainty_pct') = 'number' THEN (m ->> 'uncertainty_pct')::float8 END;
  NEW.adpe_kg_sb_eq := CASE WHEN jsonb_typeof(i -> 'adpe' -> 'total') = 'number' THEN (i -> 'adpe' ->> 'total')::float8 END;
  NEW.pe_mj := CASE WHEN jsonb_typeof(i -> 'pe' -> 'total') = 'number' THEN (i -> 'pe' ->> 'total')::float8 END;
  RETURN NEW;
END;
$$;

-- Backfill: the assets recorded before this migration.
UPDATE assets a SET
  adpe_kg_sb_eq = CASE WHEN jsonb_typeof(c.result -> 'impacts' -> 'adpe' -> 'total') = 'number' THEN (c.result -> 'impacts' -> 'adpe' ->> 'total')::float8 END,
  pe_mj = CASE WHEN jsonb_typeof(c.result -> 'impacts' -> 'pe' -> 'total') = 'number' THEN (c.result -> 'impacts' -> 'pe' ->> 'total')::float8 END
FROM calculations c WHERE c.id = a.active_calculation_id;
