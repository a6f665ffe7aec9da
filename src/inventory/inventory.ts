/**
 * The greenhouse-gas inventory of a reporting period (docs/inventory.md): the organisation's emissions of
 * the period by GHG Protocol scope and category, Scope 2 location-based and market-based side by side,
 * from the assets' stored calculations. The SQL (query.ts) does the summing; this file checks the request
 * and shapes the answer that REST, GraphQL, OData and the sustainability report all show.
 */
import type { PrismaClient } from '../db/database.ts';
import { ApiError, invalidParameter } from '../errors/api-error.ts';
import { round1, round2 } from '../footprint/engine/rounding.ts';
import { INTERVAL_METHOD } from '../footprint/engine/interval.ts';
import { EARLIEST_DATE, LATEST_DATE, addYears } from '../reports/request.ts';
import { AVOIDED_SQL, COVERAGE_SQL, INVENTORY_SETS, PERIOD_INVENTORY_SQL, type InventoryPhase, type InventorySqlRow } from './query.ts';

export const INVENTORY_METHODS = ['acquisition', 'linear'] as const;
export type InventoryMethod = (typeof INVENTORY_METHODS)[number];
export type HardwareAccounting = 'capital_goods' | 'purchased_goods';

/** The longest period one answer covers: ten years (a longer one is 400 INVALID_PARAMETER). */
export const MAX_PERIOD_YEARS = 10;

export interface InventoryRequest {
  /** YYYY-MM-DD, UTC days, both included. */
  dateFrom: string;
  dateTo: string;
  method: InventoryMethod;
  restate: boolean;
}

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/**
 * A valid period: dates from EARLIEST_DATE to LATEST_DATE, dateFrom not after dateTo, at most
 * MAX_PERIOD_YEARS long (dateTo before the same day MAX_PERIOD_YEARS after dateFrom). Else 400 naming the field.
 */
export function inventoryRequest(args: {
  dateFrom: Date;
  dateTo: Date;
  method?: InventoryMethod | null;
  restate?: boolean | null;
}): InventoryRequest {
  const dateFrom = isoDay(args.dateFrom);
  const dateTo = isoDay(args.dateTo);
  for (const [field, value] of [
    ['dateFrom', dateFrom],
    ['dateTo', dateTo],
  ] as const) {
    if (value < EARLIEST_DATE || value > LATEST_DATE)
      throw invalidParameter(field, `must be from ${EARLIEST_DATE} to ${LATEST_DATE}, got '${value}'`);
  }
  if (dateFrom > dateTo) throw invalidParameter('dateFrom', `must be on or before dateTo (${dateTo}), got '${dateFrom}'`);
  if (dateTo >= addYears(dateFrom, MAX_PERIOD_YEARS))
    throw invalidParameter(
      'dateTo',
      `the period may be at most ${MAX_PERIOD_YEARS} years long: dateTo must be before ${addYears(dateFrom, MAX_PERIOD_YEARS)}, got '${dateTo}'`,
    );
  return { dateFrom, dateTo, method: args.method ?? 'acquisition', restate: args.restate ?? false };
}

export interface InventoryInterval {
  low_kg: number;
  high_kg: number;
}

/** One row of a breakdown: location-based and market-based totals (they differ by Scope 2 only), their intervals and the assets behind it. */
export interface InventoryRow {
  key: string;
  label: string;
  kg_co2e: number;
  market_based_kg_co2e: number;
  uncertainty: InventoryInterval;
  market_based_uncertainty: InventoryInterval;
  assets: number;
}

export interface InventoryScopeRow extends InventoryRow {
  scope: 2 | 3;
  /** GHG Protocol Scope 3 category (1, 2, 4 or 5); null for Scope 2. */
  ghg_category: number | null;
  phase: InventoryPhase;
}

export interface ScopeTwo {
  kwh: number;
  location_based_kg_co2e: number;
  market_based_kg_co2e: number;
  location_based_uncertainty: InventoryInterval;
  market_based_uncertainty: InventoryInterval;
  /** The kWh behind the market-based figure, by the factor they got (GHG Protocol Scope 2 Guidance, 6.11 hierarchy). */
  market_basis: { certificates_kwh: number; supplier_specific_kwh: number; residual_mix_kwh: number; location_based_kwh: number };
  /** True when some kWh had neither an instrument nor a residual mix and got the location-based factor (the Guidance allows it, flagged). */
  location_based_fallback: boolean;
  assets: number;
}

