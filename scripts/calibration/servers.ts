/**
 * Servers (issue 40.3): the configuration manufacturers' footprint sheets of servers assume, and the
 * cross-validated accuracy of servers asked by name only.
 *
 * `sheetConfiguration` gives the medians of memory and storage and the most frequent storage type
 * the server sheets of the calibration set state: data/categories.json `sheet_configuration` of the
 * server categories (a coefficient of the category, no per-model value; test/calibration-servers.test.ts
 * checks it against the set), and `sheetYearLag` the years from a server model's release to its sheet's date.
 * `serversByName` asks every server of the set by brand and name only,
 * through the lookup chain a footprint uses, with parameters, sheet configuration and lag taken from the
 * other folds (folds by PCF document, as `npm run accuracy`).
 */
import type { PrismaClient } from '../../src/db/database.ts';
import { CatalogueService } from '../../src/catalogue/service.ts';
import { resolveDevice } from '../../src/footprint/device.ts';
import {
  type EngineParameters,
  SHEET_CONFIGURATION_FIELDS,
  type SheetConfiguration,
  type StorageType,
  insideInterval,
} from '../../src/footprint/engine/index.ts';
import { footprintModelOf } from '../../src/footprint/service.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { CALIBRATION_PATH, type CalibrationRow, readCalibrationRecords } from './load.ts';
import { K_FOLDS, defaultParameters, fitParameters, median, percentile, useRegionCode } from './model.ts';
import type { PreparedRow } from './prepared-row.ts';

/** The engine's server categories: one sheet configuration for the three forms (too few tower and blade sheets for their own). */
export const SERVER_CATEGORIES: readonly string[] = ['server', 'tower_server', 'blade_server'];

/** Medians of the memory and storage the server sheets among `rows` state, and their most frequent storage type. */
export function sheetConfiguration(rows: readonly CalibrationRow[]): SheetConfiguration {
  const servers = rows.filter((r) => SERVER_CATEGORIES.includes(r.category_id));
  const values = (f: 'ram_gb' | 'storage_gb') => servers.map((r) => r.specs[f]).filter((v): v is number => v !== undefined);
  const types = new Map<StorageType, number>();
  for (const r of servers) if (r.specs.storage_type) types.set(r.specs.storage_type, (types.get(r.specs.storage_type) ?? 0) + 1);
  const [storage_type] = [...types].sort((a, b) => b[1] - a[1])[0] ?? ['hdd'];
  return {
    ram_gb: median(values('ram_gb')),
    storage_gb: median(values('storage_gb')),
    storage_type,
    sheets: servers.filter((r) => r.specs.ram_gb !== undefined || r.specs.storage_gb !== undefined || r.specs.storage_type).length,
  };
}

/**
 * Years from the catalogue's release year of a server model to its footprint sheet's date (the year the
 * fit's year terms stand for), median over the server sheets among `rows` whose names resolve exactly to
 * one catalogue server with a release year: data/categories.json `sheet_year_lag` of the server categories.
 */
export async function sheetYearLag(
  catalogue: CatalogueService,
  records: readonly Record<string, string>[],
  rows: readonly CalibrationRow[],
): Promise<{ lag: number; n: number }> {
  const lags: number[] = [];
  for (const row of rows) {
    const record = records[row.index - 1]!;
    const brand = record.manufacturer?.trim() ?? '';
    const name = record.name?.trim() ?? '';
    if (!brand || !name || row.release_year === null) continue;
    const match = await catalogue.find(brand, null, name);
    if (!match?.entry.release_year || !SERVER_CATEGORIES.includes(match.entry.category)) continue;
    if (match.match && match.match.status !== 'exact') continue;
    lags.push(row.release_year - match.entry.release_year);
  }
  return { lag: median(lags), n: lags.length };
}

