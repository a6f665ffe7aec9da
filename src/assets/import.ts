/**
 * Asset import (POST /v1/assets, POST /v1/assets/csv, the GraphQL mutations and `lcf assets import`):
 * every row is checked, matched to a product and calculated through the footprint lookup chain
 * (FootprintService), and the good rows are written in one SQL statement that upserts the assets
 * by (org_id, serial_number), makes each row's new calculation its active calculation, links the
 * calculation to the asset, writes asset events and the asset_imports record. One statement is one
 * transaction: a row is either fully written (asset, active calculation, totals) or not at all.
 */
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '../db/database.ts';
import type { Services } from '../services.ts';
import type { KeyCaller } from '../auth/caller.ts';
import { ApiError } from '../errors/api-error.ts';
import { resolveDevice, type DeviceQuery } from '../footprint/device.ts';
import type { FootprintResponse } from '../footprint/service.ts';
import { closestRegionCodes, normaliseRegionCode } from '../reference/grid-data.ts';
import { normaliseRow, type AssetRow, type AssetRowInput, type RowProblem } from './import-rows.ts';
import { turn } from '../kernel/turn.ts';

export type ImportSource = 'json' | 'csv' | 'blancco';

export interface ImportRowError {
  /** 0-based position in the `assets` array (JSON imports); null for CSV. */
  index: number | null;
  /** 1-based data row, header not counted (CSV imports); null for JSON. */
  row: number | null;
  serial_number: string | null;
  field: string;
  reason: string;
}

export interface ImportedAsset {
  index: number | null;
  row: number | null;
  id: string;
  serial_number: string;
  action: 'created' | 'updated';
  calculation_id: string;
  total_kg_co2e: number;
}

export interface ImportOutcome {
  import_id: string;
  source: ImportSource;
  total_rows: number;
  created: number;
  updated: number;
  failed: number;
  errors: ImportRowError[];
  assets: ImportedAsset[];
}

interface ImportDeps {
  /** The caller's organisation-scoped client (ctx.prisma). Raw SQL below names org_id itself. */
  prisma: PrismaClient;
  services: Services;
  caller: KeyCaller;
}

const FOOTPRINT_CONCURRENCY = 8;
const FIELDS = [
  'brand',
  'mpn',
  'model',
  'category',
  'country',
  'weight_kg',
  'tdp',
  'processor_tdp_w',
  'ram_gb',
  'battery_wh',
  'screen_size_inch',
  'screen_type',
  'storage_gb',
  'storage_type',
  'remaining_years',
  'release_year',
];
const PROBLEM_SPLIT = new RegExp(`; (?=(?:${FIELDS.join('|')}): )`);

/** The problems of a 400 from the footprint service ("field: reason; field: reason"). */
export function problemsOf(error: ApiError): RowProblem[] {
  return error.details.split(PROBLEM_SPLIT).map((part) => {
    const at = part.indexOf(': ');
    return at > 0 ? { field: part.slice(0, at), reason: part.slice(at + 2) } : { field: 'row', reason: part };
  });
}

export function deviceQuery(
  row: Pick<AssetRow, 'brand' | 'mpn' | 'model' | 'category' | 'country' | 'specs'> & { purchase_date?: string | Date | null },
): DeviceQuery & { country: string | null } {
  const s = row.specs;
  return {
    brand: row.brand,
    mpn: row.mpn,
    model: row.model,
    category: row.category,
    country: row.country,
    weight_kg: s.weight_kg,
    tdp: s.tdp,
    ram_gb: s.ram_gb,
    battery_wh: s.battery_wh,
    screen_size_inch: s.screen_size_inch,
    screen_type: s.screen_type as DeviceQuery['screen_type'],
    storage_gb: s.storage_gb,
    storage_type: s.storage_type as DeviceQuery['storage_type'],
    release_year: s.release_year,
    // Absent rather than null, as the specs above: a calculation's stored inputs name only what was given.
    purchase_date: row.purchase_date ?? undefined,
  };
}

/** Checks the device columns (but the country) without recording anything: the same rules the footprint service applies. */
const deviceProblems = (query: DeviceQuery): readonly RowProblem[] => resolveDevice(query).problems;

