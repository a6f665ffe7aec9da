/**
 * The data of a sustainability or hotspot report (ReportView, rendered by src/documents). Period
 * semantics: periodSemantics below, written on every report and in docs/reports.md.
 *
 * The database does the counting: the inventory is grouped in SQL by device, country and status, so
 * the work here grows with the number of distinct devices and countries (a few thousand at most), not
 * with the number of assets. Inventory figures are the stored active calculations; savings and action
 * estimates run the engine once per device and country with today's grid factors.
 */
import type { PrismaClient } from '../db/database.ts';
import type { ReferenceStore } from '../reference/store.ts';
import type {
  CriterionPhaseTotals,
  LifecyclePhases,
  ReportAction,
  ReportBreakdownRow,
  ReportConfidenceRow,
  ReportCriterion,
  ReportInterval,
  ReportRankRow,
  ReportUncertainty,
  ReportView,
} from '../documents/views.ts';
import { INTERVAL_METHOD, uncertaintyInterval } from '../footprint/engine/interval.ts';
import {
  CRITERION_UNIT,
  ENGINE_VERSION,
  calculateRefurbishment,
  calculateSavings,
  getCategory,
  type FootprintResult,
} from '../footprint/engine/index.ts';
import type { CriteriaResult, Criterion, ResourceCriterion } from '../footprint/engine/types.ts';
import { CONFIDENCE_LEVELS, OLD_DEVICE_ENERGY_PENALTY } from '../footprint/engine/constants.ts';
import { round1, round2 } from '../footprint/engine/footprint.ts';
import { criterionRounding } from '../footprint/engine/impacts.ts';
import { footprintModelOf } from '../footprint/service.ts';
import { resolveDevice, type ResolvedDevice } from '../footprint/device.ts';
import { deviceQuery } from '../assets/import.ts';
import type { AssetSpecs } from '../assets/import-rows.ts';
import { matchOf, PRODUCT_SELECT, type ProductRow } from '../scenarios/simulate.ts';
import { DEFAULT_GRADE } from '../scenarios/refurbish.ts';
import type { ReportRequest } from './request.ts';
import { BUCKET_SQL, bucketsOf, granularityOf, type TrendGranularity } from './trend.ts';
import { periodInventory, type PeriodInventory } from '../inventory/inventory.ts';

/** Further years of use behind the summary's reuse and refurbishment savings: the API's default remaining_years. */
export const SAVINGS_REMAINING_YEARS = 2;
/** Hotspot actions are priced over one more year of use. */
export const ACTION_YEARS = 1;
/** Categories that get actions, and the length of the ranked lists. */
export const ACTION_CATEGORIES = 3;
export const TOP_ROWS = 10;

const PENALTY_PCT = Math.round(OLD_DEVICE_ENERGY_PENALTY * 100);

/** Statuses of assets the organisation still holds and uses or could use: the ones an action can apply to. */
const IN_SERVICE = new Set(['in_use', 'in_stock', 'in_repair']);

export function periodSemantics({ dateFrom, dateTo }: Pick<ReportRequest, 'dateFrom' | 'dateTo'>): string {
  return (
    `Inventory as of ${dateTo}: assets bought by then (or undated), less those recycled, disposed of or resold before ${dateFrom}, ` +
    "each with its active calculation's whole-life figures (not allocated to the period). Trend: the assets bought in each month, quarter or year of the period. " +
    'Savings: assets refurbished or resold within the period. Calculations: those recorded within it. UTC days, both ends included.'
  );
}

// $1 organisation, $2 dateFrom, $3 dateTo. A status dates from its last change (asset_events), else from the asset's creation.
const INVENTORY = `
WITH status_since AS (
  SELECT asset_id, max(created_at) AS at FROM asset_events
  WHERE org_id = $1::uuid AND event = 'asset.status_changed' GROUP BY asset_id
), inventory AS (
  SELECT a.brand, a.mpn, a.model, a.category, a.country, a.specs, a.product_id, a.status::text AS status, a.purchase_date,
    COALESCE(s.at, a.created_at) AS status_at,
    c.production_kg, c.transport_kg, c.use_phase_kg, c.end_of_life_kg, c.total_kg_co2e,
    c.confidence::text AS confidence, c.engine_version, cf.factor_id::text AS grid_factor_id,
    CASE WHEN jsonb_typeof(c.result -> 'methodology' -> 'uncertainty_pct') = 'number'
      THEN (c.result -> 'methodology' ->> 'uncertainty_pct')::float8 END AS uncertainty_pct,
    c.result -> 'impacts' AS impacts
  FROM assets a
  JOIN calculations c ON c.id = a.active_calculation_id AND c.org_id = $1::uuid
  LEFT JOIN status_since s ON s.asset_id = a.id
  LEFT JOIN calculation_factors cf ON cf.calculation_id = c.id AND cf.org_id = $1::uuid AND cf.role = 'use_grid'
  WHERE a.org_id = $1::uuid
    AND (a.purchase_date IS NULL OR a.purchase_date <= $3::date)
    AND NOT (a.status IN ('recycled', 'disposed', 'resold') AND COALESCE(s.at, a.created_at) < ($2::date)::timestamp AT TIME ZONE 'UTC')
)`;