export interface InventoryDataQuality {
  /** Assets with at least one figure in the period. */
  assets_counted: number;
  assets_without_purchase_date: number;
  assets_without_purchase_date_pct: number;
  status_changes_without_date: number;
  status_changes_without_date_pct: number;
  /** Assets of the organisation the inventory cannot count: no calculation with the figures it needs. */
  assets_without_calculation: number;
  /** Assets in service in the period in a country without a grid factor: their electricity is counted at 0 kg. */
  assets_without_grid_factor: number;
  rules: string[];
}

export interface AvoidedEmissions {
  part_of_inventory: false;
  reuse_kg_co2e: number;
  refurbishment_kg_co2e: number;
  resold_assets: number;
  refurbished_assets: number;
  basis: string;
}

export interface PeriodInventory {
  date_from: string;
  date_to: string;
  method: InventoryMethod;
  restate: boolean;
  factors: string;
  hardware_accounting: HardwareAccounting;
  total: InventoryRow;
  scope_2: ScopeTwo;
  by_scope: InventoryScopeRow[];
  by_phase: InventoryRow[];
  by_month: InventoryRow[];
  by_country: InventoryRow[];
  by_category: InventoryRow[];
  data_quality: InventoryDataQuality;
  avoided_emissions: AvoidedEmissions;
  uncertainty_method: string;
}

/** One row of the month x scope x category x country detail (OData PeriodEmissions). */
export interface PeriodEmissionRow {
  month: string;
  scope: 2 | 3;
  ghg_category: number | null;
  phase: InventoryPhase;
  country: string;
  device_category: string;
  kg_co2e: number;
  market_based_kg_co2e: number;
  low_kg: number;
  high_kg: number;
  kwh: number | null;
  assets: number;
}

export const PHASES: readonly InventoryPhase[] = ['use', 'production', 'transport', 'end_of_life'];

const PHASE_LABELS: Record<InventoryPhase, string> = {
  use: 'Use (electricity)',
  production: 'Production',
  transport: 'Transport',
  end_of_life: 'End of life',
};

/** The GHG Protocol scope and category each phase is reported in. */
export function scopeOf(
  phase: InventoryPhase,
  accounting: HardwareAccounting,
): { scope: 2 | 3; ghg_category: number | null; label: string } {
  switch (phase) {
    case 'use':
      return { scope: 2, ghg_category: null, label: 'Scope 2: purchased electricity' };
    case 'production':
      return accounting === 'purchased_goods'
        ? { scope: 3, ghg_category: 1, label: 'Scope 3 category 1: purchased goods (hardware, cradle to gate)' }
        : { scope: 3, ghg_category: 2, label: 'Scope 3 category 2: capital goods (hardware, cradle to gate)' };
    case 'transport':
      return { scope: 3, ghg_category: 4, label: 'Scope 3 category 4: upstream transportation (delivery of the hardware)' };
    case 'end_of_life':
      return { scope: 3, ghg_category: 5, label: 'Scope 3 category 5: waste (end of life of disposed hardware)' };
  }
}

const interval = (low: number, high: number): InventoryInterval => ({ low_kg: round2(low), high_kg: round2(high) });

function rowOf(key: string, label: string, r: InventorySqlRow | undefined): InventoryRow {
  return {
    key,
    label,
    kg_co2e: round2(r?.kg ?? 0),
    market_based_kg_co2e: round2(r?.market_kg ?? 0),
    uncertainty: interval(r?.kg_low ?? 0, r?.kg_high ?? 0),
    market_based_uncertainty: interval(r?.market_kg_low ?? 0, r?.market_kg_high ?? 0),
    assets: r?.assets ?? 0,
  };
}

const pct = (part: number, whole: number) => (whole > 0 ? round1((part / whole) * 100) : 0);
const sorted = (rows: InventoryRow[]) => rows.sort((a, b) => b.kg_co2e - a.kg_co2e || a.key.localeCompare(b.key));

export const DATA_RULES = [
  'An asset without a purchase date is counted from the day it was recorded (created_at, UTC): its acquisition falls on that day.',
  'An asset resold, recycled or disposed of leaves service on the day of its last status change to that status; without a dated change (recorded with that status), on the day it was recorded.',
  'Electricity: the annual kWh of its calculation x days held in the period / 365.25.',
];

