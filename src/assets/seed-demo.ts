/**
 * Demo inventory: `lcf admin seed-demo --org ORG_ID --assets N` (src/cli/main.ts) calls seedDemo.
 *
 * Realistic mix: categories weighted like a corporate IT estate, catalogue products of each
 * category (plus unlisted devices estimated from category defaults), 20+ countries and US/EU
 * regions, statuses and purchase dates over the last seven years. Every asset gets a stored
 * calculation as its active calculation, made by the same lookup chain and engine as an import.
 *
 * Fast for N = 1 000 000: the footprint is calculated once per (device, country) combination (a
 * few thousand), and rows are written in batches by one INSERT … SELECT statement each that fills
 * assets, calculations and calculation_factors together (json_to_recordset; assets and their
 * calculations reference each other, which PostgreSQL checks at the end of the statement).
 */
import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../db/database.ts';
import { ReferenceStore } from '../reference/store.ts';
import { CatalogueService } from '../catalogue/service.ts';
import {
  CalculationWriter,
  calculationRecordset,
  insertCalculationFactors,
  insertCalculations,
  type CalculationColumn,
  type CalculationRow,
} from '../footprint/calculation-writer.ts';
import { FootprintService } from '../footprint/service.ts';
import { createLogger } from '../observability/logger.ts';
import { anonymousCaller } from '../auth/caller.ts';
import { notFound, invalidParameter } from '../errors/api-error.ts';
import type { AssetStatus } from './status.ts';

export const MAX_SEED_ASSETS = 5_000_000;

/** Share of the estate per category (corporate IT: notebooks and monitors dominate). */
const CATEGORY_WEIGHTS: Record<string, number> = {
  laptop: 30,
  mobile_workstation: 4,
  convertible: 3,
  chromebook: 2,
  desktop: 10,
  mini_pc: 3,
  all_in_one: 2,
  workstation: 2,
  thin_client: 2,
  monitor: 16,
  smartphone: 9,
  tablet: 4,
  docking_station: 3,
  headset: 2,
  keyboard: 1,
  mouse: 1,
  ip_phone: 1.5,
  webcam: 0.5,
  server: 1.5,
  tower_server: 0.5,
  storage_array: 0.2,
  nas: 0.3,
  network_switch: 1,
  access_point: 1,
  firewall: 0.3,
  router: 0.3,
  printer: 1,
  multifunction_printer: 1.5,
  projector: 0.3,
  interactive_display: 0.2,
  video_conferencing: 0.3,
  barcode_scanner: 0.3,
  ups: 0.3,
};
/** Categories that also get devices the catalogue does not know (estimated from category defaults). */
const UNLISTED = ['laptop', 'desktop', 'monitor', 'smartphone'];
const PRODUCTS_PER_CATEGORY = 6;

const COUNTRY_WEIGHTS: Record<string, number> = {
  DE: 20,
  FR: 10,
  GB: 10,
  NL: 8,
  PL: 5,
  ES: 5,
  IT: 5,
  'US-CA': 6,
  'US-TX': 5,
  'US-NY': 4,
  SE: 3,
  BE: 3,
  IN: 3,
  AT: 2,
  CH: 2,
  DK: 2,
  IE: 2,
  JP: 2,
  AU: 2,
  CA: 2,
  BR: 1,
  SG: 1,
  'CN-GD': 1,
};

const STATUS_WEIGHTS: Record<AssetStatus, number> = {
  in_use: 70,
  in_stock: 8,
  in_repair: 3,
  refurbished: 4,
  resold: 5,
  recycled: 6,
  disposed: 4,
};

const PURCHASE_YEARS = 7;

export interface SeedDemoResult {
  org_id: string;
  assets: number;
  /** Distinct (device, country) footprints calculated: those the drawn assets use */
  combinations: number;
  /** Serial numbers are `${serial_prefix}0000001` … */
  serial_prefix: string;
  ms: number;
}

export interface SeedDemoOptions {
  batchSize?: number;
  /** PRNG seed, for reproducible estates */
  seed?: number;
  /** The running server's reference data and footprint service; the CLI builds its own. */
  services?: { reference: ReferenceStore; footprint: FootprintService };
}

/** Columns each seeded asset's calculation gets of its own (INSERT_BATCH sets them); a combination holds the rest. */
const PER_ASSET_COLUMNS = ['id', 'org_id', 'asset_id', 'api_key_id', 'kind', 'created_at'] as const satisfies readonly CalculationColumn[];

/** One device in one country, calculated once: the calculation of every asset drawn with it, plus the asset's device fields. */
type Combo = Omit<CalculationRow, (typeof PER_ASSET_COLUMNS)[number]> & {
  i: number;
  brand: string;
  mpn: string | null;
  model: string | null;
};

/** mulberry32: small, fast, seeded (also the test fixtures' generator). */
export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks from weighted items with one uniform draw (cumulative table, binary search). */
function weighted<T>(items: readonly { item: T; weight: number }[]): (u: number) => T {
  const cumulative: number[] = [];
  let total = 0;
  for (const { weight } of items) cumulative.push((total += weight));
  return (u) => {
    const x = u * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return items[lo]!.item;
  };
}