/** A criterion's phase summed from the stored impacts: impacts -> criterion -> phases -> phase (null without impacts). */
const phaseSum = (criterion: string, phase: string) =>
  `sum((impacts -> '${criterion}' -> 'phases' ->> '${phase}')::float8) AS ${criterion}_${phase}`;

const GROUPS_SQL = `${INVENTORY}
SELECT brand, mpn, model, category, country, specs, product_id::text AS product_id, status, confidence, engine_version, uncertainty_pct, grid_factor_id,
  (status IN ('refurbished', 'resold') AND status_at >= ($2::date)::timestamp AT TIME ZONE 'UTC'
    AND status_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC') AS changed_in_period,
  count(*)::int AS assets, (count(*) FILTER (WHERE purchase_date IS NULL))::int AS undated,
  sum(production_kg)::float8 AS production_kg, sum(transport_kg)::float8 AS transport_kg, sum(use_phase_kg)::float8 AS use_phase_kg,
  sum(end_of_life_kg)::float8 AS end_of_life_kg, sum(total_kg_co2e)::float8 AS total_kg_co2e,
  (count(*) FILTER (WHERE jsonb_typeof(impacts) = 'object'))::int AS assets_with_impacts,
  sum((impacts -> 'adpe' ->> 'total')::float8) AS adpe_total, sum((impacts -> 'pe' ->> 'total')::float8) AS pe_total,
  ${['adpe', 'pe'].map((c) => phaseSum(c, 'production')).join(', ')}
FROM inventory
GROUP BY brand, mpn, model, category, country, specs, product_id, status, changed_in_period, confidence, engine_version, uncertainty_pct, grid_factor_id`;

// ADPe and PE of the inventory by phase, summed from the active calculations' stored impacts (calculations stored
// before them have none: counted apart).
const CRITERIA_SQL = `${INVENTORY}
SELECT (count(*) FILTER (WHERE impacts IS NULL OR jsonb_typeof(impacts) <> 'object'))::int AS assets_without_impacts,
  ${['adpe', 'pe'].flatMap((c) => ['production', 'transport', 'use', 'end_of_life'].map((p) => phaseSum(c, p))).join(',\n  ')}
FROM inventory`;

const trendSql = (granularity: TrendGranularity) => `${INVENTORY}
SELECT ${BUCKET_SQL[granularity]} AS period, sum(total_kg_co2e)::float8 AS total_kg_co2e
FROM inventory WHERE purchase_date >= $2::date GROUP BY 1`;

const FACTS_SQL = `
SELECT
  (SELECT count(*) FROM calculations WHERE org_id = $1::uuid
    AND created_at >= ($2::date)::timestamp AT TIME ZONE 'UTC' AND created_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC')::int AS calculations,
  (SELECT count(*) FROM assets WHERE org_id = $1::uuid)::int AS assets,
  (SELECT count(*) FROM assets WHERE org_id = $1::uuid AND active_calculation_id IS NULL)::int AS uncalculated,
  (SELECT to_char(min(purchase_date), 'YYYY-MM-DD') FROM assets WHERE org_id = $1::uuid) AS first_purchase`;

interface InventoryGroup extends LifecyclePhases {
  brand: string;
  mpn: string | null;
  model: string | null;
  category: string;
  country: string;
  specs: AssetSpecs | null;
  product_id: string | null;
  status: string;
  changed_in_period: boolean;
  confidence: ReportConfidenceRow['level'];
  engine_version: string;
  uncertainty_pct: number | null;
  /** The use-phase grid factor recorded with the calculation (calculation_factors, role use_grid). */
  grid_factor_id: string | null;
  assets: number;
  undated: number;
  total_kg_co2e: number;
  /** Assets whose stored result has `impacts`; the ADPe and PE sums below are theirs (null when none has). */
  assets_with_impacts: number;
  adpe_total: number | null;
  pe_total: number | null;
  adpe_production: number | null;
  pe_production: number | null;
}

type CriteriaRow = { assets_without_impacts: number } & Record<`${'adpe' | 'pe'}_${keyof CriterionPhaseTotals}`, number | null>;