/** Checks the country column as the footprint service does. */
function countryProblems(country: string | null, services: Services): readonly RowProblem[] {
  if (!country) return [{ field: 'country', reason: 'is required (ISO 3166-1 alpha-2 such as DE, or ISO 3166-2 such as US-CA)' }];
  const code = normaliseRegionCode(country);
  if (code && services.reference.gridFactor(code)) return [];
  return [
    { field: 'country', reason: `unknown region code '${country}'; closest valid codes: ${closestRegionCodes(country, 3).join(', ')}` },
  ];
}

/**
 * How long the row checks run before they give the event loop a turn. A batch's first rows are
 * checked by code not yet optimised (the first import of a process): 1 000 of them in one go held
 * the loop 0.3-1.4 s (docs/benchmarks.md, "The first import of a process").
 */
const CHECK_SLICE_MS = 10;

/**
 * `fn` over `items`, at most `limit` at a time. Each worker yields to the event loop after an item: a
 * footprint from warm caches resolves without I/O, so without the yield a 1 000-row import ran as one
 * task of several hundred ms and /healthz and readers waited behind it (docs/benchmarks.md, bench:import).
 */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
      await turn();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

const UPSERT = `
WITH input AS (
  SELECT * FROM json_to_recordset($1::json) AS r(ord int, brand text, mpn text, model text, serial_number text, status text,
    purchase_date date, specs jsonb, calculation_id uuid)
),
calc AS (
  SELECT i.*, c.category, c.country, c.product_id, c.total_kg_co2e, c.production_kg, c.use_phase_kg
  FROM input i JOIN calculations c ON c.id = i.calculation_id AND c.org_id = $2::uuid
),
old AS (
  SELECT a.id, a.status::text AS status FROM assets a
  WHERE a.org_id = $2::uuid AND a.serial_number IN (SELECT serial_number FROM input)
),
up AS (
  INSERT INTO assets AS a (id, org_id, brand, mpn, model, serial_number, category, status, purchase_date, country, specs, product_id,
    active_calculation_id, total_kg_co2e, production_kg, use_phase_kg, source, created_at, updated_at)
  SELECT gen_random_uuid(), $2::uuid, brand, mpn, model, serial_number, category, status::"AssetStatus", purchase_date, country, specs, product_id,
    calculation_id, total_kg_co2e, production_kg, use_phase_kg, $3, now(), now()
  FROM calc
  ON CONFLICT (org_id, serial_number) DO UPDATE SET brand = EXCLUDED.brand, mpn = EXCLUDED.mpn, model = EXCLUDED.model,
    category = EXCLUDED.category, status = EXCLUDED.status, purchase_date = EXCLUDED.purchase_date, country = EXCLUDED.country,
    specs = EXCLUDED.specs, product_id = EXCLUDED.product_id, active_calculation_id = EXCLUDED.active_calculation_id,
    total_kg_co2e = EXCLUDED.total_kg_co2e, production_kg = EXCLUDED.production_kg, use_phase_kg = EXCLUDED.use_phase_kg,
    source = EXCLUDED.source, updated_at = now()
  RETURNING a.id, a.serial_number, a.active_calculation_id, a.status::text AS status
),
link AS (
  UPDATE calculations c SET asset_id = up.id FROM up WHERE c.id = up.active_calculation_id AND c.org_id = $2::uuid
  RETURNING c.id
),
events AS (
  INSERT INTO asset_events (id, org_id, asset_id, event, from_value, to_value, data, created_at)
  SELECT gen_random_uuid(), $2::uuid, up.id, CASE WHEN old.id IS NULL THEN 'asset.created' ELSE 'asset.status_changed' END,
    old.status, up.status, jsonb_build_object('import_id', $4::text), now()
  FROM up LEFT JOIN old ON old.id = up.id
  WHERE old.id IS NULL OR old.status <> up.status
  RETURNING 1
),
imported AS (
  INSERT INTO asset_imports (id, org_id, source, total_rows, created, updated, failed, errors, created_at)
  SELECT $4::uuid, $2::uuid, $8, $5::int, count(*) FILTER (WHERE old.id IS NULL), count(*) FILTER (WHERE old.id IS NOT NULL),
    $6::int + ((SELECT count(*) FROM input) - count(*))::int, $7::jsonb, now()
  FROM up LEFT JOIN old ON old.id = up.id
  RETURNING id
)
SELECT up.id, up.serial_number, (old.id IS NULL) AS created, (SELECT count(*) FROM link)::int AS linked
FROM up LEFT JOIN old ON old.id = up.id`;