/**
 * The figures an asset keeps of its active calculation (trigger assets_active_calculation_figures, migrations
 * inventory_period_figures and asset_impact_totals). A statement that inserts assets together with their
 * calculations (this estate, a sandbox copy) writes them itself: the row trigger cannot see a calculation
 * inserted by the same statement, and keeps what the statement wrote.
 */
export const ACTIVE_FIGURE_COLUMNS = [
  'transport_kg',
  'end_of_life_kg',
  'annual_kwh',
  'lifetime_years',
  'uncertainty_pct',
  'calculated_at',
  'adpe_kg_sb_eq',
  'pe_mj',
] as const;

const jsonNumber = (json: string) => `CASE WHEN jsonb_typeof(${json}) = 'number' THEN (${json})::text::float8 END`;

/** Those figures, as the trigger reads them, from the calculation being inserted (`src`: its columns and result), created now. */
const ACTIVE_FIGURES: Record<(typeof ACTIVE_FIGURE_COLUMNS)[number], string> = {
  transport_kg: 'src.transport_kg',
  end_of_life_kg: 'src.end_of_life_kg',
  annual_kwh: jsonNumber("src.result -> 'methodology' -> 'annual_kwh'"),
  lifetime_years: jsonNumber("src.result -> 'methodology' -> 'lifetime_years'"),
  uncertainty_pct: jsonNumber("src.result -> 'methodology' -> 'uncertainty_pct'"),
  calculated_at: 'now()',
  adpe_kg_sb_eq: jsonNumber("src.result -> 'impacts' -> 'adpe' -> 'total'"),
  pe_mj: jsonNumber("src.result -> 'impacts' -> 'pe' -> 'total'"),
};

const INSERT_BATCH = `
WITH combos AS (
  SELECT * FROM json_to_recordset($1::json) AS c(i int, brand text, mpn text, model text, ${calculationRecordset(PER_ASSET_COLUMNS)})
),
src AS MATERIALIZED (
  SELECT r.n, r.s, r.d, gen_random_uuid() AS asset_id, gen_random_uuid() AS calc_id, c.*
  FROM json_to_recordset($2::json) AS r(n int, c int, s text, d date) JOIN combos c ON c.i = r.c
),
a AS (
  INSERT INTO assets (id, org_id, brand, mpn, model, serial_number, category, status, purchase_date, country, specs, product_id,
    active_calculation_id, total_kg_co2e, production_kg, use_phase_kg, ${ACTIVE_FIGURE_COLUMNS.join(', ')}, source, created_at, updated_at)
  SELECT asset_id, $3::uuid, brand, mpn, model, $4 || lpad(n::text, 7, '0'), category, s::"AssetStatus", d, country, '{}'::jsonb, product_id,
    calc_id, total_kg_co2e, production_kg, use_phase_kg, ${ACTIVE_FIGURE_COLUMNS.map((c) => ACTIVE_FIGURES[c]).join(', ')}, 'seed-demo', now(), now()
  FROM src
  RETURNING 1
),
k AS (
  ${insertCalculations('src', 'src', {
    id: 'src.calc_id',
    org_id: '$3::uuid',
    asset_id: 'src.asset_id',
    api_key_id: 'NULL',
    kind: "'footprint'",
    result: "src.result || jsonb_build_object('calculation_id', src.calc_id)",
    created_at: 'now()',
  })}
  RETURNING 1
),
f AS (
  ${insertCalculationFactors("SELECT calc_id, grid_factor_id, 'use_grid', $3::uuid FROM src")}
  RETURNING 1
)
SELECT (SELECT count(*) FROM a)::int AS assets, (SELECT count(*) FROM k)::int AS calculations`;

/** The footprint service over a database, for use outside the server (the CLI). */
async function footprintService(prisma: PrismaClient) {
  const log = createLogger('silent');
  const reference = await ReferenceStore.load(prisma);
  const catalogue = await CatalogueService.create(prisma, log);
  return { reference, footprint: new FootprintService(reference, catalogue, new CalculationWriter(prisma, log)) };
}