/** GWP (the totals above), ADPe and PE by phase, each rounded as the API rounds it. */
function criteriaOf(row: CriteriaRow, totals: ReportView['totals']): NonNullable<ReportView['criteria']> {
  const resource = (c: 'adpe' | 'pe'): CriterionPhaseTotals & { total: number } => {
    const phases = {
      production: row[`${c}_production`] ?? 0,
      transport: row[`${c}_transport`] ?? 0,
      use: row[`${c}_use`] ?? 0,
      end_of_life: row[`${c}_end_of_life`] ?? 0,
    };
    const rounded = (v: number) => criterionRounding(c)(v);
    return {
      production: rounded(phases.production),
      transport: rounded(phases.transport),
      use: rounded(phases.use),
      end_of_life: rounded(phases.end_of_life),
      total: rounded(phases.production + phases.transport + phases.use + phases.end_of_life),
    };
  };
  return {
    gwp: {
      production: totals.production_kg,
      transport: totals.transport_kg,
      use: totals.use_phase_kg,
      end_of_life: totals.end_of_life_kg,
      total: totals.total_kg_co2e,
    },
    adpe: resource('adpe'),
    pe: resource('pe'),
    assets_without_impacts: row.assets_without_impacts,
  };
}

interface Facts {
  calculations: number;
  assets: number;
  uncalculated: number;
  first_purchase: string | null;
}

interface Estimate {
  device: ResolvedDevice;
  /** unrounded (footprintModelOf) */
  footprint: FootprintResult;
  grid: number;
}

/** The engine's view of each (device, country) in the inventory, calculated once and reused. */
class Estimates {
  private readonly devices = new Map<string, ResolvedDevice | null>();
  private readonly footprints = new Map<string, Estimate | null>();
  /** Assets the engine could not calculate again (device no longer resolvable, no grid factor). */
  readonly unresolved = new Set<InventoryGroup>();

  constructor(
    private readonly reference: ReferenceStore,
    private readonly products: ReadonlyMap<string, ProductRow>,
  ) {}

  /** Today's grid factor of a region, kg CO2e/kWh. */
  grid(code: string): number | undefined {
    return this.reference.gridFactor(code)?.value;
  }

  /** The engine's footprint of the group's device in `country` (default: where it is used), or undefined. */
  of(group: InventoryGroup, country = group.country): Estimate | undefined {
    const deviceKey = JSON.stringify([group.brand, group.mpn, group.model, group.category, group.specs, group.product_id]);
    const key = `${deviceKey}|${country}`;
    let estimate = this.footprints.get(key);
    if (estimate === undefined) {
      const device = this.device(deviceKey, group);
      const factor = this.reference.gridFactor(country);
      // Unrounded: the report's sums are rounded once, and savings per asset match GET /v1/savings exactly.
      estimate = device && factor ? { device, footprint: footprintModelOf(device, country, factor.value), grid: factor.value } : null;
      this.footprints.set(key, estimate);
    }
    if (!estimate) this.unresolved.add(group);
    return estimate ?? undefined;
  }

  private device(key: string, group: InventoryGroup): ResolvedDevice | null {
    let device = this.devices.get(key);
    if (device === undefined) {
      const product = group.product_id ? this.products.get(group.product_id) : undefined;
      device = resolveDevice(deviceQuery({ ...group, specs: group.specs ?? {} }), product ? matchOf(product) : undefined).device ?? null;
      this.devices.set(key, device);
    }
    return device;
  }
}

const sum = <T>(items: readonly T[], value: (item: T) => number) => items.reduce((total, item) => total + value(item), 0);
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const categoryName = (id: string) => getCategory(id)?.name ?? id;
/** "The calculation of 1 asset states", "The calculations of 3 assets state". */
const calculationsOf = (n: number) => (n === 1 ? 'The calculation of 1 asset states' : `The calculations of ${plural(n, 'asset')} state`);

/** A criterion of the hotspot analysis: its figure and its assets in a group, and how the API rounds it. */
interface Measure {
  criterion: Criterion;
  value: (g: InventoryGroup) => number;
  assets: (g: InventoryGroup) => number;
  round: (value: number) => number;
}

const GWP: Measure = { criterion: 'gwp', value: (g) => g.total_kg_co2e, assets: (g) => g.assets, round: round2 };

/** ADPe or PE: the stored impacts' totals, and only the assets that have them. */
const resourceMeasure = (c: ResourceCriterion): Measure => ({
  criterion: c,
  value: (g) => g[`${c}_total`] ?? 0,
  assets: (g) => g.assets_with_impacts,
  round: criterionRounding(c),
});

const MEASURES: Record<Criterion, Measure> = { gwp: GWP, adpe: resourceMeasure('adpe'), pe: resourceMeasure('pe') };

const CRITERION_NAMES: Record<Criterion, Pick<ReportCriterion, 'name' | 'meaning'>> = {
  gwp: { name: 'GWP', meaning: 'global warming' },
  adpe: { name: 'ADPe', meaning: 'abiotic depletion of elements' },
  pe: { name: 'PE', meaning: 'primary energy' },
};

