/**
 * The period inventory in one grouped SQL statement (docs/inventory.md has every rule and its GHG
 * Protocol reference). The work grows with the number of distinct (country, category, dates) groups of
 * assets and with the days on which a factor or an instrument changes, not with the number of assets:
 *
 * 1. `held`: each calculated asset once, with the figures of its calculation as of the end of the period
 *    (restate: its active calculation; `history` looks up the few recalculated since) and the days it was
 *    held: from its purchase date (undated: the day it was recorded) to the day it was resold, recycled or
 *    disposed of (the last such status change; without one, the day it was recorded). The only pass over
 *    the assets, and a parallel one where the server allows (`period` is NOT MATERIALIZED: a CTE scan
 *    would keep the plan to one process).
 * 2. `grouped`: assets with the same country, category, clipped dates and lifetime become one group,
 *    their figures summed (with the ~80 % bounds of each, value / (1 + u) and value x (1 + u)).
 * 3. `segments`: the period cut, per country, into runs of days with one month, one grid vintage, one
 *    residual-mix vintage and one set of contractual instruments; each run with its location-based and
 *    market-based factor.
 * 4. `facts`: each group's electricity over the segments it was held in (Scope 2), its embodied
 *    emissions at acquisition or spread linearly over its lifetime, its end of life at disposal.
 * 5. The answer: the facts summed once to the month x phase x country x category detail, then by GROUPING
 *    SETS to the total, phase, month, country and category rows. Assets are counted once per row without
 *    keeping groups apart: each fact carries its group's count in the columns of the rows it is the
 *    group's first fact of (its cell, its phase, its month, the group itself).
 *
 * $1 organisation, $2 first day, $3 last day (inclusive), $4 restate, $5 method ('acquisition' | 'linear').
 */
