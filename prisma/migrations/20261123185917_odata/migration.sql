-- The monthly rollup is rebuilt from the assets at the end of this migration (its old rows had no phases).
DELETE FROM "monthly_emissions";

-- AlterTable
ALTER TABLE "monthly_emissions" DROP COLUMN "kg_co2e",
ADD COLUMN     "end_of_life_kg" DECIMAL(20,6) NOT NULL,
ADD COLUMN     "production_kg" DECIMAL(20,6) NOT NULL,
ADD COLUMN     "total_kg_co2e" DECIMAL(20,6) NOT NULL,
ADD COLUMN     "transport_kg" DECIMAL(20,6) NOT NULL,
ADD COLUMN     "use_phase_kg" DECIMAL(20,6) NOT NULL,
ALTER COLUMN "id" SET DEFAULT gen_random_uuid();

-- CreateIndex
CREATE INDEX "assets_org_id_id_idx" ON "assets"("org_id", "id");

-- CreateIndex
CREATE INDEX "assets_org_id_brand_idx" ON "assets"("org_id", "brand");

-- CreateIndex
CREATE INDEX "assets_org_id_total_kg_co2e_idx" ON "assets"("org_id", "total_kg_co2e");

-- CreateIndex
CREATE INDEX "assets_org_id_category_total_kg_co2e_idx" ON "assets"("org_id", "category", "total_kg_co2e");

-- CreateIndex
CREATE INDEX "assets_org_id_updated_at_idx" ON "assets"("org_id", "updated_at");

-- CreateIndex
CREATE INDEX "monthly_emissions_org_id_updated_at_idx" ON "monthly_emissions"("org_id", "updated_at");

-- MonthlyEmissions (docs/odata.md): kept current by the database on every write to assets, whichever
-- code path writes them (imports, seeding, sandboxes, status changes), in the same transaction.
-- A statement-level trigger sees the rows before (old_rows) and after (new_rows) the statement: each
-- old row takes its active calculation's figures out of its group, each new row adds them to its
-- group. Calculations never change once stored, so taking out always cancels an earlier adding; the
-- figures are rounded to 6 decimals before they are added, so that cancelling is exact in numeric.
-- A group is (organisation, month, category, country); the month is the purchase month, or the month
-- the asset was recorded (UTC) when it has no purchase date.
-- The changed rows are few next to the calculations: each is looked up by its key (a hash join would read
-- the whole calculations table, whose rows carry the full inputs and results).
CREATE FUNCTION monthly_emissions_apply() RETURNS trigger LANGUAGE plpgsql
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
        sum(ch.sign)::int AS asset_count
      FROM changed ch JOIN calculations c ON c.id = ch.active_calculation_id
      GROUP BY 1, 2, 3, 4
    ),
    applied AS (
      INSERT INTO monthly_emissions AS m (id, org_id, month, category, country, production_kg, transport_kg, use_phase_kg,
        end_of_life_kg, total_kg_co2e, asset_count, updated_at)
      SELECT gen_random_uuid(), d.org_id, d.month, d.category, d.country, d.production_kg, d.transport_kg, d.use_phase_kg,
        d.end_of_life_kg, d.total_kg_co2e, d.asset_count, now()
      FROM delta d
      -- Statements that change nothing the rollup shows (a status change) leave it alone; an organisation
      -- being deleted takes its rollup with it.
      WHERE (d.asset_count <> 0 OR d.production_kg <> 0 OR d.transport_kg <> 0 OR d.use_phase_kg <> 0
          OR d.end_of_life_kg <> 0 OR d.total_kg_co2e <> 0)
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

-- Transition tables allow one event per trigger.
CREATE TRIGGER monthly_emissions_after_insert AFTER INSERT ON assets
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION monthly_emissions_apply();
CREATE TRIGGER monthly_emissions_after_update AFTER UPDATE ON assets
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION monthly_emissions_apply();
CREATE TRIGGER monthly_emissions_after_delete AFTER DELETE ON assets
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION monthly_emissions_apply();

-- The rollup of the assets that exist already.
INSERT INTO monthly_emissions (id, org_id, month, category, country, production_kg, transport_kg, use_phase_kg, end_of_life_kg,
  total_kg_co2e, asset_count, updated_at)
SELECT gen_random_uuid(), a.org_id, date_trunc('month', COALESCE(a.purchase_date, (a.created_at AT TIME ZONE 'UTC')::date))::date,
  a.category, a.country, sum(round(c.production_kg::numeric, 6)), sum(round(c.transport_kg::numeric, 6)),
  sum(round(c.use_phase_kg::numeric, 6)), sum(round(c.end_of_life_kg::numeric, 6)), sum(round(c.total_kg_co2e::numeric, 6)),
  count(*)::int, now()
FROM assets a JOIN calculations c ON c.id = a.active_calculation_id
GROUP BY 2, 3, 4, 5;