/** Rows by `key`, largest first in `measure`, with their share of `total`; groups without a figure in it are left out. */
function rank(
  groups: readonly InventoryGroup[],
  key: (g: InventoryGroup) => string,
  label: (key: string) => string,
  total: number,
  measure: Measure = GWP,
): ReportRankRow[] {
  const rows = new Map<string, { assets: number; value: number }>();
  for (const g of groups) {
    if (measure.assets(g) === 0) continue;
    const k = key(g);
    const row = rows.get(k) ?? { assets: 0, value: 0 };
    row.assets += measure.assets(g);
    row.value += measure.value(g);
    rows.set(k, row);
  }
  return [...rows]
    .sort(([ka, a], [kb, b]) => b.value - a.value || ka.localeCompare(kb))
    .map(([k, row]) => ({
      label: label(k),
      assets: row.assets,
      value: measure.round(row.value),
      share_pct: total > 0 ? round1((row.value / total) * 100) : 0,
    }));
}

/** The inventory's GWP by `key` (the summary's breakdowns). */
const breakdown = (
  groups: readonly InventoryGroup[],
  key: (g: InventoryGroup) => string,
  label: (key: string) => string,
  total: number,
): ReportBreakdownRow[] => rank(groups, key, label, total).map(({ value, ...row }) => ({ ...row, total_kg_co2e: value }));

export interface ReportContext {
  /** The caller's organisation-scoped client (a test key's: its sandbox). */
  prisma: PrismaClient;
  orgId: string;
  reference: ReferenceStore;
  sandbox: boolean;
}

/** Everything a report shows, from the organisation's data in the period. */
export async function assembleReportView(ctx: ReportContext, request: ReportRequest, now: Date = new Date()): Promise<ReportView> {
  const { prisma, orgId } = ctx;
  const { type, dateFrom, dateTo } = request;
  const granularity = granularityOf(dateFrom, dateTo);
  const [groups, trend, [facts], organization, targets] = await Promise.all([
    prisma.$queryRawUnsafe<InventoryGroup[]>(GROUPS_SQL, orgId, dateFrom, dateTo),
    prisma.$queryRawUnsafe<{ period: string; total_kg_co2e: number }[]>(trendSql(granularity), orgId, dateFrom, dateTo),
    prisma.$queryRawUnsafe<Facts[]>(FACTS_SQL, orgId, dateFrom, dateTo),
    prisma.organization.findFirstOrThrow({ select: { name: true } }),
    type === 'sustainability_summary'
      ? prisma.sbtiTarget.findMany({ orderBy: [{ target_year: 'asc' }, { name: 'asc' }] })
      : Promise.resolve([]),
  ]);
  const productIds = [...new Set(groups.map((g) => g.product_id).filter((id): id is string => id !== null))];
  const products = productIds.length ? await prisma.product.findMany({ where: { id: { in: productIds } }, select: PRODUCT_SELECT }) : [];
  const estimates = new Estimates(ctx.reference, new Map(products.map((p) => [p.id, p as ProductRow])));
  const factorIds = [...new Set(groups.map((g) => g.grid_factor_id).filter((id): id is string => id !== null))];
  const factors = factorIds.length
    ? await prisma.emissionFactor.findMany({
        where: { id: { in: factorIds } },
        select: { id: true, region_code: true, source: true, source_version: true, source_license: true, valid_from: true },
      })
    : [];

  const totals = {
    production_kg: round2(sum(groups, (g) => g.production_kg)),
    transport_kg: round2(sum(groups, (g) => g.transport_kg)),
    use_phase_kg: round2(sum(groups, (g) => g.use_phase_kg)),
    end_of_life_kg: round2(sum(groups, (g) => g.end_of_life_kg)),
    total_kg_co2e: round2(sum(groups, (g) => g.total_kg_co2e)),
  };
  const total = sum(groups, (g) => g.total_kg_co2e);
  const assetCount = sum(groups, (g) => g.assets);
  const byPeriod = new Map(trend.map((b) => [b.period, b.total_kg_co2e]));
  const regionName = (code: string) => ctx.reference.regions.get(code)?.name;

  const view: ReportView = {
    type,
    organization_name: organization.name,
    date_from: dateFrom,
    date_to: dateTo,
    generated_at: now.toISOString(),
    period_semantics: periodSemantics(request),
    asset_count: assetCount,
    calculation_count: facts!.calculations,
    totals,
    uncertainty: uncertaintyOf(groups),
    confidence_mix: confidenceMix(groups, assetCount),
    grid_factor_sources: factorSources(groups, factors),
    assets_without_grid_factor: sum(
      groups.filter((g) => g.grid_factor_id === null),
      (g) => g.assets,
    ),
    engine_versions: engineVersions(groups),
    empty: assetCount === 0,
    by_category: breakdown(groups, (g) => g.category, categoryName, total),
    by_country: breakdown(
      groups,
      (g) => g.country,
      (code) => (regionName(code) ? `${code} (${regionName(code)})` : code),
      total,
    ),
    trend: {
      granularity,
      buckets: bucketsOf(dateFrom, dateTo, granularity).map((b) => ({ ...b, total_kg_co2e: round2(byPeriod.get(b.period) ?? 0) })),
    },
    notes: [],
    sandbox: ctx.sandbox,
  };

  if (type === 'sustainability_summary') {
    view.criteria = criteriaOf((await prisma.$queryRawUnsafe<CriteriaRow[]>(CRITERIA_SQL, orgId, dateFrom, dateTo))[0]!, totals);
    view.ghg_inventory = ghgInventory(await periodInventory(prisma, orgId, { dateFrom, dateTo, method: 'acquisition', restate: false }));
    view.savings = periodSavings(groups, estimates);
    view.sbti_targets = targets.map((t) => ({
      name: t.name,
      base_year: t.base_year,
      target_year: t.target_year,
      reduction_pct: t.reduction_pct,
      scope: t.scope,
    }));
  } else {
    view.hotspots = hotspots(groups, estimates, MEASURES[request.criterion ?? 'gwp'], products as ProductRow[], regionName);
  }
  view.notes = notes(view, facts!, groups, estimates, now);
  return view;
}

