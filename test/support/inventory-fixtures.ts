import type { PrismaClient } from '../../src/db/database.ts';

/** Midnight UTC of a YYYY-MM-DD day. */
export const day = (d: string) => new Date(`${d}T00:00:00Z`);

/** An asset of the period inventory's tests, with the figures of its one calculation; dates are YYYY-MM-DD. */
/** An asset row of one Dell Latitude 5440 in Germany bought 2024-03-10, for import requests; `extra` overrides. */
export const device = (serial: string, extra: object = {}) => ({
  brand: 'Dell',
  model: 'Latitude 5440',
  serial_number: serial,
  country: 'DE',
  purchase_date: '2024-03-10',
  ...extra,
});

export interface AssetFixture {
  country: string;
  /** Default laptop. */
  category?: string;
  purchase?: string;
  /** When the asset was recorded (default 2024-12-01), its start in service when it has no purchase date. */
  recorded?: string;
  status?: 'in_use' | 'disposed' | 'recycled' | 'resold' | 'refurbished';
  kwh: number;
  production?: number;
  transport?: number;
  endOfLife?: number;
  /** Default 4 years. */
  lifetime?: number;
  uncertainty?: number;
  /** Default 2024-12-01. */
  calculatedAt?: string;
}

/**
 * Rows for the period inventory's tests, written straight to the database: emission factors of test-only
 * regions (XA, XB, ...) in a registry of their own named `registryKey`, assets with their calculation, and
 * dated status changes.
 */
export async function inventoryFixtures(prisma: PrismaClient, registryKey: string) {
  const registryId = (
    await prisma.factorRegistry.create({ data: { key: registryKey, display_name: 'Test fixtures', current_version: '2025' } })
  ).id;

  async function factor(type: 'GRID' | 'RESIDUAL_MIX', region: string, value: number, from: string, to: string | null = null) {
    await prisma.emissionFactor.create({
      data: {
        type,
        region_code: region,
        value,
        unit: 'kg CO2e/kWh',
        registry_id: registryId,
        source: 'Test fixture (fictional region)',
        source_version: from.slice(0, 4),
        valid_from: day(from),
        valid_to: to ? day(to) : null,
      },
    });
  }

  async function calculation(orgId: string, f: AssetFixture, assetId: string | null = null) {
    const production = f.production ?? 0;
    const transport = f.transport ?? 0;
    const endOfLife = f.endOfLife ?? 0;
    return prisma.calculation.create({
      data: {
        org_id: orgId,
        asset_id: assetId,
        engine_version: 'test',
        country: f.country,
        category: f.category ?? 'laptop',
        confidence: 'estimated_medium',
        total_kg_co2e: production + transport + endOfLife,
        production_kg: production,
        transport_kg: transport,
        use_phase_kg: 0,
        end_of_life_kg: endOfLife,
        inputs: {},
        result: { methodology: { annual_kwh: f.kwh, lifetime_years: f.lifetime ?? 4, uncertainty_pct: f.uncertainty ?? 0 } },
        created_at: day(f.calculatedAt ?? '2024-12-01'),
      },
    });
  }

  async function asset(orgId: string, f: AssetFixture): Promise<string> {
    const calc = await calculation(orgId, f);
    const created = await prisma.asset.create({
      data: {
        org_id: orgId,
        brand: 'Test',
        category: f.category ?? 'laptop',
        country: f.country,
        status: f.status ?? 'in_use',
        purchase_date: f.purchase ? day(f.purchase) : null,
        active_calculation_id: calc.id,
        total_kg_co2e: calc.total_kg_co2e,
        production_kg: calc.production_kg,
        use_phase_kg: 0,
        created_at: new Date(`${f.recorded ?? '2024-12-01'}T09:00:00Z`),
      },
    });
    await prisma.calculation.update({ where: { id: calc.id }, data: { asset_id: created.id } });
    return created.id;
  }

  async function statusChange(orgId: string, assetId: string, to: string, at: string) {
    await prisma.assetEvent.create({
      data: {
        org_id: orgId,
        asset_id: assetId,
        event: 'asset.status_changed',
        from_value: 'in_use',
        to_value: to,
        created_at: new Date(at),
      },
    });
  }

  return { factor, calculation, asset, statusChange };
}

export type InventoryFixtures = Awaited<ReturnType<typeof inventoryFixtures>>;