/**
 * How long the inventory statement may run: below Prisma's 30 s transaction timeout (TRANSACTION_OPTIONS in
 * src/db/database.ts), so a statement that runs too long ends in PostgreSQL's own cancellation and a 503
 * INVENTORY_TIMEOUT rather than an expired transaction and a 500. PGlite accepts and does not enforce it.
 */
export const INVENTORY_STATEMENT_TIMEOUT_MS = 20_000;

/** SQLSTATE 57014 query_canceled, as Prisma's driver adapter reports it for a raw query. */
const isStatementTimeout = (error: unknown) =>
  /\b57014\b|statement timeout/.test(JSON.stringify((error as { meta?: unknown })?.meta ?? null) + String(error));

/**
 * The rows of PERIOD_INVENTORY_SQL. Without JIT: the planner's row estimates for the grouping sets are far
 * above the real counts, and PostgreSQL would spend seconds compiling a statement that runs in a fraction of
 * that (measured: 13 s of JIT for 2 s of work at 100 000 assets); with work memory for the sorts of the
 * grouping sets. SET LOCAL: for this transaction only. PGlite has no JIT and accepts the settings.
 */
async function inventoryRows(
  prisma: PrismaClient,
  orgId: string,
  request: InventoryRequest,
  statementTimeoutMs: number,
): Promise<InventorySqlRow[]> {
  const { dateFrom, dateTo, restate, method } = request;
  try {
    const [, , , rows] = await prisma.$transaction([
      prisma.$executeRawUnsafe('SET LOCAL jit = off'),
      prisma.$executeRawUnsafe("SET LOCAL work_mem = '64MB'"),
      prisma.$executeRawUnsafe(`SET LOCAL statement_timeout = ${Math.trunc(statementTimeoutMs)}`),
      prisma.$queryRawUnsafe<InventorySqlRow[]>(PERIOD_INVENTORY_SQL, orgId, dateFrom, dateTo, restate, method),
    ]);
    return rows;
  } catch (error) {
    if (!isStatementTimeout(error)) throw error;
    throw new ApiError(
      503,
      'INVENTORY_TIMEOUT',
      'The inventory took too long',
      `the inventory of ${dateFrom} to ${dateTo} was cancelled after ${statementTimeoutMs} ms: the database is busy; try again later or ask for a shorter period`,
      { 'Retry-After': '30' },
    );
  }
}