export async function seedDemo(
  prisma: PrismaClient,
  orgId: string,
  n: number,
  onProgress: (done: number, total: number) => void = () => {},
  options: SeedDemoOptions = {},
): Promise<SeedDemoResult> {
  const started = performance.now();
  if (!Number.isInteger(n) || n < 1 || n > MAX_SEED_ASSETS)
    throw invalidParameter('assets', `must be an integer from 1 to ${MAX_SEED_ASSETS}, got ${n}`);
  const org = await prisma.organization.findUnique({ where: { id: orgId }, select: { id: true } });
  if (!org) throw notFound('Organization', `no organization with id ${orgId}`);
  const random = prng(options.seed ?? Number.parseInt(randomBytes(4).toString('hex'), 16));
  const batchSize = options.batchSize ?? 25_000;

  const { reference, footprint } = options.services ?? (await footprintService(prisma));
  // Anonymous: nothing is recorded by the service; this function writes the calculations itself.
  const anonymous = anonymousCaller('seed-demo');

  const categories = Object.keys(CATEGORY_WEIGHTS);
  const products = await prisma.product.findMany({
    where: { category: { in: categories } },
    select: { id: true, brand: true, mpn: true, category: true },
    orderBy: [{ category: 'asc' }, { release_year: { sort: 'desc', nulls: 'last' } }, { mpn: 'asc' }],
  });
  const devices: {
    category: string;
    brand: string;
    mpn: string | null;
    model: string | null;
    product_id: string | null;
    weight: number;
  }[] = [];
  for (const category of categories) {
    const listed = products.filter((p) => p.category === category).slice(0, PRODUCTS_PER_CATEGORY);
    const unlisted = UNLISTED.includes(category) ? 1 : 0;
    const each = CATEGORY_WEIGHTS[category]! / Math.max(1, listed.length + unlisted);
    for (const p of listed) devices.push({ category, brand: p.brand, mpn: p.mpn, model: null, product_id: p.id, weight: each });
    if (unlisted || listed.length === 0)
      devices.push({
        category,
        brand: 'Unbranded',
        mpn: null,
        model: `Unlisted ${category.replaceAll('_', ' ')}`,
        product_id: null,
        weight: each,
      });
  }
  const countries = Object.entries(COUNTRY_WEIGHTS).filter(([code]) => reference.gridFactor(code));
  const nothingCalculable = () => new Error('seed-demo: no device could be calculated (is the reference data loaded?)');
  if (countries.length === 0) throw nothingCalculable();

  // Footprints are calculated as the draws need them: a sandbox's 120 assets use about a hundred of the
  // thousands of device and country combinations, too many to calculate on a first request.
  const combos: Combo[] = [];
  /** `${device}|${country}` → its index in combos, or null when it cannot be calculated. */
  const comboIndex = new Map<string, number | null>();
  const comboOf = async (d: number, country: string): Promise<number | undefined> => {
    const key = `${d}|${country}`;
    if (comboIndex.has(key)) return comboIndex.get(key) ?? undefined;
    const device = devices[d]!;
    const query = { brand: device.brand, mpn: device.mpn, model: device.model, category: device.category, country };
    const response = await footprint.footprint(query, anonymous).catch(() => undefined);
    const factor = reference.gridFactor(country);
    if (!response || !factor) {
      comboIndex.set(key, null);
      if (comboIndex.size === devices.length * countries.length && combos.length === 0) throw nothingCalculable();
      return undefined;
    }
    comboIndex.set(key, combos.length);
    combos.push({
      i: combos.length,
      brand: device.brand,
      mpn: device.mpn,
      model: device.model,
      category: response.product.category,
      country: response.country,
      product_id: device.product_id,
      grid_factor_id: factor.id,
      confidence: response.methodology.confidence,
      engine_version: response.methodology.engine_version,
      total_kg_co2e: response.total_kg_co2e,
      ...response.breakdown,
      inputs: { ...query, seed_demo: true },
      result: { ...response, calculation_id: undefined },
    });
    return combos.length - 1;
  };

  const pickDevice = weighted(devices.map((item, i) => ({ item: i, weight: item.weight })));
  const pickCountry = weighted(countries.map(([code, weight]) => ({ item: code, weight })));
  const pickStatus = weighted(Object.entries(STATUS_WEIGHTS).map(([item, weight]) => ({ item, weight })));
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const spanDays = Math.round(PURCHASE_YEARS * 365.25);

  const prefix = `DEMO-${randomBytes(3).toString('hex').toUpperCase()}-`;
  let done = 0;
  while (done < n) {
    const size = Math.min(batchSize, n - done);
    const rows: { n: number; c: number; s: string; d: string }[] = new Array(size);
    const used = new Set<number>();
    for (let j = 0; j < size; j++) {
      let c: number | undefined;
      while (c === undefined) c = await comboOf(pickDevice(random()), pickCountry(random()));
      used.add(c);
      const day = today - (1 + Math.floor(random() * spanDays)) * 86_400_000;
      rows[j] = { n: done + j + 1, c, s: pickStatus(random()), d: new Date(day).toISOString().slice(0, 10) };
    }
    // Only the combinations this batch uses: each carries its whole footprint response.
    await prisma.$queryRawUnsafe(INSERT_BATCH, JSON.stringify([...used].map((c) => combos[c])), JSON.stringify(rows), orgId, prefix);
    done += size;
    onProgress(done, n);
  }
  await prisma.$executeRawUnsafe('ANALYZE assets');
  await prisma.$executeRawUnsafe('ANALYZE calculations');
  return { org_id: orgId, assets: n, combinations: combos.length, serial_prefix: prefix, ms: Math.round(performance.now() - started) };
}