export const PERIOD_INVENTORY_SQL = `
WITH period AS NOT MATERIALIZED (
  SELECT $2::date AS first_day, $3::date + 1 AS end_day,
    (($3::date + 1)::timestamp AT TIME ZONE 'UTC') AS closed_at, $4::boolean AS restate, $5::text = 'linear' AS linear
),
retired AS (
  SELECT e.asset_id, max(e.created_at) AS at FROM asset_events e
  WHERE e.org_id = $1::uuid AND e.event = 'asset.status_changed' AND e.to_value IN ('resold', 'recycled', 'disposed')
  GROUP BY e.asset_id
),
-- Assets recalculated after the period (rare): the figures of their latest calculation made by its end, if any.
history AS (
  SELECT DISTINCT ON (c.asset_id) c.asset_id, c.production_kg, c.transport_kg, c.end_of_life_kg,
    CASE WHEN jsonb_typeof(c.result -> 'methodology' -> 'annual_kwh') = 'number' THEN (c.result -> 'methodology' ->> 'annual_kwh')::float8 END AS annual_kwh,
    CASE WHEN jsonb_typeof(c.result -> 'methodology' -> 'lifetime_years') = 'number' THEN (c.result -> 'methodology' ->> 'lifetime_years')::float8 END AS lifetime_years,
    CASE WHEN jsonb_typeof(c.result -> 'methodology' -> 'uncertainty_pct') = 'number' THEN (c.result -> 'methodology' ->> 'uncertainty_pct')::float8 END AS uncertainty_pct
  FROM assets a CROSS JOIN period p
  JOIN calculations c ON c.asset_id = a.id AND c.org_id = $1::uuid AND c.kind = 'footprint' AND c.created_at < p.closed_at
  WHERE a.org_id = $1::uuid AND NOT p.restate AND a.calculated_at >= p.closed_at
  ORDER BY c.asset_id, c.created_at DESC
),
dated AS (
  SELECT a.country, a.category,
    COALESCE(h.production_kg, a.production_kg) AS production_kg, COALESCE(h.transport_kg, a.transport_kg) AS transport_kg,
    COALESCE(h.end_of_life_kg, a.end_of_life_kg) AS end_of_life_kg, COALESCE(h.annual_kwh, a.annual_kwh) AS annual_kwh,
    COALESCE(h.lifetime_years, a.lifetime_years) AS lifetime_years, COALESCE(h.uncertainty_pct, a.uncertainty_pct) AS uncertainty_pct,
    COALESCE(a.purchase_date, (a.created_at AT TIME ZONE 'UTC')::date) AS start_day,
    CASE WHEN a.status IN ('resold', 'recycled', 'disposed') THEN (COALESCE(r.at, a.created_at) AT TIME ZONE 'UTC')::date END AS retired_day,
    (a.purchase_date IS NULL)::int AS undated,
    (a.status IN ('resold', 'recycled', 'disposed') AND r.at IS NULL)::int AS status_undated
  FROM assets a LEFT JOIN retired r ON r.asset_id = a.id LEFT JOIN history h ON h.asset_id = a.id
  WHERE a.org_id = $1::uuid AND a.annual_kwh IS NOT NULL AND a.lifetime_years > 0 AND a.end_of_life_kg IS NOT NULL
),
held AS (
  SELECT d.*, least(coalesce(d.retired_day, p.end_day), p.end_day) AS held_until
  FROM dated d CROSS JOIN period p
  WHERE d.start_day < p.end_day AND (d.retired_day IS NULL OR d.retired_day >= p.first_day)
),
grouped AS (
  SELECT h.country, h.category,
    greatest(h.start_day, p.first_day) AS use_from, h.held_until AS use_to,
    CASE WHEN h.start_day >= p.first_day THEN h.start_day END AS acquired_day,
    CASE WHEN h.retired_day < p.end_day THEN h.retired_day END AS retired_day,
    -- linear: the days of the lifetime inside the period and before disposal
    CASE WHEN p.linear THEN greatest(h.start_day, p.first_day) END AS spread_from,
    CASE WHEN p.linear THEN least(h.start_day + floor(h.lifetime_years * 365.25 + 0.5)::int, h.held_until) END AS spread_to,
    count(*)::int AS n, sum(h.undated)::int AS undated, sum(h.status_undated)::int AS status_undated,
    sum(h.annual_kwh) AS kwh, sum(h.annual_kwh / (1 + COALESCE(h.uncertainty_pct, 0) / 100)) AS kwh_low,
    sum(h.annual_kwh * (1 + COALESCE(h.uncertainty_pct, 0) / 100)) AS kwh_high,
    sum(h.production_kg) AS production, sum(h.production_kg / (1 + COALESCE(h.uncertainty_pct, 0) / 100)) AS production_low,
    sum(h.production_kg * (1 + COALESCE(h.uncertainty_pct, 0) / 100)) AS production_high,
    sum(h.transport_kg) AS transport, sum(h.transport_kg / (1 + COALESCE(h.uncertainty_pct, 0) / 100)) AS transport_low,
    sum(h.transport_kg * (1 + COALESCE(h.uncertainty_pct, 0) / 100)) AS transport_high,
    sum(h.end_of_life_kg) AS end_of_life, sum(h.end_of_life_kg / (1 + COALESCE(h.uncertainty_pct, 0) / 100)) AS end_of_life_low,
    sum(h.end_of_life_kg * (1 + COALESCE(h.uncertainty_pct, 0) / 100)) AS end_of_life_high,
    -- linear only (acquisition sums none of it): the share of the lifetime not yet spread when the asset leaves,
    -- recognised on that day
    sum(CASE WHEN p.linear AND h.retired_day < p.end_day
      THEN least(1, greatest(0, 1 - (h.retired_day - h.start_day) / floor(h.lifetime_years * 365.25 + 0.5))) * h.production_kg END) AS production_remaining,
    sum(CASE WHEN p.linear AND h.retired_day < p.end_day
      THEN least(1, greatest(0, 1 - (h.retired_day - h.start_day) / floor(h.lifetime_years * 365.25 + 0.5))) * h.transport_kg END) AS transport_remaining,
    sum(h.production_kg / floor(h.lifetime_years * 365.25 + 0.5)) FILTER (WHERE p.linear) AS production_per_day,
    sum(h.transport_kg / floor(h.lifetime_years * 365.25 + 0.5)) FILTER (WHERE p.linear) AS transport_per_day,
    -- the bounds of spread and remaining embodied: the asset's factor applied to its share
    sum(h.production_kg / floor(h.lifetime_years * 365.25 + 0.5) / (1 + COALESCE(h.uncertainty_pct, 0) / 100)) FILTER (WHERE p.linear) AS production_per_day_low,
    sum(h.production_kg / floor(h.lifetime_years * 365.25 + 0.5) * (1 + COALESCE(h.uncertainty_pct, 0) / 100)) FILTER (WHERE p.linear) AS production_per_day_high,
    sum(h.transport_kg / floor(h.lifetime_years * 365.25 + 0.5) / (1 + COALESCE(h.uncertainty_pct, 0) / 100)) FILTER (WHERE p.linear) AS transport_per_day_low,
    sum(h.transport_kg / floor(h.lifetime_years * 365.25 + 0.5) * (1 + COALESCE(h.uncertainty_pct, 0) / 100)) FILTER (WHERE p.linear) AS transport_per_day_high
  FROM held h, period p
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
),
countries AS (SELECT DISTINCT country FROM grouped),
bounds AS (
  SELECT DISTINCT c.country, b.day FROM countries c CROSS JOIN period p CROSS JOIN LATERAL (
    SELECT p.first_day AS day
    UNION ALL SELECT m::date FROM generate_series(date_trunc('month', p.first_day::timestamp) + interval '1 month', (p.end_day - 1)::timestamp, interval '1 month') m
    UNION ALL SELECT f.valid_from FROM emission_factors f
      WHERE NOT p.restate AND f.type IN ('GRID', 'RESIDUAL_MIX') AND f.region_code = c.country
    UNION ALL SELECT f.valid_to + 1 FROM emission_factors f
      WHERE NOT p.restate AND f.type IN ('GRID', 'RESIDUAL_MIX') AND f.region_code = c.country AND f.valid_to IS NOT NULL
    UNION ALL SELECT i.valid_from FROM contractual_instruments i WHERE i.org_id = $1::uuid AND i.country = c.country
    UNION ALL SELECT i.valid_to + 1 FROM contractual_instruments i WHERE i.org_id = $1::uuid AND i.country = c.country
  ) b
  WHERE b.day >= p.first_day AND b.day < p.end_day
),
segments AS (
  SELECT b.country, b.day AS seg_from, COALESCE(lead(b.day) OVER (PARTITION BY b.country ORDER BY b.day), p.end_day) AS seg_to
  FROM bounds b CROSS JOIN period p
),
factored AS MATERIALIZED (
  SELECT s.*, date_trunc('month', s.seg_from::timestamp)::date AS month, v.location_factor, v.residual_factor, v.supplier_factor,
    COALESCE(v.certificate_share, 0) AS certificate_share
  FROM segments s CROSS JOIN period p CROSS JOIN LATERAL (
    -- The vintage in force on the segment's days (vintageAt in src/factors/lookup.ts); restate: the newest.
    SELECT
      (SELECT f.value FROM emission_factors f WHERE f.type = 'GRID' AND f.region_code = s.country
        ORDER BY CASE WHEN p.restate THEN f.valid_from END DESC NULLS LAST, (f.valid_from <= s.seg_from) DESC,
          (f.valid_to IS NULL OR f.valid_to >= s.seg_from) DESC, CASE WHEN f.valid_from <= s.seg_from THEN f.valid_from END DESC NULLS LAST,
          f.valid_from LIMIT 1) AS location_factor,
      (SELECT f.value FROM emission_factors f WHERE f.type = 'RESIDUAL_MIX' AND f.region_code = s.country
        ORDER BY CASE WHEN p.restate THEN f.valid_from END DESC NULLS LAST, (f.valid_from <= s.seg_from) DESC,
          (f.valid_to IS NULL OR f.valid_to >= s.seg_from) DESC, CASE WHEN f.valid_from <= s.seg_from THEN f.valid_from END DESC NULLS LAST,
          f.valid_from LIMIT 1) AS residual_factor,
      (SELECT i.emission_factor_kg_per_kwh FROM contractual_instruments i
        WHERE i.org_id = $1::uuid AND i.country = s.country AND i.kind = 'supplier_specific'
          AND i.valid_from <= s.seg_from AND i.valid_to >= s.seg_from AND i.emission_factor_kg_per_kwh IS NOT NULL
        ORDER BY i.valid_from DESC, i.created_at DESC, i.id LIMIT 1) AS supplier_factor,
      (SELECT least(1, COALESCE(sum(i.coverage_share), 0)) FROM contractual_instruments i
        WHERE i.org_id = $1::uuid AND i.country = s.country AND i.kind = 'energy_attribute_certificate'
          AND i.valid_from <= s.seg_from AND i.valid_to >= s.seg_from AND i.coverage_share > 0) AS certificate_share
  ) v
),
use_kwh AS (
  SELECT g.n, g.undated, g.status_undated, f.month, g.country, g.category, f.location_factor,
    COALESCE(f.supplier_factor, f.residual_factor, f.location_factor) AS market_base,
    CASE WHEN f.supplier_factor IS NOT NULL THEN 'supplier_specific' WHEN f.residual_factor IS NOT NULL THEN 'residual_mix'
      ELSE 'location_based' END AS market_basis,
    f.certificate_share,
    (least(g.use_to, f.seg_to) - greatest(g.use_from, f.seg_from)) / 365.25::float8 AS years,
    g.kwh, g.kwh_low, g.kwh_high,
    -- segments never span months: the group's first segment of a month holds its first day of use in that month
    (f.seg_from <= greatest(g.use_from, f.month))::int AS cell_first, (f.seg_from <= g.use_from)::int AS phase_first
  FROM grouped g JOIN factored f ON f.country = g.country AND g.use_to > g.use_from AND f.seg_from < g.use_to AND f.seg_to > g.use_from
),
-- Each fact says which of the answer's rows its group's assets are counted in, so that they are counted once per
-- row without keeping each group apart: cell_n in its month x phase cell (a group's segments of one month are one
-- cell), phase_n in its phase (its first cell of the phase), month_n in its month (use first; the other phases
-- where the group has no use that month) and group_n in the total, its country and its category (its first use,
-- else its end of life, which every group without use has).
facts AS (
  SELECT month, country, category, 'use' AS phase,
    kwh * years AS kwh, kwh * years * location_factor AS kg, kwh_low * years * location_factor AS kg_low,
    kwh_high * years * location_factor AS kg_high,
    kwh * years * (1 - certificate_share) * market_base AS market_kg, kwh_low * years * (1 - certificate_share) * market_base AS market_kg_low,
    kwh_high * years * (1 - certificate_share) * market_base AS market_kg_high,
    kwh * years * certificate_share AS kwh_certificates,
    CASE WHEN market_basis = 'supplier_specific' THEN kwh * years * (1 - certificate_share) END AS kwh_supplier_specific,
    CASE WHEN market_basis = 'residual_mix' THEN kwh * years * (1 - certificate_share) END AS kwh_residual_mix,
    CASE WHEN market_basis = 'location_based' THEN kwh * years * (1 - certificate_share) END AS kwh_location_based,
    n * cell_first AS cell_n, n * phase_first AS phase_n, n * cell_first AS month_n, n * phase_first AS group_n,
    undated * phase_first AS undated, status_undated * phase_first AS status_undated
  FROM use_kwh
  UNION ALL
  -- acquisition: in the month of acquisition, which the group's use covers when it has any (use_from is that day)
  SELECT date_trunc('month', g.acquired_day::timestamp)::date, g.country, g.category, e.phase,
    NULL, e.kg, e.kg_low, e.kg_high, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    g.n, g.n, CASE WHEN e.phase = 'production' AND g.use_to <= g.use_from THEN g.n ELSE 0 END, 0, 0, 0
  FROM grouped g CROSS JOIN period p CROSS JOIN LATERAL (VALUES
    ('production', g.production, g.production_low, g.production_high),
    ('transport', g.transport, g.transport_low, g.transport_high)) e(phase, kg, kg_low, kg_high)
  WHERE NOT p.linear AND g.acquired_day IS NOT NULL
  UNION ALL
  -- linear: a month of the spread lies within the group's use
  SELECT m.month, g.country, g.category, e.phase,
    NULL, e.per_day * m.days, e.per_day_low * m.days, e.per_day_high * m.days, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    g.n, CASE WHEN m.month <= g.spread_from THEN g.n ELSE 0 END, 0, 0, 0, 0
  FROM grouped g CROSS JOIN period p
  CROSS JOIN LATERAL (
    SELECT d::date AS month, least(g.spread_to, (d + interval '1 month')::date) - greatest(g.spread_from, d::date) AS days
    FROM generate_series(date_trunc('month', g.spread_from::timestamp), (g.spread_to - 1)::timestamp, interval '1 month') d
  ) m
  CROSS JOIN LATERAL (VALUES
    ('production', g.production_per_day, g.production_per_day_low, g.production_per_day_high),
    ('transport', g.transport_per_day, g.transport_per_day_low, g.transport_per_day_high)) e(phase, per_day, per_day_low, per_day_high)
  WHERE p.linear AND g.spread_to > g.spread_from AND m.days > 0
  UNION ALL
  -- linear, the rest recognised on the day the asset leaves: a cell and a phase of its own only without a spread
  -- there; its month is the end of life's
  SELECT date_trunc('month', g.retired_day::timestamp)::date, g.country, g.category, e.phase,
    NULL, e.kg, e.kg * e.low_share, e.kg * e.high_share, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    CASE WHEN g.spread_to > g.spread_from AND g.spread_to > date_trunc('month', g.retired_day::timestamp)::date THEN 0 ELSE g.n END,
    CASE WHEN g.spread_to > g.spread_from THEN 0 ELSE g.n END, 0, 0, 0, 0
  FROM grouped g CROSS JOIN period p CROSS JOIN LATERAL (VALUES
    ('production', g.production_remaining, g.production_low / nullif(g.production, 0), g.production_high / nullif(g.production, 0)),
    ('transport', g.transport_remaining, g.transport_low / nullif(g.transport, 0), g.transport_high / nullif(g.transport, 0))
  ) e(phase, kg, low_share, high_share)
  WHERE p.linear AND g.retired_day IS NOT NULL AND e.kg > 0
  UNION ALL
  -- end of life, on the day the asset leaves (use_to): its month is covered by use when the group has use on a day of it
  SELECT r.month, g.country, g.category, 'end_of_life',
    NULL, g.end_of_life, g.end_of_life_low, g.end_of_life_high, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    g.n, g.n,
    CASE WHEN g.use_to > g.use_from AND g.use_to > r.month THEN 0
      WHEN NOT p.linear AND date_trunc('month', g.acquired_day::timestamp)::date = r.month THEN 0 ELSE g.n END,
    CASE WHEN g.use_to <= g.use_from THEN g.n ELSE 0 END,
    CASE WHEN g.use_to <= g.use_from THEN g.undated ELSE 0 END, CASE WHEN g.use_to <= g.use_from THEN g.status_undated ELSE 0 END
  FROM grouped g CROSS JOIN period p CROSS JOIN LATERAL (SELECT date_trunc('month', g.retired_day::timestamp)::date AS month) r
  WHERE g.retired_day IS NOT NULL
),
-- The facts summed once to the finest row of the answer (month x phase x country x category), then to the coarser
-- rows (GROUPING(phase, month, country, category): INVENTORY_SETS), each counting its assets with its own count.
detail AS (
  SELECT phase, month, country, category,
    sum(kwh) AS kwh, sum(kg) AS kg, sum(kg_low) AS kg_low, sum(kg_high) AS kg_high,
    sum(COALESCE(market_kg, kg)) AS market_kg, sum(COALESCE(market_kg_low, kg_low)) AS market_kg_low,
    sum(COALESCE(market_kg_high, kg_high)) AS market_kg_high,
    sum(kwh_certificates) AS kwh_certificates, sum(kwh_supplier_specific) AS kwh_supplier_specific,
    sum(kwh_residual_mix) AS kwh_residual_mix, sum(kwh_location_based) AS kwh_location_based,
    sum(cell_n) AS cell_n, sum(phase_n) AS phase_n, sum(month_n) AS month_n, sum(group_n) AS group_n,
    sum(undated) AS undated, sum(status_undated) AS status_undated
  FROM facts GROUP BY phase, month, country, category
),
-- Assets whose use falls on days without a grid factor for their country (reported in the total's data quality).
lacking AS (
  SELECT COALESCE(sum(g.n), 0) AS n FROM grouped g
  WHERE EXISTS (SELECT 1 FROM factored f WHERE f.country = g.country AND f.location_factor IS NULL
    AND f.seg_from < g.use_to AND f.seg_to > g.use_from)
),
answer AS (
  SELECT GROUPING(phase, month, country, category) AS set_id, phase, month, country, category,
    sum(kwh) AS kwh, sum(kg) AS kg, sum(kg_low) AS kg_low, sum(kg_high) AS kg_high,
    sum(market_kg) AS market_kg, sum(market_kg_low) AS market_kg_low, sum(market_kg_high) AS market_kg_high,
    sum(kwh_certificates) AS kwh_certificates, sum(kwh_supplier_specific) AS kwh_supplier_specific,
    sum(kwh_residual_mix) AS kwh_residual_mix, sum(kwh_location_based) AS kwh_location_based,
    sum(cell_n) AS cell_n, sum(phase_n) AS phase_n, sum(month_n) AS month_n, sum(group_n) AS group_n,
    sum(undated) AS undated, sum(status_undated) AS status_undated
  FROM detail GROUP BY GROUPING SETS ((), (phase), (month), (country), (category), (phase, month, country, category))
)
SELECT a.set_id, a.phase, to_char(a.month, 'YYYY-MM') AS month, a.country, a.category,
  (CASE a.set_id WHEN 0 THEN a.cell_n WHEN 7 THEN a.phase_n WHEN 11 THEN a.month_n ELSE a.group_n END)::int AS assets,
  -- the data-quality counts are the total's (0 in the other rows)
  (CASE WHEN a.set_id = 15 THEN a.undated ELSE 0 END)::int AS undated,
  (CASE WHEN a.set_id = 15 THEN a.status_undated ELSE 0 END)::int AS status_undated,
  (CASE WHEN a.set_id = 15 THEN l.n ELSE 0 END)::int AS without_factor,
  a.kwh::float8 AS kwh, COALESCE(a.kg, 0)::float8 AS kg, COALESCE(a.kg_low, 0)::float8 AS kg_low,
  COALESCE(a.kg_high, 0)::float8 AS kg_high,
  COALESCE(a.market_kg, 0)::float8 AS market_kg, COALESCE(a.market_kg_low, 0)::float8 AS market_kg_low,
  COALESCE(a.market_kg_high, 0)::float8 AS market_kg_high,
  a.kwh_certificates::float8 AS kwh_certificates, a.kwh_supplier_specific::float8 AS kwh_supplier_specific,
  a.kwh_residual_mix::float8 AS kwh_residual_mix, a.kwh_location_based::float8 AS kwh_location_based
FROM answer a CROSS JOIN lacking l`;