/** The inventory of `request` for the organisation `orgId`, read through its scoped client. */
export async function periodInventory(
  prisma: PrismaClient,
  orgId: string,
  request: InventoryRequest,
  statementTimeoutMs = INVENTORY_STATEMENT_TIMEOUT_MS,
): Promise<PeriodInventory> {
  const { dateFrom, dateTo, method, restate } = request;
  const [rows, avoided, [coverage], organization] = await Promise.all([
    inventoryRows(prisma, orgId, request, statementTimeoutMs),
    prisma.$queryRawUnsafe<{ status: string; assets: number; kg: number }[]>(AVOIDED_SQL, orgId, dateFrom, dateTo),
    prisma.$queryRawUnsafe<{ assets: number; uncalculated: number }[]>(COVERAGE_SQL, orgId),
    prisma.organization.findFirstOrThrow({ where: { id: orgId }, select: { hardware_accounting: true } }),
  ]);
  const accounting = organization.hardware_accounting;
  const inSet = (set: number) => rows.filter((r) => r.set_id === set);
  const total = inSet(INVENTORY_SETS.total)[0];
  const byPhase = new Map(inSet(INVENTORY_SETS.phase).map((r) => [r.phase!, r]));
  const use = byPhase.get('use');
  const counted = total?.assets ?? 0;
  const reuse = avoided.find((a) => a.status === 'resold');
  const refurbished = avoided.find((a) => a.status === 'refurbished');

  return {
    date_from: dateFrom,
    date_to: dateTo,
    method,
    restate,
    factors: restate
      ? 'restated: the current calculation of each asset and the newest vintage of every grid and residual-mix factor, for every day'
      : 'as of the period: each asset as calculated by the end of the period, each day at the factor vintages in force on it',
    hardware_accounting: accounting,
    total: rowOf('total', 'Total', total),
    scope_2: {
      kwh: round2(use?.kwh ?? 0),
      location_based_kg_co2e: round2(use?.kg ?? 0),
      market_based_kg_co2e: round2(use?.market_kg ?? 0),
      location_based_uncertainty: interval(use?.kg_low ?? 0, use?.kg_high ?? 0),
      market_based_uncertainty: interval(use?.market_kg_low ?? 0, use?.market_kg_high ?? 0),
      market_basis: {
        certificates_kwh: round2(use?.kwh_certificates ?? 0),
        supplier_specific_kwh: round2(use?.kwh_supplier_specific ?? 0),
        residual_mix_kwh: round2(use?.kwh_residual_mix ?? 0),
        location_based_kwh: round2(use?.kwh_location_based ?? 0),
      },
      location_based_fallback: (use?.kwh_location_based ?? 0) > 0,
      assets: use?.assets ?? 0,
    },
    by_scope: PHASES.map((phase) => {
      const { scope, ghg_category, label } = scopeOf(phase, accounting);
      return {
        ...rowOf(ghg_category === null ? 'scope_2' : `scope_3_category_${ghg_category}`, label, byPhase.get(phase)),
        scope,
        ghg_category,
        phase,
      };
    }),
    by_phase: PHASES.map((phase) => rowOf(phase, PHASE_LABELS[phase], byPhase.get(phase))),
    by_month: inSet(INVENTORY_SETS.month)
      .map((r) => rowOf(r.month!, r.month!, r))
      .sort((a, b) => a.key.localeCompare(b.key)),
    by_country: sorted(inSet(INVENTORY_SETS.country).map((r) => rowOf(r.country!, r.country!, r))),
    by_category: sorted(inSet(INVENTORY_SETS.category).map((r) => rowOf(r.category!, r.category!, r))),
    data_quality: {
      assets_counted: counted,
      assets_without_purchase_date: total?.undated ?? 0,
      assets_without_purchase_date_pct: pct(total?.undated ?? 0, counted),
      status_changes_without_date: total?.status_undated ?? 0,
      status_changes_without_date_pct: pct(total?.status_undated ?? 0, counted),
      assets_without_calculation: coverage?.uncalculated ?? 0,
      assets_without_grid_factor: total?.without_factor ?? 0,
      rules: DATA_RULES,
    },
    avoided_emissions: {
      part_of_inventory: false,
      reuse_kg_co2e: round2(reuse?.kg ?? 0),
      refurbishment_kg_co2e: round2(refurbished?.kg ?? 0),
      resold_assets: reuse?.assets ?? 0,
      refurbished_assets: refurbished?.assets ?? 0,
      basis:
        'Not part of the inventory and never netted against it (GHG Protocol Corporate Standard, chapter 9): the production and transport ' +
        "of a new device that each asset resold or refurbished in the period stands in for, at its own calculation's figures.",
    },
    uncertainty_method:
      `Each asset's ~80 % interval from its calculation's uncertainty_pct, ${INTERVAL_METHOD}, applied to each of its figures; ` +
      'bounds summed over the assets (errors taken as fully correlated), as the sustainability report sums them.',
  };
}

/** The month x scope x category x country rows of the inventory (OData PeriodEmissions), in a stable order. */
export async function periodEmissionRows(prisma: PrismaClient, orgId: string, request: InventoryRequest): Promise<PeriodEmissionRow[]> {
  const [rows, organization] = await Promise.all([
    inventoryRows(prisma, orgId, request, INVENTORY_STATEMENT_TIMEOUT_MS),
    prisma.organization.findFirstOrThrow({ where: { id: orgId }, select: { hardware_accounting: true } }),
  ]);
  return rows
    .filter((r) => r.set_id === INVENTORY_SETS.detail)
    .map((r) => {
      const { scope, ghg_category } = scopeOf(r.phase!, organization.hardware_accounting);
      return {
        month: r.month!,
        scope,
        ghg_category,
        phase: r.phase!,
        country: r.country!,
        device_category: r.category!,
        kg_co2e: round2(r.kg),
        market_based_kg_co2e: round2(r.market_kg),
        low_kg: round2(r.kg_low),
        high_kg: round2(r.kg_high),
        kwh: r.kwh === null ? null : round2(r.kwh),
        assets: r.assets,
      };
    })
    .sort(
      (a, b) =>
        a.month.localeCompare(b.month) ||
        PHASES.indexOf(a.phase) - PHASES.indexOf(b.phase) ||
        a.country.localeCompare(b.country) ||
        a.device_category.localeCompare(b.device_category),
    );
}
