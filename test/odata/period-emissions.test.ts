import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { inventoryFixtures } from '../support/inventory-fixtures.ts';
import type { PrismaClient } from '../../src/db/database.ts';

/**
 * PeriodEmissions: the period inventory by month x phase x country x device category over OData.
 * Test-only regions: XA grid 0.4 kg/kWh until 2025-06-30, then 0.2; XB grid 0.3. Assets (365.25 kWh a year is 1 kWh a day):
 *   A  XA  laptop   bought 2023-01-01, in use
 *   B  XB  monitor  bought 2025-07-01, production 200, transport 10, end of life 5
 *   X  XA  laptop   another organisation's, bought 2025-03-01, production 1000
 */
let t: TestApp;
let prisma: PrismaClient;
const orgs: Record<string, string> = {};
const keys: Record<string, string> = {};
const YEAR_2025 = 'dateFrom=2025-01-01&dateTo=2025-12-31';

const odata = (query: string, key = keys.main!) =>
  t.json(`/v1/odata/PeriodEmissions${query ? `?${query}` : ''}`, { headers: { authorization: `Bearer ${key}` } });

beforeAll(async () => {
  t = await createTestApp();
  prisma = t.app.services.db.prisma;
  const { factor, asset } = await inventoryFixtures(prisma, 'test-period-emissions');
  await factor('GRID', 'XA', 0.4, '2024-01-01', '2025-06-30');
  await factor('GRID', 'XA', 0.2, '2025-07-01');
  await factor('GRID', 'XB', 0.3, '2020-01-01');
  for (const label of ['main', 'other']) {
    orgs[label] = (await t.createOrg('enterprise', `Period emissions ${label}`)).id;
    keys[label] = (await t.createKey(orgs[label]!, { bi_enabled: true })).key;
  }
  await asset(orgs.main!, { country: 'XA', purchase: '2023-01-01', kwh: 365.25 });
  await asset(orgs.main!, {
    country: 'XB',
    category: 'monitor',
    purchase: '2025-07-01',
    kwh: 365.25,
    production: 200,
    transport: 10,
    endOfLife: 5,
  });
  await asset(orgs.other!, { country: 'XA', purchase: '2025-03-01', kwh: 365.25, production: 1000 });
}, 60_000);
afterAll(() => t.close());