/** The inventory section of the summary: the scope table and both Scope 2 figures, as GET /v1/inventory answers them for the period. */
function ghgInventory(inventory: PeriodInventory): NonNullable<ReportView['ghg_inventory']> {
  return {
    method: inventory.method,
    rows: inventory.by_scope.map((r) => ({
      label: r.label,
      assets: r.assets,
      kg_co2e: r.kg_co2e,
      market_based_kg_co2e: r.market_based_kg_co2e,
    })),
    total: { assets: inventory.total.assets, kg_co2e: inventory.total.kg_co2e, market_based_kg_co2e: inventory.total.market_based_kg_co2e },
    scope_2: {
      location_based_kg_co2e: inventory.scope_2.location_based_kg_co2e,
      market_based_kg_co2e: inventory.scope_2.market_based_kg_co2e,
      location_based_fallback: inventory.scope_2.location_based_fallback,
    },
  };
}

const PHASE_KEYS = ['production_kg', 'transport_kg', 'use_phase_kg', 'end_of_life_kg'] as const;

export const UNCERTAINTY_METHOD =
  `Each asset's ~80 % interval from the uncertainty_pct of its active calculation, ${INTERVAL_METHOD}, applied to its total and to each phase; ` +
  "the assets' lower bounds and upper bounds are each summed (errors taken as fully correlated: the same model or category default " +
  'behind many assets errs the same way for all of them). Never below zero.';

/**
 * The inventory's interval: the sum of the assets' intervals (bounds added, as if every error ran the
 * same way). For fully correlated errors the sum of the assets' percentiles is the percentile of the
 * sum, so this is the ~80 % interval then and wider than it for independent errors; quadrature would
 * claim that 1 000 laptops estimated from one category default are known 30 times better than one.
 */
function uncertaintyOf(groups: readonly InventoryGroup[]): ReportUncertainty {
  const interval = (value: (g: InventoryGroup) => number): ReportInterval => {
    let low = 0;
    let high = 0;
    for (const g of groups) {
      const bounds =
        g.uncertainty_pct === null ? { low_kg: value(g), high_kg: value(g) } : uncertaintyInterval(value(g), g.uncertainty_pct);
      low += bounds.low_kg;
      high += bounds.high_kg;
    }
    return { low_kg: round2(low), high_kg: round2(high) };
  };
  return {
    method: UNCERTAINTY_METHOD,
    total: interval((g) => g.total_kg_co2e),
    phases: Object.fromEntries(PHASE_KEYS.map((phase) => [phase, interval((g) => g[phase])])) as ReportUncertainty['phases'],
    assets_without_uncertainty: sum(
      groups.filter((g) => g.uncertainty_pct === null),
      (g) => g.assets,
    ),
  };
}

/** Every level with at least one asset, most certain first. */
function confidenceMix(groups: readonly InventoryGroup[], assetCount: number): ReportConfidenceRow[] {
  return CONFIDENCE_LEVELS.flatMap((level) => {
    const members = groups.filter((g) => g.confidence === level);
    const assets = sum(members, (g) => g.assets);
    if (assets === 0) return [];
    const stated = members.flatMap((g) => (g.uncertainty_pct === null ? [] : [g.uncertainty_pct]));
    return [
      {
        level,
        assets,
        share_pct: round1((assets / assetCount) * 100),
        total_kg_co2e: round2(sum(members, (g) => g.total_kg_co2e)),
        uncertainty_pct: stated.length ? { min: Math.min(...stated), max: Math.max(...stated) } : null,
      },
    ];
  });
}