export interface ServersByName {
  /** servers of the set with an embodied value, asked by name */
  n: number;
  /** of them, found in the catalogue */
  resolved: number;
  /** held-out embodied absolute percentage error, percent */
  median: number;
  p80: number;
  /** share of manufacturer values inside the stated embodied interval around the held-out estimate, percent */
  coverage_pct: number;
  /** median of estimate / published - 1, percent (the sign says over or under) */
  median_signed_pct: number;
}

/**
 * Every server sheet of the set (sheet subcategory Server) asked by brand and name only: the
 * held-out embodied estimate against the manufacturer's, and whether the stated interval holds it.
 */
export async function serversByName(prepared: readonly PreparedRow[], path = CALIBRATION_PATH): Promise<ServersByName> {
  const prisma = { $queryRaw: async () => [{ products: null }] } as unknown as PrismaClient;
  const catalogue = await CatalogueService.create(prisma, createLogger('silent'));
  const records = readCalibrationRecords(path);
  const folds: { params: EngineParameters; sheet: SheetConfiguration; lag: number }[] = [];
  for (let k = 0; k < K_FOLDS; k++) {
    const training = prepared.filter((p) => p.fold !== k);
    folds.push({
      params: fitParameters(training, defaultParameters()),
      sheet: sheetConfiguration(training.map((p) => p.row)),
      lag: (
        await sheetYearLag(
          catalogue,
          records,
          training.map((p) => p.row),
        )
      ).lag,
    });
  }
  const apes: number[] = [];
  const signed: number[] = [];
  let covered = 0;
  let resolved = 0;
  for (const p of prepared) {
    const { row } = p;
    if (row.source_subcategory !== 'Server' || row.embodied === null) continue;
    const record = records[row.index - 1]!;
    const brand = record.manufacturer?.trim() ?? '';
    const name = record.name?.trim() ?? '';
    const match = await catalogue.find(brand, null, name);
    const { device } = resolveDevice({ brand, model: name }, match);
    if (!device) continue;
    const fold = folds[p.fold]!;
    // The lookup chain filled an unstated configuration with the set-wide medians, and moved the release year by the
    // set-wide lag: the other folds' stand in.
    const shipped = device.category.sheet_configuration;
    const specs = { ...device.specs };
    if (shipped) for (const f of SHEET_CONFIGURATION_FIELDS) if (specs[f] === shipped[f]) Object.assign(specs, { [f]: fold.sheet[f] });
    const heldOut = { ...device, specs, category: { ...device.category, sheet_year_lag: fold.lag } };
    // The sheet's use location sets the transport route, as in the fit (useRegionCode).
    const region = useRegionCode(row.use_location);
    const fp = footprintModelOf(heldOut, region, row.grid_factor, fold.params);
    const estimate = fp.breakdown.production_kg + fp.breakdown.transport_kg + fp.breakdown.end_of_life_kg;
    // The interval a caller sees: the stated uncertainty of the embodied footprint (no use phase).
    const stated = footprintModelOf(device, region, 0);
    if (match) resolved++;
    apes.push((Math.abs(estimate - row.embodied) / row.embodied) * 100);
    signed.push((estimate / row.embodied - 1) * 100);
    if (insideInterval(estimate, row.embodied, stated.uncertainty_pct)) covered++;
  }
  return {
    n: apes.length,
    resolved,
    median: median(apes),
    p80: percentile(apes, 80),
    coverage_pct: (100 * covered) / Math.max(apes.length, 1),
    median_signed_pct: median(signed),
  };
}

export function formatServersByName(s: ServersByName): string {
  return `servers asked by brand and name only (sheet subcategory Server, ${K_FOLDS}-fold cross-validated, sheet configuration and release-to-sheet lag from the other folds): n ${s.n} (${s.resolved} found in the catalogue), embodied APE median ${s.median.toFixed(1)}, p80 ${s.p80.toFixed(1)}, signed median ${s.median_signed_pct.toFixed(0)}%; coverage of the stated embodied interval ${s.coverage_pct.toFixed(1)}% (target 80 +/- 5)`;
}
