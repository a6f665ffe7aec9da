import type { PrismaClient } from '../db/database.ts';
import { vintageAt } from '../factors/lookup.ts';

export interface RegionFactor {
  code: string;
  name: string;
  kind: string;
  parent_code: string | null;
  /** Factors of this region, newest vintage first. */
  factors: FactorSnapshot[];
}

export interface FactorSnapshot {
  id: string;
  value: number;
  valid_from: Date;
  valid_to: Date | null;
  source: string;
  source_version: string;
}

export interface CategorySnapshot {
  category: string;
  name: string;
  group: string;
  lifetime_years: number;
  fallback_kwh_per_year: number;
}

type RegionRow = [code: string, name: string, kind: string, parent_code: string | null];
/** valid_from and valid_to as JSON renders a date: YYYY-MM-DD */
type FactorRow = [
  id: string,
  region_code: string,
  value: number,
  valid_from: string,
  valid_to: string | null,
  source: string,
  source_version: string,
];
type CategoryRow = [id: string, name: string, group: string, lifetime_years: number, fallback_kwh_per_year: number];

/**
 * Reference data held in memory: it changes only when a new data release is loaded at
 * start-up, and every calculation reads it, so the hot path never queries it.
 */
export class ReferenceStore {
  private constructor(
    readonly regions: ReadonlyMap<string, RegionFactor>,
    readonly categories: readonly CategorySnapshot[],
  ) {}

  static async load(prisma: PrismaClient): Promise<ReferenceStore> {
    // One statement whose three columns are JSON arrays: on a restart this read is on the path to the
    // first answer, and three findMany calls would be slower (Prisma compiles each query shape, and
    // PGlite parses every value of every row in JavaScript).
    const [rows] = await prisma.$queryRaw<[{ regions: RegionRow[]; factors: FactorRow[]; categories: CategoryRow[] }]>`
      SELECT
        (SELECT json_agg(json_build_array(code, name, kind, parent_code) ORDER BY code) FROM regions) AS regions,
        (SELECT json_agg(json_build_array(id, region_code, value, valid_from, valid_to, source, source_version))
           FROM emission_factors WHERE type = 'GRID') AS factors,
        (SELECT json_agg(json_build_array(id, name, "group", lifetime_years, fallback_kwh_per_year) ORDER BY id) FROM device_categories) AS categories`;
    const byRegion = new Map<string, RegionFactor>(
      (rows.regions ?? []).map(([code, name, kind, parent_code]) => [code, { code, name, kind, parent_code, factors: [] }]),
    );
    for (const [id, regionCode, value, validFrom, validTo, source, sourceVersion] of rows.factors ?? []) {
      byRegion.get(regionCode)?.factors.push({
        id,
        value,
        valid_from: new Date(validFrom),
        valid_to: validTo === null ? null : new Date(validTo),
        source,
        source_version: sourceVersion,
      });
    }
    for (const region of byRegion.values()) region.factors.sort((a, b) => b.valid_from.getTime() - a.valid_from.getTime());
    return new ReferenceStore(
      byRegion,
      (rows.categories ?? []).map(([category, name, group, lifetime_years, fallback_kwh_per_year]) => ({
        category,
        name,
        group,
        lifetime_years,
        fallback_kwh_per_year,
      })),
    );
  }

  /** The grid factor of a region valid at `at` (the same rule as factorByRegion). */
  gridFactor(regionCode: string, at: Date = new Date()): FactorSnapshot | undefined {
    return vintageAt(this.regions.get(regionCode)?.factors ?? [], at);
  }
}