/** The sets of PERIOD_INVENTORY_SQL's answer, by GROUPING(phase, month, country, category): a 1 bit for each column summed over. */
export const INVENTORY_SETS = { detail: 0, phase: 7, month: 11, country: 13, category: 14, total: 15 } as const;

/**
 * One row of PERIOD_INVENTORY_SQL: kg are location-based; market_kg the same figures with Scope 2 market-based;
 * undated, status_undated and without_factor are counted in the total row only.
 */
export interface InventorySqlRow {
  set_id: number;
  phase: InventoryPhase | null;
  month: string | null;
  country: string | null;
  category: string | null;
  assets: number;
  undated: number;
  status_undated: number;
  without_factor: number;
  kwh: number | null;
  kg: number;
  kg_low: number;
  kg_high: number;
  market_kg: number;
  market_kg_low: number;
  market_kg_high: number;
  kwh_certificates: number | null;
  kwh_supplier_specific: number | null;
  kwh_residual_mix: number | null;
  kwh_location_based: number | null;
}

export type InventoryPhase = 'use' | 'production' | 'transport' | 'end_of_life';

/**
 * Reuse and refurbishment in the period, beside the inventory: the assets whose status changed to resold or
 * refurbished within it, with the production and transport of the new device each one stands in for.
 * $1 organisation, $2 first day, $3 last day (inclusive).
 */
export const AVOIDED_SQL = `
WITH changed AS (
  SELECT DISTINCT e.asset_id, e.to_value FROM asset_events e
  WHERE e.org_id = $1::uuid AND e.event = 'asset.status_changed' AND e.to_value IN ('resold', 'refurbished')
    AND e.created_at >= ($2::date)::timestamp AT TIME ZONE 'UTC' AND e.created_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'
)
SELECT ch.to_value AS status, count(*)::int AS assets, COALESCE(sum(a.production_kg + a.transport_kg), 0)::float8 AS kg
FROM changed ch JOIN assets a ON a.id = ch.asset_id AND a.org_id = $1::uuid
WHERE a.production_kg IS NOT NULL AND a.transport_kg IS NOT NULL
GROUP BY ch.to_value`;

/** The organisation's assets, and those the inventory cannot count (no calculation with the figures it needs). $1 organisation. */
export const COVERAGE_SQL = `
SELECT count(*)::int AS assets,
  (count(*) FILTER (WHERE annual_kwh IS NULL OR NOT lifetime_years > 0 OR end_of_life_kg IS NULL))::int AS uncalculated
FROM assets WHERE org_id = $1::uuid`;
