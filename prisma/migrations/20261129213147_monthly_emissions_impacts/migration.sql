-- AlterTable
ALTER TABLE "calculations" ADD COLUMN     "adpe_end_of_life_kg_sb_eq" DOUBLE PRECISION,
ADD COLUMN     "adpe_kg_sb_eq" DOUBLE PRECISION,
ADD COLUMN     "adpe_production_kg_sb_eq" DOUBLE PRECISION,
ADD COLUMN     "adpe_transport_kg_sb_eq" DOUBLE PRECISION,
ADD COLUMN     "adpe_use_phase_kg_sb_eq" DOUBLE PRECISION,
ADD COLUMN     "pe_end_of_life_mj" DOUBLE PRECISION,
ADD COLUMN     "pe_mj" DOUBLE PRECISION,
ADD COLUMN     "pe_production_mj" DOUBLE PRECISION,
ADD COLUMN     "pe_transport_mj" DOUBLE PRECISION,
ADD COLUMN     "pe_use_phase_mj" DOUBLE PRECISION;

-- AlterTable
ALTER TABLE "monthly_emissions" ADD COLUMN     "adpe_end_of_life_kg_sb_eq" DECIMAL(30,15),
ADD COLUMN     "adpe_kg_sb_eq" DECIMAL(30,15),
ADD COLUMN     "adpe_production_kg_sb_eq" DECIMAL(30,15),
ADD COLUMN     "adpe_transport_kg_sb_eq" DECIMAL(30,15),
ADD COLUMN     "adpe_use_phase_kg_sb_eq" DECIMAL(30,15),
ADD COLUMN     "impacts_asset_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "pe_end_of_life_mj" DECIMAL(24,9),
ADD COLUMN     "pe_mj" DECIMAL(24,9),
ADD COLUMN     "pe_production_mj" DECIMAL(24,9),
ADD COLUMN     "pe_transport_mj" DECIMAL(24,9),
ADD COLUMN     "pe_use_phase_mj" DECIMAL(24,9);

-- MonthlyEmissions carries ADPe (kg Sb eq) and PE (MJ) per phase and whole-life beside kg CO2e (docs/odata.md).
-- Where the figures come from: each calculation keeps them as columns, as it keeps its kg CO2e per phase, read
-- out of its result once, when the row is written (the trigger below), by whichever path writes it (the
-- calculation writer, the demo estate, a sandbox copy). The rollup trigger already looks up each changed asset's
-- active calculation by key for its kg CO2e: it reads these columns from the same row, and never the result
-- (a few kB of jsonb, TOASTed: reading it per changed asset would cost imports a detoast and a parse each).
-- Columns on the calculations rather than on the assets: the assets table, which the inventory and OData
-- scan, stays as narrow as it is; a calculation row is written once and is kB-sized anyway.
-- All ten or none: a result stored before impacts existed (or any other without all ten numbers) leaves them
-- null, and such a calculation counts in no ADPe or PE sum (never as 0).
CREATE FUNCTION calculations_impact_figures() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  a jsonb := NEW.result #> '{impacts,adpe}';
  p jsonb := NEW.result #> '{impacts,pe}';