/** A row that passed every check and was calculated (its calculation committed), ready to be written. */
export interface PreparedRow {
  position: { index: number | null; row: number | null };
  row: AssetRow;
  response?: FootprintResponse;
}

/** Every row checked and, when good, calculated through the lookup chain; nothing about assets written yet. */
export interface PreparedImport {
  source: ImportSource;
  total_rows: number;
  /** Good rows, in input order. */
  rows: PreparedRow[];
  errors: ImportRowError[];
  /** Input positions (0-based) of rows that failed. */
  failedRows: Set<number>;
}

const positionIndex = (p: PreparedRow['position']) => p.index ?? p.row! - 1;

/**
 * The first half of an import: row checks, then the footprint of every good row through the lookup
 * chain, its calculation recorded (and committed) before this resolves. Callers that must write the
 * assets together with rows of their own (erasure sync) call writeImport inside their transaction.
 */
export async function prepareImport(
  services: Services,
  caller: KeyCaller,
  items: readonly AssetRowInput[],
  source: ImportSource,
  refused: ReadonlyMap<number, readonly RowProblem[]> = new Map(),
): Promise<PreparedImport> {
  // The catalogue's index and readings of names, a share per turn, when this import comes before the
  // warm-up has built them: built in one go inside the rows' resolution, they held every request ~0.5 s.
  await services.catalogue.warm();
  const errors: ImportRowError[] = [];
  const failedRows = new Set<number>();
  const pending: PreparedRow[] = [];
  const firstSeen = new Map<string, number>();
  const today = new Date();
  // Rows of one device (thousands in an estate) are checked once, and so are rows of one country. The
  // purchase date, which nearly every row has its own, is not read by these checks (normaliseRow checks it).
  const deviceChecked = new Map<string, readonly RowProblem[]>();
  const countryChecked = new Map<string | null, readonly RowProblem[]>();
  const deviceChecks = (row: AssetRow) => {
    const { purchase_date: _date, country, ...device } = deviceQuery(row);
    const key = JSON.stringify(device);
    let ofDevice = deviceChecked.get(key);
    if (!ofDevice) deviceChecked.set(key, (ofDevice = deviceProblems(device)));
    let ofCountry = countryChecked.get(country);
    if (!ofCountry) countryChecked.set(country, (ofCountry = countryProblems(country, services)));
    return [...ofDevice, ...ofCountry];
  };

  let sliceStart = performance.now();
  for (let i = 0; i < items.length; i++) {
    if (performance.now() - sliceStart > CHECK_SLICE_MS) {
      await turn();
      sliceStart = performance.now();
    }
    const item = items[i]!;
    const position = source === 'csv' ? { index: null, row: i + 1 } : { index: i, row: null };
    const fail = (serial: string | null, problems: RowProblem[]) => {
      failedRows.add(i);
      for (const p of problems) errors.push({ ...position, serial_number: serial, field: p.field, reason: p.reason });
    };
    const refusal = refused.get(i);
    // Refused before it reached us (a wrongly typed, unknown or over-long field: src/rest/item-refusals.ts); the item is a stand-in.
    if (refusal !== undefined) {
      fail(
        null,
        refusal.map((p) => ({ field: p.field || 'row', reason: p.reason })),
      );
      continue;
    }
    const serial = item.serial_number === undefined || item.serial_number === null ? null : String(item.serial_number).trim() || null;
    const checked = normaliseRow(item, today);
    const problems = [...checked.problems, ...deviceChecks(checked.row)];
    if (serial !== null) {
      const first = firstSeen.get(serial);
      if (first !== undefined) {
        problems.push({
          field: 'serial_number',
          reason: `'${serial}' appears more than once in this import (first at ${source === 'csv' ? `row ${first + 1}` : `index ${first}`}); each serial number is one asset`,
        });
      } else firstSeen.set(serial, i);
    }
    if (problems.length) fail(serial, problems);
    else pending.push({ position, row: checked.row });
  }

  // Each good row is calculated (and its calculation recorded) through the lookup chain. Rows are
  // calculated while earlier ones are stored; all must be committed before the assets refer to them.
  const stored: Promise<unknown>[] = [];
  const footprintRecording = services.footprint.bulkRecording(caller);
  await mapLimited(pending, FOOTPRINT_CONCURRENCY, async (p) => {
    try {
      // Scoped to the asset: assets with the same data keep a calculation each; importing an asset unchanged stores nothing new.
      const { response, recorded } = await footprintRecording(deviceQuery(p.row), `asset:${p.row.serial_number}`);
      p.response = response;
      // calculation_id stays null when the calculation could not be stored: the row is reported as failed by writeImport.
      stored.push(recorded);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      failedRows.add(positionIndex(p.position));
      for (const problem of problemsOf(error)) errors.push({ ...p.position, serial_number: p.row.serial_number, ...problem });
    }
  });
  await Promise.all(stored);
  return { source, total_rows: items.length, rows: pending.filter((p) => p.response), errors, failedRows };
}

