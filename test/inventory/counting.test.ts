import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { inventoryFixtures } from '../support/inventory-fixtures.ts';
import type { PrismaClient } from '../../src/db/database.ts';
import { periodEmissionRows, periodInventory, type InventoryRequest } from '../../src/inventory/inventory.ts';

/**
 * Each row of the period inventory counts an asset once, however many pieces of its figures fall in the row:
 * days on both sides of a vintage change or an instrument's first and last day inside one month, an asset
 * bought and gone within a month, an asset with no day in service, linear spread and the rest recognised on
 * disposal in the same month. Test-only region XD: grid 0.4 kg/kWh until 2025-03-15, then 0.2; certificates
 * for half of its consumption from 2025-05-10 to 2025-08-20. Assets (365.25 kWh a year: 1 kWh a day; lifetime
 * 4 years = 1 461 days):
 *   P  laptop   bought 2024-01-01, in use; production 146.1 (0.1 a day when spread)
 *   Q  laptop   bought 2025-03-20, disposed 2025-03-25; production 100, transport 10, end of life 5
 *   R  laptop   bought and disposed 2025-06-15: no day in service; production 50, transport 5, end of life 2
 *   S  desktop  bought 2025-02-20, its disposal dated 2025-02-10 (before): no day in service; production 20, end of life 1
 */
let t: TestApp;
let prisma: PrismaClient;
let orgId: string;
const YEAR_2025: InventoryRequest = { dateFrom: '2025-01-01', dateTo: '2025-12-31', method: 'acquisition', restate: false };

const inventory = (request: Partial<InventoryRequest> = {}) => periodInventory(prisma, orgId, { ...YEAR_2025, ...request });

beforeAll(async () => {
  t = await createTestApp();
  prisma = t.app.services.db.prisma;
  const fixtures = await inventoryFixtures(prisma, 'test-inventory-counting');
  await fixtures.factor('GRID', 'XD', 0.4, '2024-01-01', '2025-03-15');
  await fixtures.factor('GRID', 'XD', 0.2, '2025-03-16');
  orgId = (await t.createOrg('business', 'Inventory counting')).id;
  await prisma.contractualInstrument.create({
    data: {
      org_id: orgId,
      kind: 'energy_attribute_certificate',
      country: 'XD',
      valid_from: new Date('2025-05-10T00:00:00Z'),
      valid_to: new Date('2025-08-20T00:00:00Z'),
      coverage_share: 0.5,
      label: 'half of XD, mid-month to mid-month',
    },
  });
  const kwh = 365.25;
  await fixtures.asset(orgId, { country: 'XD', purchase: '2024-01-01', kwh, production: 146.1 });
  const disposed = async (
    purchase: string,
    at: string,
    figures: { category?: string; production: number; transport?: number; endOfLife: number },
  ) => {
    const id = await fixtures.asset(orgId, { country: 'XD', purchase, status: 'disposed', kwh, ...figures });
    await fixtures.statusChange(orgId, id, 'disposed', at);
  };
  await disposed('2025-03-20', '2025-03-25T10:00:00Z', { production: 100, transport: 10, endOfLife: 5 });
  await disposed('2025-06-15', '2025-06-15T12:00:00Z', { production: 50, transport: 5, endOfLife: 2 });
  await disposed('2025-02-20', '2025-02-10T12:00:00Z', { category: 'desktop', production: 20, endOfLife: 1 });
});

afterAll(async () => {
  await t?.close();
});

describe('assets counted once per row of the period inventory', () => {
  it('acquisition: by phase, month, category and in the month x phase detail', async () => {
    const answer = await inventory();
    expect(answer.total.assets).toBe(4);
    expect(Object.fromEntries(answer.by_phase.map((r) => [r.key, r.assets]))).toEqual({
      use: 2,
      production: 3,
      transport: 3,
      end_of_life: 3,
    });
    // February: P's use and S's acquisition and end of life; March: P on both sides of the vintage change and Q;
    // May and August: P on both sides of the certificates' first or last day; June: P and R.
    expect(Object.fromEntries(answer.by_month.map((r) => [r.key, r.assets]))).toMatchObject({
      '2025-01': 1,
      '2025-02': 2,
      '2025-03': 2,
      '2025-05': 1,
      '2025-06': 2,
      '2025-08': 1,
    });
    expect(Object.fromEntries(answer.by_category.map((r) => [r.key, r.assets]))).toEqual({ laptop: 3, desktop: 1 });
    expect(answer.by_country).toMatchObject([{ key: 'XD', assets: 4 }]);

    const rows = await periodEmissionRows(prisma, orgId, YEAR_2025);
    const cell = (month: string, phase: string) =>
      rows.find((r) => r.month === month && r.phase === phase && r.device_category === 'laptop');
    // P: 15 days at 0.4 and 16 at 0.2; Q: 5 days at 0.2.
    expect(cell('2025-03', 'use')).toMatchObject({ assets: 2 });
    expect(cell('2025-03', 'use')!.kg_co2e).toBeCloseTo(15 * 0.4 + 16 * 0.2 + 5 * 0.2, 6);
    // P in May: 9 days without certificates, 22 with half covered (market-based 0.2 x 9 + 0.2 x 0.5 x 22).
    expect(cell('2025-05', 'use')).toMatchObject({ assets: 1 });
    expect(cell('2025-05', 'use')!.market_based_kg_co2e).toBeCloseTo(0.2 * 9 + 0.2 * 0.5 * 22, 6);
    expect(cell('2025-03', 'production')).toMatchObject({ assets: 1, kg_co2e: 100 });
    expect(cell('2025-06', 'end_of_life')).toMatchObject({ assets: 1, kg_co2e: 2 });
  });

  it('linear: the spread and the rest recognised on disposal in one month count the asset once', async () => {
    const answer = await inventory({ method: 'linear' });
    expect(answer.total.assets).toBe(4);
    // P spread all year; Q, R and S each leave with (the rest of) their production recognised.
    expect(Object.fromEntries(answer.by_phase.map((r) => [r.key, r.assets]))).toMatchObject({ use: 2, production: 4 });
    expect(answer.by_phase.find((r) => r.key === 'production')!.kg_co2e).toBeCloseTo(365 * 0.1 + 100 + 50 + 20, 6);
    expect(Object.fromEntries(answer.by_month.map((r) => [r.key, r.assets]))).toMatchObject({
      '2025-02': 2,
      '2025-03': 2,
      '2025-06': 2,
      '2025-07': 1,
    });
    const rows = await periodEmissionRows(prisma, orgId, { ...YEAR_2025, method: 'linear' });
    const production = (month: string) => rows.find((r) => r.month === month && r.phase === 'production' && r.device_category === 'laptop');
    expect(production('2025-03')).toMatchObject({ assets: 2 });
    expect(production('2025-03')!.kg_co2e).toBeCloseTo(31 * 0.1 + 100, 6);
    expect(production('2025-06')).toMatchObject({ assets: 2 });
  });
});