interface FactorRow {
  id: string;
  region_code: string;
  source: string;
  source_version: string;
  source_license: string | null;
  valid_from: Date;
}

/** The grid factors behind the inventory by source, version and licence, with the vintages (valid_from) and regions used. */
function factorSources(groups: readonly InventoryGroup[], factors: readonly FactorRow[]): ReportView['grid_factor_sources'] {
  const byId = new Map(factors.map((f) => [f.id, f]));
  const sources = new Map<string, { factor: FactorRow; assets: number; regions: Set<string>; valid: string[] }>();
  for (const g of groups) {
    const factor = g.grid_factor_id === null ? undefined : byId.get(g.grid_factor_id);
    if (!factor) continue;
    const key = JSON.stringify([factor.source, factor.source_version, factor.source_license]);
    const source = sources.get(key) ?? { factor, assets: 0, regions: new Set<string>(), valid: [] };
    source.assets += g.assets;
    source.regions.add(factor.region_code);
    source.valid.push(factor.valid_from.toISOString().slice(0, 10));
    sources.set(key, source);
  }
  return [...sources.values()]
    .map(({ factor, assets, regions, valid }) => ({
      source: factor.source,
      version: factor.source_version,
      licence: factor.source_license,
      // biome-ignore lint/complexity/useMathMinMax: ISO dates, compared as strings
      valid_from: { first: valid.reduce((a, b) => (a < b ? a : b)), last: valid.reduce((a, b) => (a > b ? a : b)) },
      regions: regions.size,
      assets,
    }))
    .sort((a, b) => b.assets - a.assets || a.source.localeCompare(b.source) || a.version.localeCompare(b.version));
}

function engineVersions(groups: readonly InventoryGroup[]): ReportView['engine_versions'] {
  const assets = new Map<string, number>();
  for (const g of groups) assets.set(g.engine_version, (assets.get(g.engine_version) ?? 0) + g.assets);
  return [...assets]
    .map(([version, n]) => ({ version, assets: n }))
    .sort((a, b) => b.assets - a.assets || b.version.localeCompare(a.version, 'en', { numeric: true }));
}

/** Reuse (resold) and refurbishment (refurbished) savings of the assets whose status changed in the period. */
function periodSavings(groups: readonly InventoryGroup[], estimates: Estimates): NonNullable<ReportView['savings']> {
  let reuse = 0;
  let refurbishment = 0;
  let resold = 0;
  let refurbished = 0;
  for (const g of groups.filter((g) => g.changed_in_period)) {
    const e = estimates.of(g);
    if (!e) continue;
    if (g.status === 'resold') {
      resold += g.assets;
      reuse +=
        g.assets *
        calculateSavings({ footprint: e.footprint, remaining_years: SAVINGS_REMAINING_YEARS, grid_factor_kg_per_kwh: e.grid })
          .avoided_co2_kg;
    } else {
      refurbished += g.assets;
      refurbishment += g.assets * refurbish(e, SAVINGS_REMAINING_YEARS);
    }
  }
  return {
    reuse_kg_co2e: round2(reuse),
    refurbishment_kg_co2e: round2(refurbishment),
    basis:
      `${plural(resold, 'asset')} resold and ${refurbished} refurbished in the period; engine ${ENGINE_VERSION}, ${SAVINGS_REMAINING_YEARS} further years ` +
      `of use in each asset's country at today's grid factor. Reuse as GET /v1/savings: a new device's production and transport avoided, less the ` +
      `older device's ${PENALTY_PCT}% extra electricity. Refurbishment as GET /v1/refurbishment (grade ${DEFAULT_GRADE}, no swaps): also less the refurbishment overhead.`,
  };
}

const refurbishment = (e: Estimate, years: number) =>
  calculateRefurbishment({
    footprint: e.footprint,
    category: e.device.category,
    specs: e.device.specs,
    grade: DEFAULT_GRADE,
    swaps: [],
    remaining_years: years,
    reuse_grid_factor_kg_per_kwh: e.grid,
  });
const refurbish = (e: Estimate, years: number) => refurbishment(e, years).net_savings_kg;

/** An engine result in `criterion`: its GWP figure, or the total of its ADPe or PE impacts (0 when it has none). */
const inCriterion = (criterion: Criterion, gwp: number, impacts: CriteriaResult | undefined) =>
  criterion === 'gwp' ? gwp : (impacts?.[criterion].total ?? 0);

