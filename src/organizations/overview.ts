import type { PrismaClient } from '../db/database.ts';
import { criterionRounding } from '../footprint/engine/impacts.ts';

export interface OrganizationOverview {
  asset_count: number;
  total_kg_co2e: number;
  /** Sums over the impacts_asset_count assets whose active calculation carries ADPe and PE; null when none does. */
  adpe_kg_sb_eq: number | null;
  pe_mj: number | null;
  impacts_asset_count: number;
}

/**
 * The organisation's current lifecycle totals: the sums of its assets' active-calculation totals (kg CO2e,
 * rounded to 0.01; ADPe and PE to 4 significant digits, as a calculation's and a report's), and the number of
 * assets. An asset without ADPe and PE (not calculated, or calculated before them) is left out of those sums,
 * never counted as 0: impacts_asset_count says how many are in. GraphQL Organization and the console dashboard
 * both read it here.
 */
export async function organizationOverview(prisma: PrismaClient): Promise<OrganizationOverview> {
  const [assetCount, sum] = await Promise.all([
    prisma.asset.count(),
    prisma.asset.aggregate({ _sum: { total_kg_co2e: true, adpe_kg_sb_eq: true, pe_mj: true }, _count: { adpe_kg_sb_eq: true } }),
  ]);
  const withImpacts = sum._count.adpe_kg_sb_eq;
  const criterion = (c: 'adpe' | 'pe', total: number | null) => (withImpacts === 0 || total === null ? null : criterionRounding(c)(total));
  return {
    asset_count: assetCount,
    total_kg_co2e: Math.round((sum._sum.total_kg_co2e ?? 0) * 100) / 100,
    adpe_kg_sb_eq: criterion('adpe', sum._sum.adpe_kg_sb_eq),
    pe_mj: criterion('pe', sum._sum.pe_mj),
    impacts_asset_count: withImpacts,
  };
}