describe(`OData PeriodEmissions on ${TEST_DATABASE_KIND}`, () => {
  it('answers the rows of the period, hand-computed, and their sums by month equal GET /v1/inventory by_month', async () => {
    const res = await odata(YEAR_2025);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rows = res.body.value as Record<string, unknown>[];
    // A in January 2025: 31 days x 1 kWh x 0.4 kg/kWh.
    expect(rows[0]).toEqual({
      row_id: '2025-01|use|XA|laptop',
      month: '2025-01-01',
      scope: 2,
      ghg_category: null,
      phase: 'use',
      device_category: 'laptop',
      country: 'XA',
      kg_co2e: 12.4,
      market_based_kg_co2e: 12.4,
      low_kg: 12.4,
      high_kg: 12.4,
      kwh: 31,
      asset_count: 1,
      method: 'acquisition',
      date_from: '2025-01-01',
      date_to: '2025-12-31',
    });
    // B's capital goods in the month it was bought: Scope 3 category 2.
    expect(rows.find((r) => r.row_id === '2025-07|production|XB|monitor')).toMatchObject({
      scope: 3,
      ghg_category: 2,
      kg_co2e: 200,
      asset_count: 1,
    });
    // 12 months of A, 6 months of B's use, B's production and transport.
    expect(rows).toHaveLength(12 + 6 + 2);

    const inventory = await t.json(`/v1/inventory?${YEAR_2025}`, { headers: { authorization: `Bearer ${keys.main}` } });
    expect(inventory.status, JSON.stringify(inventory.body)).toBe(200);
    const byMonth = inventory.body.by_month as { key: string; kg_co2e: number; market_based_kg_co2e: number }[];
    expect(byMonth.length).toBe(12);
    for (const month of byMonth) {
      const inMonth = rows.filter((r) => (r.month as string).startsWith(month.key.slice(0, 7)));
      const sum = (field: string) => inMonth.reduce((total, r) => total + (r[field] as number), 0);
      expect(sum('kg_co2e')).toBeCloseTo(month.kg_co2e, 1);
      expect(sum('market_based_kg_co2e')).toBeCloseTo(month.market_based_kg_co2e, 1);
    }
  });

  it('filters on the dimensions and the month, selects, orders, pages and counts the computed rows', async () => {
    const production = await odata(`${YEAR_2025}&$filter=country eq 'XB' and phase eq 'production'&$select=month,kg_co2e`);
    expect(production.body.value).toEqual([{ month: '2025-07-01', kg_co2e: 200 }]);
    expect(production.body['@odata.context']).toMatch(/\$metadata#PeriodEmissions\(month,kg_co2e\)$/);

    const july = await odata(`${YEAR_2025}&$filter=month ge 2025-07-01 and month lt 2025-08-01&$select=row_id`);
    // July: A at 0.2 kg/kWh, B's use, production and transport.
    expect(july.body.value.map((r: { row_id: string }) => r.row_id)).toEqual([
      '2025-07|production|XB|monitor',
      '2025-07|transport|XB|monitor',
      '2025-07|use|XA|laptop',
      '2025-07|use|XB|monitor',
    ]);

    const top = await odata(`${YEAR_2025}&$orderby=kg_co2e desc&$top=2&$skip=1&$count=true&$select=row_id,kg_co2e`);
    expect(top.body['@odata.count']).toBe(20);
    // Largest: production 200, then A's use in a 31-day month before July (12.4), then B's transport (10).
    expect(top.body.value).toEqual([
      { row_id: '2025-01|use|XA|laptop', kg_co2e: 12.4 },
      { row_id: '2025-03|use|XA|laptop', kg_co2e: 12.4 },
    ]);

    const paged = await t.json(`/v1/odata/PeriodEmissions?${YEAR_2025}&$select=row_id`, {
      headers: { authorization: `Bearer ${keys.main}`, prefer: 'odata.maxpagesize=15' },
    });
    expect(paged.body.value).toHaveLength(15);
    const next = new URL(paged.body['@odata.nextLink']);
    expect(next.searchParams.get('dateFrom')).toBe('2025-01-01');
    const rest = await t.json(`${next.pathname}${next.search}`, { headers: { authorization: `Bearer ${keys.main}` } });
    expect(rest.body.value).toHaveLength(5);

    const count = await t.request(`/v1/odata/PeriodEmissions/$count?${YEAR_2025}&$filter=scope eq 2`, {
      headers: { authorization: `Bearer ${keys.main}` },
    });
    expect(await count.text()).toBe('18');
  });

  it('defaults to the last full calendar year and names the allocation method', async () => {
    const lastYear = new Date().getUTCFullYear() - 1;
    const res = await odata('method=linear&$top=1&$select=date_from,date_to,method');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // A is in use in every year since 2023: the default period has rows.
    expect(res.body.value[0]).toEqual({ date_from: `${lastYear}-01-01`, date_to: `${lastYear}-12-31`, method: 'linear' });
    const linear = await odata(`${YEAR_2025}&method=linear&$filter=phase eq 'production' and kg_co2e gt 0&$select=month,kg_co2e&$top=1`);
    // Linear: 200 kg over 4 years (1461 days), July's 31 days.
    expect(linear.body.value[0].month).toBe('2025-07-01');
    expect(linear.body.value[0].kg_co2e).toBeCloseTo((200 * 31) / 1461, 1);
  });

  it("confines the rows to the caller's organisation", async () => {
    const other = await odata(`${YEAR_2025}&$filter=phase eq 'production'&$select=row_id,kg_co2e`, keys.other!);
    expect(other.body.value).toEqual([{ row_id: '2025-03|production|XA|laptop', kg_co2e: 1000 }]);
    const main = await odata(`${YEAR_2025}&$filter=kg_co2e ge 1000`);
    expect(main.body.value).toEqual([]);
  });

  it('answers bad options with an OData error naming the option', async () => {
    const cases: [string, number, string][] = [
      ['dateFrom=2025-13-01', 400, 'dateFrom'],
      ['dateFrom=2025-06-01&dateTo=2025-01-01', 400, 'dateFrom'],
      ['method=fifo', 400, 'method'],
      ['restate=yes', 400, 'restate'],
      ['datefrom=2025-01-01', 400, 'datefrom'],
      ["$filter=colour eq 'red'", 400, '$filter'],
      ['$orderby=colour', 400, '$orderby'],
      ['$top=-1', 400, '$top'],
    ];
    for (const [query, status, option] of cases) {
      const res = await odata(query);
      expect([query, res.status], JSON.stringify(res.body)).toEqual([query, status]);
      expect(JSON.stringify(res.body.error)).toContain(option);
    }
  });

  it('is in $metadata and the service document', async () => {
    const metadata = await t.request('/v1/odata/$metadata', { headers: { authorization: `Bearer ${keys.main}` } });
    const xml = await metadata.text();
    expect(xml).toContain('<EntityType Name="PeriodEmission">');
    expect(xml).toContain('<EntitySet Name="PeriodEmissions" EntityType="Service.PeriodEmission"');
  });
});