function hotspots(
  groups: readonly InventoryGroup[],
  estimates: Estimates,
  measure: Measure,
  products: readonly ProductRow[],
  regionName: (code: string) => string | undefined,
): NonNullable<ReportView['hotspots']> {
  const { criterion } = measure;
  // Catalogue names usually start with the brand ("Dell P2425H Monitor").
  const productNames = new Map(
    products.map((p) => [p.id, p.name.toLowerCase().startsWith(p.brand.toLowerCase()) ? p.name : `${p.brand} ${p.name}`]),
  );
  const modelKey = (g: InventoryGroup) =>
    g.product_id ? `product:${g.product_id}` : JSON.stringify([g.brand, g.model ?? g.mpn, g.category]);
  const modelLabels = new Map(
    groups.map((g) => [
      modelKey(g),
      `${g.product_id ? (productNames.get(g.product_id) ?? g.brand) : `${g.brand} ${g.model ?? g.mpn ?? ''}`.trim()} (${categoryName(g.category)})`,
    ]),
  );

  // The stored production figures in the criterion, split by the engine's component model of each device.
  const storedProduction = (g: InventoryGroup) => (criterion === 'gwp' ? g.production_kg : (g[`${criterion}_production`] ?? 0));
  const componentValues = new Map<string, number>();
  for (const g of groups) {
    const footprint = estimates.of(g)?.footprint;
    const components = criterion === 'gwp' ? footprint?.production_components : footprint?.impacts?.[criterion].production_components;
    const modelled = components ? sum(Object.values(components), (v) => v) : 0;
    if (!components || modelled <= 0) continue;
    for (const [component, v] of Object.entries(components))
      componentValues.set(component, (componentValues.get(component) ?? 0) + (storedProduction(g) * v) / modelled);
  }
  const production = sum([...componentValues.values()], (v) => v);

  const total = sum(groups, measure.value);
  const categories = rank(groups, (g) => g.category, categoryName, total, measure);
  const models = rank(groups, modelKey, (k) => modelLabels.get(k) ?? k, total, measure);
  return {
    criterion: { id: criterion, ...CRITERION_NAMES[criterion], unit: CRITERION_UNIT[criterion] },
    assets_without_impacts: criterion === 'gwp' ? 0 : sum(groups, (g) => g.assets - g.assets_with_impacts),
    categories: categories.slice(0, TOP_ROWS),
    categories_count: categories.length,
    models: models.slice(0, TOP_ROWS),
    models_count: models.length,
    components: [...componentValues]
      .filter(([, v]) => v > 0)
      .sort(([, a], [, b]) => b - a)
      .map(([component, v]) => ({
        component: `${component[0]!.toUpperCase()}${component.slice(1).replaceAll('_', ' ')}`,
        value: measure.round(v),
        share_pct: production > 0 ? round1((v / production) * 100) : 0,
      })),
    actions: actions(groups, estimates, measure, regionName),
  };
}

/** For the largest categories still in service (in `measure`): extend life by a year, refurbish, or use them where the grid is cleanest. */
function actions(
  groups: readonly InventoryGroup[],
  estimates: Estimates,
  measure: Measure,
  regionName: (code: string) => string | undefined,
): ReportAction[] {
  const { criterion, round } = measure;
  const inService = groups.filter((g) => IN_SERVICE.has(g.status));
  // The cleanest grid among the countries the organisation already uses.
  const target = [...new Set(inService.map((g) => g.country))]
    .map((code) => ({ code, factor: estimates.grid(code) }))
    .filter((c): c is { code: string; factor: number } => c.factor !== undefined)
    .sort((a, b) => a.factor - b.factor || a.code.localeCompare(b.code))[0];
  const targetLabel = target && (regionName(target.code) ? `${regionName(target.code)} (${target.code})` : target.code);
  const usePhase = (f: FootprintResult) => (criterion === 'gwp' ? f.breakdown.use_phase_kg : (f.impacts?.[criterion].phases.use ?? 0));
  const unit = criterion === 'gwp' ? '' : ` Figures in ${CRITERION_UNIT[criterion]} (${CRITERION_NAMES[criterion].name}).`;

  const ranked = rank(
    inService,
    (g) => g.category,
    (id) => id,
    0,
    measure,
  ).slice(0, ACTION_CATEGORIES);
  const result: ReportAction[] = [];
  for (const { label: category } of ranked) {
    const members = inService
      .filter((g) => g.category === category)
      .map((g) => ({ g, e: estimates.of(g) }))
      .filter((m): m is { g: InventoryGroup; e: Estimate } => m.e !== undefined);
    const n = sum(members, (m) => m.g.assets);
    if (n === 0) continue;
    const name = categoryName(category);
    result.push({
      action: `${name}: extend the life of ${plural(n, 'device')} by one year`,
      saving: round(
        sum(members, ({ g, e }) => {
          const saved = calculateSavings({ footprint: e.footprint, remaining_years: ACTION_YEARS, grid_factor_kg_per_kwh: e.grid });
          return g.assets * inCriterion(criterion, saved.avoided_co2_kg, saved.impacts);
        }),
      ),
      basis:
        `Engine ${ENGINE_VERSION} savings (as GET /v1/savings, remaining_years ${ACTION_YEARS}): a new device's production and transport avoided, ` +
        `less the older device's ${PENALTY_PCT}% extra electricity at its country's grid factor.${unit}`,
    });
    result.push({
      action: `${name}: refurbish ${plural(n, 'device')} (grade ${DEFAULT_GRADE}) instead of buying new`,
      saving: round(
        sum(members, ({ g, e }) => {
          const refurbished = refurbishment(e, ACTION_YEARS);
          return g.assets * inCriterion(criterion, refurbished.net_savings_kg, refurbished.impacts);
        }),
      ),
      basis:
        `Engine ${ENGINE_VERSION} refurbishment (as GET /v1/refurbishment, grade ${DEFAULT_GRADE}, no swaps, ${ACTION_YEARS} year in the same country): ` +
        `a new device's production and transport avoided, less the refurbishment overhead and the older device's extra electricity.${unit}`,
    });
    if (target) {
      const moved = members.filter(({ g, e }) => g.country !== target.code && e.grid > target.factor);
      const saving = sum(moved, ({ g, e }) => {
        const there = estimates.of(g, target.code)?.footprint ?? e.footprint;
        return g.assets * (usePhase(e.footprint) - usePhase(there));
      });
      if (moved.length > 0) {
        result.push({
          action: `${name}: use ${plural(
            sum(moved, (m) => m.g.assets),
            'device',
          )} in ${targetLabel} instead of their current countries`,
          saving: round(saving),
          basis:
            `Engine ${ENGINE_VERSION} use phase over each device's lifetime at the grid factor of ${target.code} (${target.factor} kg CO2e/kWh, ` +
            `the lowest of the organisation's countries of use) instead of its own country's; the other phases unchanged.${unit}`,
        });
      }
    }
  }
  return result.filter((a) => a.saving > 0).sort((a, b) => b.saving - a.saving);
}

