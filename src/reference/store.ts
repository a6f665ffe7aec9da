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
    const [regions, factors, categories] = await Promise.all([
      prisma.region.findMany({ orderBy: { code: 'asc' } }),
      prisma.emissionFactor.findMany({
        where: { type: 'GRID' },
        orderBy: [{ region_code: 'asc' }, { valid_from: 'desc' }],
        select: { id: true, region_code: true, value: true, valid_from: true, valid_to: true, source: true, source_version: true },
      }),
      prisma.deviceCategory.findMany({ orderBy: { id: 'asc' } }),
    ]);
    const byRegion = new Map<string, RegionFactor>(regions.map((r) => [r.code, { ...r, factors: [] }]));
    for (const { region_code, ...factor } of factors) byRegion.get(region_code)?.factors.push(factor);
    return new ReferenceStore(
      byRegion,
      categories.map((c) => ({
        category: c.id,
        name: c.name,
        group: c.group,
        lifetime_years: c.lifetime_years,
        fallback_kwh_per_year: c.fallback_kwh_per_year,
      })),
    );
  }

  /** The grid factor of a region valid at `at` (the same rule as factorByRegion). */
  gridFactor(regionCode: string, at: Date = new Date()): FactorSnapshot | undefined {
    return vintageAt(this.regions.get(regionCode)?.factors ?? [], at);
  }
}