BEGIN
  SELECT
    CASE WHEN jsonb_typeof(a #> '{phases,production}') = 'number' THEN (a #>> '{phases,production}')::float8 END,
    CASE WHEN jsonb_typeof(a #> '{phases,transport}') = 'number' THEN (a #>> '{phases,transport}')::float8 END,
    CASE WHEN jsonb_typeof(a #> '{phases,use}') = 'number' THEN (a #>> '{phases,use}')::float8 END,
    CASE WHEN jsonb_typeof(a #> '{phases,end_of_life}') = 'number' THEN (a #>> '{phases,end_of_life}')::float8 END,
    CASE WHEN jsonb_typeof(a -> 'total') = 'number' THEN (a ->> 'total')::float8 END,
    CASE WHEN jsonb_typeof(p #> '{phases,production}') = 'number' THEN (p #>> '{phases,production}')::float8 END,
    CASE WHEN jsonb_typeof(p #> '{phases,transport}') = 'number' THEN (p #>> '{phases,transport}')::float8 END,
    CASE WHEN jsonb_typeof(p #> '{phases,use}') = 'number' THEN (p #>> '{phases,use}')::float8 END,
    CASE WHEN jsonb_typeof(p #> '{phases,end_of_life}') = 'number' THEN (p #>> '{phases,end_of_life}')::float8 END,
    CASE WHEN jsonb_typeof(p -> 'total') = 'number' THEN (p ->> 'total')::float8 END
  INTO NEW.adpe_production_kg_sb_eq, NEW.adpe_transport_kg_sb_eq, NEW.adpe_use_phase_kg_sb_eq, NEW.adpe_end_of_life_kg_sb_eq,
    NEW.adpe_kg_sb_eq, NEW.pe_production_mj, NEW.pe_transport_mj, NEW.pe_use_phase_mj, NEW.pe_end_of_life_mj, NEW.pe_mj;
  IF num_nulls(NEW.adpe_production_kg_sb_eq, NEW.adpe_transport_kg_sb_eq, NEW.adpe_use_phase_kg_sb_eq, NEW.adpe_end_of_life_kg_sb_eq,
      NEW.adpe_kg_sb_eq, NEW.pe_production_mj, NEW.pe_transport_mj, NEW.pe_use_phase_mj, NEW.pe_end_of_life_mj, NEW.pe_mj) > 0 THEN
    NEW.adpe_production_kg_sb_eq := NULL; NEW.adpe_transport_kg_sb_eq := NULL; NEW.adpe_use_phase_kg_sb_eq := NULL;
    NEW.adpe_end_of_life_kg_sb_eq := NULL; NEW.adpe_kg_sb_eq := NULL; NEW.pe_production_mj := NULL; NEW.pe_transport_mj := NULL;
    NEW.pe_use_phase_mj := NULL; NEW.pe_end_of_life_mj := NULL; NEW.pe_mj := NULL;
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER calculations_impact_figures BEFORE INSERT OR UPDATE OF result ON calculations
  FOR EACH ROW EXECUTE FUNCTION calculations_impact_figures();

-- The assets' whole-life ADPe and PE (migration asset_impact_totals) now come from those columns: the same
-- numbers, without taking the impacts out of the result again for each asset written.
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
  SELECT k.transport_kg, k.end_of_life_kg, k.created_at, k.result -> 'methodology' AS m, k.adpe_kg_sb_eq, k.pe_mj
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
  NEW.adpe_kg_sb_eq := c.adpe_kg_sb_eq;
  NEW.pe_mj := c.pe_mj;
  RETURN NEW;
END;
$$;

-- The rollup of migration odata, with ADPe and PE. They are summed over the assets whose active calculation
-- has them, and impacts_asset_count says how many those are (of asset_count): a group none of whose assets has
-- them shows null, never 0, and a partial sum says so. As for kg CO2e, each asset's figures are rounded before
-- they are added (ADPe to 1e-15 kg Sb eq, PE to 1e-9 MJ: finer than the 4 significant digits a result keeps of
-- any figure above 1e-11 kg Sb eq or 1e-5 MJ), so taking an asset out cancels its adding exactly in numeric,
-- and the count going back to 0 leaves exact zeros, shown as null again.
CREATE OR REPLACE FUNCTION monthly_emissions_apply() RETURNS trigger LANGUAGE plpgsql
SET enable_hashjoin = off SET enable_mergejoin = off AS $$
DECLARE
  emptied uuid[];
BEGIN
  -- A transition table exists only for the events that have one: the statement names those of this
  -- event (constant text, no data in it).
  EXECUTE format($sql$
    WITH changed AS (%s),
    delta AS (
      SELECT ch.org_id,
        date_trunc('month', COALESCE(ch.purchase_date, (ch.created_at AT TIME ZONE 'UTC')::date))::date AS month,
        ch.category, ch.country,
        sum(ch.sign * round(c.production_kg::numeric, 6)) AS production_kg,
        sum(ch.sign * round(c.transport_kg::numeric, 6)) AS transport_kg,
        sum(ch.sign * round(c.use_phase_kg::numeric, 6)) AS use_phase_kg,
        sum(ch.sign * round(c.end_of_life_kg::numeric, 6)) AS end_of_life_kg,
        sum(ch.sign * round(c.total_kg_co2e::numeric, 6)) AS total_kg_co2e,
        sum(ch.sign)::int AS asset_count,
        -- A calculation without ADPe and PE (null columns) adds to none of these: null when no changed asset has them.
        sum(ch.sign * round(c.adpe_production_kg_sb_eq::numeric, 15)) AS adpe_production_kg_sb_eq,
        sum(ch.sign * round(c.adpe_transport_kg_sb_eq::numeric, 15)) AS adpe_transport_kg_sb_eq,
        sum(ch.sign * round(c.adpe_use_phase_kg_sb_eq::numeric, 15)) AS adpe_use_phase_kg_sb_eq,
        sum(ch.sign * round(c.adpe_end_of_life_kg_sb_eq::numeric, 15)) AS adpe_end_of_life_kg_sb_eq,
        sum(ch.sign * round(c.adpe_kg_sb_eq::numeric, 15)) AS adpe_kg_sb_eq,
        sum(ch.sign * round(c.pe_production_mj::numeric, 9)) AS pe_production_mj,
        sum(ch.sign * round(c.pe_transport_mj::numeric, 9)) AS pe_transport_mj,
        sum(ch.sign * round(c.pe_use_phase_mj::numeric, 9)) AS pe_use_phase_mj,
        sum(ch.sign * round(c.pe_end_of_life_mj::numeric, 9)) AS pe_end_of_life_mj,
        sum(ch.sign * round(c.pe_mj::numeric, 9)) AS pe_mj,
        sum(CASE WHEN c.adpe_kg_sb_eq IS NULL THEN 0 ELSE ch.sign END)::int AS impacts_asset_count
      FROM changed ch JOIN calculations c ON c.id = ch.active_calculation_id
      GROUP BY 1, 2, 3, 4
    ),
    applied AS (
      INSERT INTO monthly_emissions AS m (id, org_id, month, category, country, production_kg, transport_kg, use_phase_kg,
        end_of_life_kg, total_kg_co2e, asset_count, adpe_production_kg_sb_eq, adpe_transport_kg_sb_eq, adpe_use_phase_kg_sb_eq,
        adpe_end_of_life_kg_sb_eq, adpe_kg_sb_eq, pe_production_mj, pe_transport_mj, pe_use_phase_mj, pe_end_of_life_mj, pe_mj,
        impacts_asset_count, updated_at)
      SELECT gen_random_uuid(), d.org_id, d.month, d.category, d.country, d.production_kg, d.transport_kg, d.use_phase_kg,
        d.end_of_life_kg, d.total_kg_co2e, d.asset_count, d.adpe_production_kg_sb_eq, d.adpe_transport_kg_sb_eq,
        d.adpe_use_phase_kg_sb_eq, d.adpe_end_of_life_kg_sb_eq, d.adpe_kg_sb_eq, d.pe_production_mj, d.pe_transport_mj,
        d.pe_use_phase_mj, d.pe_end_of_life_mj, d.pe_mj, d.impacts_asset_count, now()
      FROM delta d
      -- Statements that change nothing the rollup shows (a status change) leave it alone; an organisation
      -- being deleted takes its rollup with it.
      WHERE (d.asset_count <> 0 OR d.production_kg <> 0 OR d.transport_kg <> 0 OR d.use_phase_kg <> 0
          OR d.end_of_life_kg <> 0 OR d.total_kg_co2e <> 0 OR d.impacts_asset_count <> 0
          OR num_nonnulls(nullif(d.adpe_production_kg_sb_eq, 0), nullif(d.adpe_transport_kg_sb_eq, 0), nullif(d.adpe_use_phase_kg_sb_eq, 0),
            nullif(d.adpe_end_of_life_kg_sb_eq, 0), nullif(d.adpe_kg_sb_eq, 0), nullif(d.pe_production_mj, 0), nullif(d.pe_transport_mj, 0),
            nullif(d.pe_use_phase_mj, 0), nullif(d.pe_end_of_life_mj, 0), nullif(d.pe_mj, 0)) > 0)
        AND EXISTS (SELECT 1 FROM organizations o WHERE o.id = d.org_id)
      -- One lock order for every writer, so that concurrent imports cannot deadlock on the rollup rows.
      ORDER BY d.org_id, d.month, d.category, d.country
      ON CONFLICT (org_id, month, category, country) DO UPDATE SET
        production_kg = m.production_kg + EXCLUDED.production_kg,
        transport_kg = m.transport_kg + EXCLUDED.transport_kg,
        use_phase_kg = m.use_phase_kg + EXCLUDED.use_phase_kg,
        end_of_life_kg = m.end_of_life_kg + EXCLUDED.end_of_life_kg,
        total_kg_co2e = m.total_kg_co2e + EXCLUDED.total_kg_co2e,
        asset_count = m.asset_count + EXCLUDED.asset_count,
        -- (m.* is the row before this update in every expression.)
        adpe_production_kg_sb_eq = CASE WHEN m.impacts_asset_count + EXCLUDED.impacts_asset_count <> 0
          THEN COALESCE(m.adpe_production_kg_sb_eq, 0) + COALESCE(EXCLUDED.adpe_production_kg_sb_eq, 0) END,
        adpe_transport_kg_sb_eq = CASE WHEN m.impacts_asset_count + EXCLUDED.impacts_asset_count <> 0
          THEN COALESCE(m.adpe_transport_kg_sb_eq, 0) + COALESCE(EXCLUDED.adpe_transport_kg_sb_eq, 0) END,
        adpe_use_phase_kg_sb_eq = CASE WHEN m.impacts_asset_count + EXCLUDED.impacts_asset_count <> 0
          THEN COALESCE(m.adpe_use_phase_kg_sb_eq, 0) + COALESCE(EXCLUDED.adpe_use_phase_kg_sb_eq, 0) END,
        adpe_end_of_life_kg_sb_eq = CASE WHEN m.impacts_asset_count + EXCLUDED.impacts_asset_count <> 0
          THEN COALESCE(m.adpe_end_of_life_kg_sb_eq, 0) + COALESCE(EXCLUDED.adpe_end_of_life_kg_sb_eq, 0) END,
        adpe_kg_sb_eq = CASE WHEN m.impacts_asset_count + EXCLUDED.impacts_asset_count <> 0
          THEN COALESCE(m.adpe_kg_sb_eq, 0) + COALESCE(EXCLUDED.adpe_kg_sb_eq, 0) END,
        pe_production_mj = CASE WHEN m.impacts_asset_count + EXCLUDED.impacts_asset_count <> 0
          THEN COALESCE(m.pe_production_mj, 0) + COALESCE(EXCLUDED.pe_production_mj, 0) END,
        pe_transport_mj = CASE WHEN m.impacts_asset_count + EXCLUDED.impacts_asset_count <> 0
          THEN COALESCE(m.pe_transport_mj, 0) + COALESCE(EXCLUDED.pe_transport_mj, 0) END,
        pe_use_phase_mj = CASE WHEN m.impacts_asset_count + EXCLUDED.impacts_asset_count <> 0
          THEN COALESCE(m.pe_use_phase_mj, 0) + COALESCE(EXCLUDED.pe_use_phase_mj, 0) END,
        pe_end_of_life_mj = CASE WHEN m.impacts_asset_count + EXCLUDED.impacts_asset_count <> 0
          THEN COALESCE(m.pe_end_of_life_mj, 0) + COALESCE(EXCLUDED.pe_end_of_life_mj, 0) END,
        pe_mj = CASE WHEN m.impacts_asset_count + EXCLUDED.impacts_asset_count <> 0
          THEN COALESCE(m.pe_mj, 0) + COALESCE(EXCLUDED.pe_mj, 0) END,
        impacts_asset_count = m.impacts_asset_count + EXCLUDED.impacts_asset_count,
        updated_at = now()
      RETURNING m.id, m.asset_count
    )
    SELECT array_agg(id) FILTER (WHERE asset_count = 0) FROM applied
  $sql$, CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT 1 AS sign, * FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT -1 AS sign, * FROM old_rows'
    ELSE 'SELECT -1 AS sign, * FROM old_rows UNION ALL SELECT 1, * FROM new_rows'
  END) INTO emptied;
  IF emptied IS NOT NULL THEN
    DELETE FROM monthly_emissions WHERE id = ANY (emptied);
  END IF;
  RETURN NULL;
END;
$$;

-- Backfill, in the order the figures flow. 1. The calculations stored before this migration: writing the result
-- again runs the trigger above (the value is the same; no asset trigger fires).
UPDATE calculations SET result = result WHERE result ? 'impacts';

-- 2. The rollup rows that exist keep their ids: each takes the ADPe and PE of its group's assets, rounded as the
-- trigger rounds them.
UPDATE monthly_emissions m SET adpe_production_kg_sb_eq = g.adpe_production_kg_sb_eq, adpe_transport_kg_sb_eq = g.adpe_transport_kg_sb_eq,
  adpe_use_phase_kg_sb_eq = g.adpe_use_phase_kg_sb_eq, adpe_end_of_life_kg_sb_eq = g.adpe_end_of_life_kg_sb_eq,
  adpe_kg_sb_eq = g.adpe_kg_sb_eq, pe_production_mj = g.pe_production_mj, pe_transport_mj = g.pe_transport_mj,
  pe_use_phase_mj = g.pe_use_phase_mj, pe_end_of_life_mj = g.pe_end_of_life_mj, pe_mj = g.pe_mj,
  impacts_asset_count = g.impacts_asset_count
FROM (
  SELECT a.org_id, date_trunc('month', COALESCE(a.purchase_date, (a.created_at AT TIME ZONE 'UTC')::date))::date AS month,
    a.category, a.country,
    sum(round(c.adpe_production_kg_sb_eq::numeric, 15)) AS adpe_production_kg_sb_eq,
    sum(round(c.adpe_transport_kg_sb_eq::numeric, 15)) AS adpe_transport_kg_sb_eq,
    sum(round(c.adpe_use_phase_kg_sb_eq::numeric, 15)) AS adpe_use_phase_kg_sb_eq,
    sum(round(c.adpe_end_of_life_kg_sb_eq::numeric, 15)) AS adpe_end_of_life_kg_sb_eq,
    sum(round(c.adpe_kg_sb_eq::numeric, 15)) AS adpe_kg_sb_eq,
    sum(round(c.pe_production_mj::numeric, 9)) AS pe_production_mj,
    sum(round(c.pe_transport_mj::numeric, 9)) AS pe_transport_mj,
    sum(round(c.pe_use_phase_mj::numeric, 9)) AS pe_use_phase_mj,
    sum(round(c.pe_end_of_life_mj::numeric, 9)) AS pe_end_of_life_mj,
    sum(round(c.pe_mj::numeric, 9)) AS pe_mj,
    count(c.adpe_kg_sb_eq)::int AS impacts_asset_count
  FROM assets a JOIN calculations c ON c.id = a.active_calculation_id
  GROUP BY 1, 2, 3, 4
) g
WHERE m.org_id = g.org_id AND m.month = g.month AND m.category = g.category AND m.country = g.country;