function notes(view: ReportView, facts: Facts, groups: readonly InventoryGroup[], estimates: Estimates, now: Date): string[] {
  const notes: string[] = [];
  if (facts.assets === 0) {
    notes.push(
      'The organisation has no assets yet: there is nothing to report. Import assets (POST /v1/assets) and request the report again.',
    );
  } else if (view.empty) {
    notes.push(
      `No asset was in the inventory in this period: the organisation has ${plural(facts.assets, 'asset')}` +
        (facts.first_purchase ? `, the earliest purchased on ${facts.first_purchase}.` : '.'),
    );
  }
  const today = now.toISOString().slice(0, 10);
  if (view.date_to > today) notes.push(`The period ends after today (${today}): it shows the data recorded by today.`);
  const undated = sum(groups, (g) => g.undated);
  if (undated > 0)
    notes.push(
      `${plural(undated, 'asset has', 'assets have')} no purchase date and ${undated === 1 ? 'is' : 'are'} counted as held throughout the period.`,
    );
  if (facts.uncalculated > 0)
    notes.push(
      `${plural(facts.uncalculated, 'asset has', 'assets have')} no calculation and ${facts.uncalculated === 1 ? 'is' : 'are'} not included.`,
    );
  const unresolved = sum([...estimates.unresolved], (g) => g.assets);
  if (unresolved > 0) {
    notes.push(
      `${plural(unresolved, 'asset')} could not be calculated again by engine ${ENGINE_VERSION} and ${unresolved === 1 ? 'is' : 'are'} left out of the estimates (their stored figures are in the totals).`,
    );
  }
  const { assets_without_uncertainty: unstated } = view.uncertainty;
  if (unstated > 0) {
    notes.push(
      `${calculationsOf(unstated)} no uncertainty: ${unstated === 1 ? 'its figures count' : 'their figures count'} at their value in both bounds of the intervals.`,
    );
  }
  if (view.assets_without_grid_factor > 0) {
    notes.push(
      `${calculationsOf(view.assets_without_grid_factor)} no grid factor (an older record): the grid factors listed are those of the other assets.`,
    );
  }
  if (view.hotspots?.actions.length)
    notes.push('The actions of one category are alternatives for the same devices: their savings do not add up.');
  const withoutImpacts = view.hotspots?.assets_without_impacts ?? 0;
  if (withoutImpacts > 0) {
    notes.push(
      `${calculationsOf(withoutImpacts)} no ${view.hotspots!.criterion.name} (calculated before ADPe and PE were): ` +
        `${withoutImpacts === 1 ? 'it is' : 'they are'} left out of the hotspots, not out of the totals.`,
    );
  }
  if (!view.empty) {
    notes.push(
      `Inventory totals are the stored active calculations of the assets (kg CO2e over each device's whole life). ` +
        `${view.type === 'sustainability_summary' ? 'Savings' : 'Component shares and action savings'} are estimates by engine ${ENGINE_VERSION} with today's grid factors, not inventory deductions.`,
    );
  }
  return notes;
}
