import type { PrismaClient } from '../db/database.ts';

/**
 * The organisation's current lifecycle total: the sum of its assets' active-calculation totals (kg CO2e,
 * rounded to 0.01), and the number of assets. GraphQL Organization and the console dashboard both read it here.
 */
export async function organizationOverview(prisma: PrismaClient): Promise<{ asset_count: number; total_kg_co2e: number }> {
  const [assetCount, sum] = await Promise.all([prisma.asset.count(), prisma.asset.aggregate({ _sum: { total_kg_co2e: true } })]);
  return { asset_count: assetCount, total_kg_co2e: Math.round((sum._sum.total_kg_co2e ?? 0) * 100) / 100 };
}