export async function importAssets(
  { prisma, services, caller }: ImportDeps,
  items: readonly AssetRowInput[],
  source: ImportSource,
  refused?: ReadonlyMap<number, readonly RowProblem[]>,
): Promise<ImportOutcome> {
  return writeImport(prisma, caller, await prepareImport(services, caller, items, source, refused));
}

/**
 * The second half: one statement upserting the prepared rows' assets (by serial number), making
 * each new calculation active, and recording the import. `prisma` may be a transaction client.
 */
export async function writeImport(
  prisma: Pick<PrismaClient, '$queryRawUnsafe' | 'assetImport'>,
  caller: KeyCaller,
  prepared: PreparedImport,
): Promise<ImportOutcome> {
  const { source, errors, failedRows } = prepared;
  const good = prepared.rows;
  const importId = randomUUID();
  const sortErrors = () => errors.sort((a, b) => (a.index ?? a.row!) - (b.index ?? b.row!));

  if (good.length === 0) {
    sortErrors();
    await prisma.assetImport.create({
      data: {
        id: importId,
        org_id: caller.orgId,
        source,
        total_rows: prepared.total_rows,
        created: 0,
        updated: 0,
        failed: failedRows.size,
        errors: errors as never,
      },
    });
    return {
      import_id: importId,
      source,
      total_rows: prepared.total_rows,
      created: 0,
      updated: 0,
      failed: failedRows.size,
      errors,
      assets: [],
    };
  }

  const input = good.map((p, ord) => ({
    ord,
    brand: p.row.brand,
    mpn: p.row.mpn,
    model: p.row.model,
    serial_number: p.row.serial_number,
    status: p.row.status,
    purchase_date: p.row.purchase_date,
    specs: p.row.specs,
    calculation_id: p.response!.calculation_id,
  }));
  // A calculation the writer could not store leaves its row out of the statement: reported below.
  const bySerial = new Map(good.map((p) => [p.row.serial_number, p]));
  const expectedFailures = failedRows.size;
  sortErrors();
  const rows = await prisma.$queryRawUnsafe<{ id: string; serial_number: string; created: boolean }[]>(
    UPSERT,
    JSON.stringify(input),
    caller.orgId,
    `import:${source}`,
    importId,
    prepared.total_rows,
    expectedFailures,
    JSON.stringify(errors),
    source,
  );
  const assets: ImportedAsset[] = rows.map((r) => {
    const p = bySerial.get(r.serial_number)!;
    return {
      ...p.position,
      id: r.id,
      serial_number: r.serial_number,
      action: r.created ? 'created' : 'updated',
      calculation_id: p.response!.calculation_id!,
      total_kg_co2e: p.response!.total_kg_co2e,
    };
  });
  const written = new Set(rows.map((r) => r.serial_number));
  for (const p of good) {
    if (written.has(p.row.serial_number)) continue;
    failedRows.add(positionIndex(p.position));
    errors.push({
      ...p.position,
      serial_number: p.row.serial_number,
      field: 'row',
      reason: 'the calculation could not be stored; nothing was written for this row, import it again',
    });
  }
  sortErrors();
  assets.sort((a, b) => (a.index ?? a.row!) - (b.index ?? b.row!));
  const created = assets.filter((a) => a.action === 'created').length;
  return {
    import_id: importId,
    source,
    total_rows: prepared.total_rows,
    created,
    updated: assets.length - created,
    failed: failedRows.size,
    errors,
    assets,
  };
}
