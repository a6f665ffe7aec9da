/**
 * The calibration products asked as an inventory knows them (`npm run accuracy`): by brand and the
 * name printed on the manufacturer's sheet, optionally with a purchase date, through the lookup
 * chain a footprint uses (CatalogueService.find → resolveDevice → footprintModelOf), in-process,
 * with parameters fitted without the row's PCF document (cross-validated). Also measures the lag
 * between the catalogue's release years and the sheets' dates that the purchase-date rule uses
 * (src/footprint/release-year.ts).
 */
import type { PrismaClient } from '../../src/db/database.ts';
import { CatalogueService } from '../../src/catalogue/service.ts';
import { resolveDevice } from '../../src/footprint/device.ts';
import { footprintModelOf } from '../../src/footprint/service.ts';
import { yearOfDate } from '../../src/footprint/engine/brand.ts';
import { insideInterval, type EngineParameters } from '../../src/footprint/engine/index.ts';
import { createLogger } from '../../src/observability/logger.ts';
import type { CalibrationRow } from './load.ts';
import { percentile } from './model.ts';
import type { PreparedRow } from './prepared-row.ts';

/** Use regions of the sheets' use locations (transport route). */
export const REGION: Record<string, string> = { EU: 'DE', US: 'US', 'NORTH AMERICA': 'US' };

export interface NameAnswer {
  row: CalibrationRow;
  /** held-out embodied estimate (production + transport + end of life), kg */
  estimate: number;
  /** embodied uncertainty_pct the answer states (shipped uncertainty parameters) */
  uncertaintyPct: number;
  /** where the release year came from (undefined: none) */
  yearBasis: string | undefined;
}

export interface NameAsk {
  /** the sheet's year plus this many years as the unit's purchase date (0: bought when its sheet was published); none when absent */
  boughtYearsAfterSheet?: number;
}

/** The catalogue as the service builds it, without a database (built-in devices only). */
export function builtInCatalogue(): Promise<CatalogueService> {
  const prisma = { $queryRaw: async () => [{ products: null }] } as unknown as PrismaClient;
  return CatalogueService.create(prisma, createLogger('silent'));
}

/** Every row with a brand, a name and a published embodied value, asked by name (and purchase date). */
export async function askByName(
  catalogue: CatalogueService,
  records: Record<string, string>[],
  prepared: PreparedRow[],
  heldOut: EngineParameters[],
  ask: NameAsk,
): Promise<NameAnswer[]> {
  const out: NameAnswer[] = [];
  for (const p of prepared) {
    const row = p.row;
    const rec = records[row.index - 1]!;
    const brand = rec.manufacturer?.trim() ?? '';
    const name = rec.name?.trim() ?? '';
    if (!brand || !name || row.embodied === null) continue;
    const bought =
      ask.boughtYearsAfterSheet !== undefined && row.release_year !== null ? `${row.release_year + ask.boughtYearsAfterSheet}-07-01` : null;
    const { device } = resolveDevice({ brand, model: name, purchase_date: bought }, await catalogue.find(brand, null, name));
    if (!device) continue;
    const fp = footprintModelOf(device, REGION[row.use_location.toUpperCase()] ?? 'WORLD', row.grid_factor, heldOut[p.fold]);
    // With no use phase the stated uncertainty is the embodied one.
    const stated = footprintModelOf(device, 'WORLD', 0);
    out.push({
      row,
      estimate: fp.breakdown.production_kg + fp.breakdown.transport_kg + fp.breakdown.end_of_life_kg,
      uncertaintyPct: stated.uncertainty_pct,
      yearBasis: device.release_year_basis,
    });
  }
  return out;
}

export interface NameStats {
  n: number;
  median: number;
  p80: number;
  /** share (%) of the published values inside the stated interval around the held-out estimate */
  coverage: number;
}

export function nameStats(answers: readonly NameAnswer[]): NameStats {
  const apes = answers.map((a) => (Math.abs(a.estimate - a.row.embodied!) / a.row.embodied!) * 100);
  const inside = answers.filter((a) => insideInterval(a.estimate, a.row.embodied!, a.uncertaintyPct)).length;
  return {
    n: answers.length,
    median: percentile(apes, 50),
    p80: percentile(apes, 80),
    coverage: answers.length ? (100 * inside) / answers.length : Number.NaN,
  };
}

/**
 * Years from the catalogue's release year of a model to its sheet's date, over the names that resolve
 * to one catalogue device with a year: the lag the purchase-date rule subtracts (its median) and its spread.
 */
export async function releaseToSheetLag(
  catalogue: CatalogueService,
  records: Record<string, string>[],
): Promise<{ n: number; median: number; atMedian: number; within1: number; within2: number }> {
  const lags: number[] = [];
  for (const rec of records) {
    const brand = rec.manufacturer?.trim() ?? '';
    const name = rec.name?.trim() ?? '';
    const sheetYear = yearOfDate(rec.report_date);
    if (!brand || !name || sheetYear === null) continue;
    const match = await catalogue.find(brand, null, name);
    if (!match?.entry.release_year || (match.match && match.match.status !== 'exact')) continue;
    lags.push(sheetYear - match.entry.release_year);
  }
  const median = percentile(lags, 50);
  const share = (ok: (d: number) => boolean) => (100 * lags.filter((l) => ok(Math.abs(l - median))).length) / Math.max(lags.length, 1);
  return { n: lags.length, median, atMedian: share((d) => d === 0), within1: share((d) => d <= 1), within2: share((d) => d <= 2) };
}
