import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fmt from '../../src/documents/format.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { day, inventoryFixtures, type InventoryFixtures } from '../support/inventory-fixtures.ts';
import type { PrismaClient } from '../../src/db/database.ts';
import { periodEmissionRows, periodInventory, type InventoryRequest, type PeriodInventory } from '../../src/inventory/inventory.ts';

/**
 * The period inventory against figures computed by hand (docs/inventory.md, worked example). Test-only
 * regions XA, XB and XC carry factors of round values, so every expected figure is a short sum:
 * XA grid 0.4 until 2025-06-30 then 0.2 (a vintage change inside 2025); XB grid 0.3, residual mix 0.5,
 * and certificates covering all of its consumption from 2025-07-01 to 2025-12-31; XC grid 0.1 and no residual mix.
 * Assets (annual kWh 365.25 is 1 kWh a day):
 *   A  XA  bought 2023-01-01, in use, 365.25 kWh/year, uncertainty 50 %
 *   B  XB  bought 2025-07-01 (mid-period), 730.5 kWh/year, production 200, transport 10, end of life 5, lifetime 5 years
 *   C  XB  bought 2022-03-01, disposed 2025-04-01 (status change), 365.25 kWh/year, end of life 8
 *   D  XC  no purchase date, recorded 2025-10-01, 365.25 kWh/year, production 100, transport 4
 *   E  XB  bought 2021-01-01, recorded 2025-02-01 already recycled (no dated change), 365.25 kWh/year, end of life 3
 */
let t: TestApp;
let prisma: PrismaClient;
let fixtures: InventoryFixtures;
const orgs: Record<string, string> = {};
const keys: Record<string, string> = {};
const YEAR_2025: InventoryRequest = { dateFrom: '2025-01-01', dateTo: '2025-12-31', method: 'acquisition', restate: false };

const inventory = (org: string, request: Partial<InventoryRequest> = {}) =>
  periodInventory(prisma, orgs[org]!, { ...YEAR_2025, ...request });
const row = (rows: PeriodInventory['by_month'], key: string) => rows.find((r) => r.key === key);

beforeAll(async () => {
  t = await createTestApp();
  prisma = t.app.services.db.prisma;
  fixtures = await inventoryFixtures(prisma, 'test-inventory');
  await fixtures.factor('GRID', 'XA', 0.4, '2024-01-01', '2025-06-30');
  await fixtures.factor('GRID', 'XA', 0.2, '2025-07-01');
  await fixtures.factor('GRID', 'XB', 0.3, '2020-01-01');
  await fixtures.factor('RESIDUAL_MIX', 'XB', 0.5, '2020-01-01');
  await fixtures.factor('GRID', 'XC', 0.1, '2020-01-01');

  for (const [label, plan] of [
    ['main', 'business'],
    ['other', 'business'],
    ['empty', 'pro'],
    ['life', 'pro'],
  ] as const) {
    orgs[label] = (await t.createOrg(plan, `Inventory ${label}`)).id;
    keys[label] = (await t.createKey(orgs[label]!)).key;
  }
  const main = orgs.main!;
  await fixtures.asset(main, { country: 'XA', purchase: '2023-01-01', kwh: 365.25, uncertainty: 50 });
  await fixtures.asset(main, {
    country: 'XB',
    purchase: '2025-07-01',
    kwh: 730.5,
    production: 200,
    transport: 10,
    endOfLife: 5,
    lifetime: 5,
  });
  const c = await fixtures.asset(main, { country: 'XB', purchase: '2022-03-01', status: 'disposed', kwh: 365.25, endOfLife: 8 });
  await fixtures.statusChange(main, c, 'disposed', '2025-04-01T10:00:00Z');
  await fixtures.asset(main, { country: 'XC', recorded: '2025-10-01', kwh: 365.25, production: 100, transport: 4 });
  await fixtures.asset(main, {
    country: 'XB',
    purchase: '2021-01-01',
    recorded: '2025-02-01',
    status: 'recycled',
    kwh: 365.25,
    endOfLife: 3,
  });
  await prisma.contractualInstrument.create({
    data: {
      org_id: main,
      kind: 'energy_attribute_certificate',
      country: 'XB',
      valid_from: day('2025-07-01'),
      valid_to: day('2025-12-31'),
      coverage_share: 1,
      label: 'Guarantees of origin, second half of 2025',
    },
  });
  // Another organisation's asset, instrument and supplier factor in the same countries: never counted for main.
  await fixtures.asset(orgs.other!, { country: 'XA', purchase: '2025-03-01', kwh: 3652.5, production: 1000, transport: 50 });
  await prisma.contractualInstrument.create({
    data: {
      org_id: orgs.other!,
      kind: 'supplier_specific',
      country: 'XA',
      valid_from: day('2025-01-01'),
      valid_to: day('2025-12-31'),
      emission_factor_kg_per_kwh: 0,
    },
  });
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe(`period inventory on ${TEST_DATABASE_KIND}`, () => {
  it('counts Scope 2 for the days in service at the vintage of each day, location- and market-based side by side', async () => {
    const answer = await inventory('main');
    // A 181 d x 0.4 + 184 d x 0.2 = 109.2; B 184 d x 2 kWh x 0.3 = 110.4; C 90 d x 0.3 = 27; D 92 d x 0.1 = 9.2; E 31 d x 0.3 = 9.3
    expect(answer.scope_2.kwh).toBeCloseTo(365 + 368 + 90 + 92 + 31, 6);
    expect(answer.scope_2.location_based_kg_co2e).toBeCloseTo(109.2 + 110.4 + 27 + 9.2 + 9.3, 2);
    // market: A no residual mix -> 109.2 (flagged); B covered by certificates -> 0; C and E at the residual mix 0.5; D 9.2 (flagged)
    expect(answer.scope_2.market_based_kg_co2e).toBeCloseTo(109.2 + 0 + 45 + 9.2 + 15.5, 2);
    expect(answer.scope_2.market_basis).toEqual({
      certificates_kwh: 368,
      supplier_specific_kwh: 0,
      residual_mix_kwh: 121,
      location_based_kwh: 457,
    });
    expect(answer.scope_2.location_based_fallback).toBe(true);
    expect(answer.scope_2.assets).toBe(5);
    // A's 50 %: 109.2 / 1.5 = 72.8 and 109.2 x 1.5 = 163.8; the others state 0 %
    expect(answer.scope_2.location_based_uncertainty.low_kg).toBeCloseTo(265.1 - 109.2 + 72.8, 2);
    expect(answer.scope_2.location_based_uncertainty.high_kg).toBeCloseTo(265.1 + 54.6, 2);
  });

  it('books hardware acquired in the period in category 2, its delivery in category 4, end of life of disposals in category 5', async () => {
    const answer = await inventory('main');
    const scope = Object.fromEntries(answer.by_scope.map((r) => [r.key, r]));
    expect(scope.scope_2).toMatchObject({ scope: 2, ghg_category: null, assets: 5 });
    expect(scope.scope_2!.kg_co2e).toBeCloseTo(265.1, 2);
    expect(scope.scope_2!.market_based_kg_co2e).toBeCloseTo(178.9, 2);
    expect(scope.scope_3_category_2).toMatchObject({ scope: 3, ghg_category: 2, kg_co2e: 300, assets: 2 });
    expect(scope.scope_3_category_4).toMatchObject({ ghg_category: 4, kg_co2e: 14, assets: 2 });
    expect(scope.scope_3_category_5).toMatchObject({ ghg_category: 5, kg_co2e: 11, assets: 2 });
    expect(answer.total.kg_co2e).toBeCloseTo(265.1 + 300 + 14 + 11, 2);
    expect(answer.total.market_based_kg_co2e).toBeCloseTo(178.9 + 325, 2);
    expect(answer.total.assets).toBe(5);
    expect(answer.method).toBe('acquisition');
  });

  it('splits by month, country and category with the assets behind each row', async () => {
    const answer = await inventory('main');
    // July: A 31 d x 0.2 = 6.2, B 31 d x 2 x 0.3 = 18.6 and its acquisition 200 + 10
    expect(row(answer.by_month, '2025-07')!.kg_co2e).toBeCloseTo(6.2 + 18.6 + 210, 2);
    expect(row(answer.by_month, '2025-07')!.assets).toBe(2);
    // April: A 30 d x 0.4 = 12 and C's end of life 8 (C left on 1 April: no electricity that month)
    expect(row(answer.by_month, '2025-04')).toMatchObject({ kg_co2e: 20, assets: 2 });
    expect(answer.by_month.map((r) => r.key)).toEqual(Array.from({ length: 12 }, (_, i) => `2025-${String(i + 1).padStart(2, '0')}`));
    expect(row(answer.by_country, 'XB')!.kg_co2e).toBeCloseTo(110.4 + 27 + 9.3 + 210 + 8 + 3, 2);
    expect(row(answer.by_country, 'XB')!.assets).toBe(3);
    expect(row(answer.by_country, 'XA')).toMatchObject({ assets: 1 });
    expect(row(answer.by_country, 'XA')!.kg_co2e).toBeCloseTo(109.2, 2);
    expect(answer.by_category).toHaveLength(1);
    expect(answer.by_category[0]!.assets).toBe(5);
  });

  it('reports assets counted by rule: no purchase date, no dated status change', async () => {
    const { data_quality } = await inventory('main');
    expect(data_quality).toMatchObject({
      assets_counted: 5,
      assets_without_purchase_date: 1,
      assets_without_purchase_date_pct: 20,
      status_changes_without_date: 1,
      status_changes_without_date_pct: 20,
      assets_without_calculation: 0,
      assets_without_grid_factor: 0,
    });
  });

  it('keeps a closed period as it was when calculations and vintages come later, unless restated', async () => {
    const before = await inventory('life');
    expect(before.total.kg_co2e).toBe(0);
    const a = await fixtures.asset(orgs.life!, { country: 'XA', purchase: '2024-06-01', kwh: 365.25 });
    const asOfPeriod = await inventory('life');
    expect(asOfPeriod.scope_2.location_based_kg_co2e).toBeCloseTo(109.2, 2);
    // A recalculation today doubling the electricity, and a 2026 vintage of XA at 0.9
    const recalculated = await fixtures.calculation(
      orgs.life!,
      { country: 'XA', kwh: 730.5, calculatedAt: new Date().toISOString().slice(0, 10) },
      a,
    );
    await prisma.asset.update({ where: { id: a }, data: { active_calculation_id: recalculated.id } });
    await prisma.emissionFactor.update({
      where: { type_region_code_valid_from: { type: 'GRID', region_code: 'XA', valid_from: day('2025-07-01') } },
      data: { valid_to: day('2025-12-31') },
    });
    await fixtures.factor('GRID', 'XA', 0.9, '2026-01-01');
    try {
      expect((await inventory('life')).scope_2.location_based_kg_co2e).toBeCloseTo(109.2, 2);
      const restated = await inventory('life', { restate: true });
      expect(restated.restate).toBe(true);
      expect(restated.scope_2.location_based_kg_co2e).toBeCloseTo(365 * 2 * 0.9, 2);
    } finally {
      await prisma.emissionFactor.deleteMany({ where: { region_code: 'XA', valid_from: day('2026-01-01') } });
      await prisma.emissionFactor.update({
        where: { type_region_code_valid_from: { type: 'GRID', region_code: 'XA', valid_from: day('2025-07-01') } },
        data: { valid_to: null },
      });
      await prisma.asset.delete({ where: { id: a } });
    }
  });

  it('allocates embodied emissions linearly over the lifetime, and both methods add up to the same lifetime total', async () => {
    // Bought 2025-07-01, lifetime 2 years (731 days), disposed 2026-03-01: 184 + 59 days spread, 488/731 left on disposal.
    const id = await fixtures.asset(orgs.life!, {
      country: 'XC',
      purchase: '2025-07-01',
      kwh: 0,
      production: 200,
      transport: 10,
      endOfLife: 5,
      lifetime: 2,
    });
    await prisma.asset.update({ where: { id }, data: { status: 'disposed' } });
    await fixtures.statusChange(orgs.life!, id, 'disposed', '2026-03-01T12:00:00Z');
    try {
      const years = ['2025', '2026', '2027'];
      const embodied = async (method: 'acquisition' | 'linear') => {
        const answers = await Promise.all(years.map((y) => inventory('life', { dateFrom: `${y}-01-01`, dateTo: `${y}-12-31`, method })));
        return answers.map((a) => a.total.kg_co2e);
      };
      const acquisition = await embodied('acquisition');
      const linear = await embodied('linear');
      expect(acquisition).toEqual([210, 5, 0]);
      expect(linear[0]).toBeCloseTo((210 * 184) / 731, 2);
      expect(linear[1]).toBeCloseTo((210 * 59) / 731 + (210 * 488) / 731 + 5, 2);
      expect(linear[2]).toBe(0);
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      expect(sum(linear)).toBeCloseTo(215, 1);
      expect(sum(acquisition)).toBeCloseTo(215, 6);
      const linear2025 = await inventory('life', { method: 'linear' });
      expect(linear2025.method).toBe('linear');
      expect(row(linear2025.by_month, '2025-07')!.kg_co2e).toBeCloseTo((210 * 31) / 731, 2);
    } finally {
      await prisma.asset.delete({ where: { id } });
    }
  });

  it("never counts another organisation's rows; an organisation without assets answers an empty inventory", async () => {
    const other = await inventory('other');
    // 10 kWh a day from 2025-03-01: 306 d; 59 d... at 0.4 until June (122 d), 0.2 after (184 d); its supplier factor 0 is its own
    expect(other.scope_2.location_based_kg_co2e).toBeCloseTo(10 * (122 * 0.4 + 184 * 0.2), 2);
    expect(other.scope_2.market_based_kg_co2e).toBe(0);
    expect(other.total.assets).toBe(1);
    const main = await inventory('main');
    expect(main.scope_2.market_basis.supplier_specific_kwh).toBe(0);
    const empty = await inventory('empty');
    expect(empty.total).toMatchObject({ kg_co2e: 0, market_based_kg_co2e: 0, assets: 0 });
    expect(empty.by_month).toEqual([]);
    expect(empty.data_quality.assets_counted).toBe(0);
  });

  it('gives the month x scope x category x country rows that sum to the totals', async () => {
    const rows = await periodEmissionRows(prisma, orgs.main!, YEAR_2025);
    const total = rows.reduce((s, r) => s + r.kg_co2e, 0);
    expect(total).toBeCloseTo(590.1, 1);
    expect(rows.find((r) => r.month === '2025-07' && r.phase === 'production' && r.country === 'XB')).toMatchObject({
      scope: 3,
      ghg_category: 2,
      kg_co2e: 200,
      assets: 1,
    });
  });

  it('books hardware in category 1 when the organisation expenses it', async () => {
    await prisma.organization.update({ where: { id: orgs.main! }, data: { hardware_accounting: 'purchased_goods' } });
    try {
      const answer = await inventory('main');
      expect(answer.hardware_accounting).toBe('purchased_goods');
      expect(answer.by_scope.find((r) => r.phase === 'production')).toMatchObject({
        key: 'scope_3_category_1',
        ghg_category: 1,
        kg_co2e: 300,
      });
    } finally {
      await prisma.organization.update({ where: { id: orgs.main! }, data: { hardware_accounting: 'capital_goods' } });
    }
  });

  it('reports reuse and refurbishment beside the inventory, not in it', async () => {
    const id = await fixtures.asset(orgs.life!, {
      country: 'XC',
      purchase: '2020-01-01',
      status: 'resold',
      kwh: 0,
      production: 70,
      transport: 5,
    });
    await fixtures.statusChange(orgs.life!, id, 'resold', '2025-05-05T08:00:00Z');
    try {
      const answer = await inventory('life');
      expect(answer.avoided_emissions).toMatchObject({
        part_of_inventory: false,
        reuse_kg_co2e: 75,
        resold_assets: 1,
        refurbished_assets: 0,
      });
      expect(answer.total.kg_co2e).toBe(0);
    } finally {
      await prisma.asset.delete({ where: { id } });
    }
  });
});

describe(`GET /v1/inventory and GraphQL on ${TEST_DATABASE_KIND}`, () => {
  const get = (key: string | undefined, query: string) =>
    t.json(`/v1/inventory?${query}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });

  it('answers the same inventory as the service, naming its method', async () => {
    const { status, body } = await get(keys.main, 'dateFrom=2025-01-01&dateTo=2025-12-31');
    expect(status).toBe(200);
    expect(body).toMatchObject({ date_from: '2025-01-01', date_to: '2025-12-31', method: 'acquisition', restate: false });
    expect(body.total.kg_co2e).toBeCloseTo(590.1, 2);
    expect(body.total.uncertainty).toEqual({ low_kg: 553.7, high_kg: 644.7 });
    expect(body.total.market_based_uncertainty).toEqual({ low_kg: 467.5, high_kg: 558.5 });
    expect(body.scope_2.market_based_kg_co2e).toBeCloseTo(178.9, 2);
    expect(body.by_month.find((r: { key: string }) => r.key === '2025-07').kg_co2e).toBeCloseTo(234.8, 2);
    const linear = await get(keys.main, 'dateFrom=2025-01-01&dateTo=2025-12-31&method=linear');
    expect(linear.body.method).toBe('linear');
  });

  it('refuses bad input with 400 naming the parameter, and needs a key', async () => {
    const cases: [string, string][] = [
      ['dateFrom=2025-02-30&dateTo=2025-12-31', 'dateFrom'],
      ['dateFrom=2025-12-31&dateTo=2025-01-01', 'dateFrom'],
      ['dateFrom=2015-01-01&dateTo=2025-01-01', 'dateTo'],
      ['dateFrom=2025-01-01&dateTo=2025-12-31&method=fifo', 'method'],
      ['dateFrom=2025-01-01&dateTo=2025-12-31&colour=red', 'colour'],
      ['dateTo=2025-12-31', 'dateFrom'],
      ['dateFrom=2025-01-01&dateTo=2025-12-31&restate=maybe', 'restate'],
      ['dateFrom=1989-12-31&dateTo=2025-12-31', 'dateFrom'],
    ];
    for (const [query, field] of cases) {
      const { status, body } = await get(keys.main, query);
      expect(status, query).toBe(400);
      expect(JSON.stringify(body), query).toContain(field);
    }
    expect((await get(keys.main, 'dateFrom=2016-01-01&dateTo=2025-12-31')).status).toBe(200);
    expect((await get(undefined, 'dateFrom=2025-01-01&dateTo=2025-12-31')).status).toBe(401);
  });

  it("answers another organisation's key with that organisation's inventory only", async () => {
    const { body } = await get(keys.empty, 'dateFrom=2025-01-01&dateTo=2025-12-31');
    expect(body.total).toMatchObject({ kg_co2e: 0, assets: 0 });
  });

  it('is Organization.inventory(period:) in GraphQL', async () => {
    const { status, body } = await t.graphql(
      `query($p: InventoryPeriod!) { organization { inventory(period: $p) { method total { kg_co2e assets } scope_2 { location_based_kg_co2e market_based_kg_co2e }
        by_scope { key kg_co2e } } } }`,
      { p: { dateFrom: '2025-01-01', dateTo: '2025-12-31' } },
      keys.main,
    );
    expect(status).toBe(200);
    const inv = body.data.organization.inventory;
    expect(inv.method).toBe('acquisition');
    expect(inv.total.kg_co2e).toBeCloseTo(590.1, 2);
    expect(inv.total.assets).toBe(5);
    expect(inv.scope_2.market_based_kg_co2e).toBeCloseTo(178.9, 2);
  });

  it('prints the same scope table and both Scope 2 figures in the sustainability summary', async () => {
    const period = { dateFrom: '2025-01-01', dateTo: '2025-12-31' };
    const { body: inventory } = await get(keys.main, `dateFrom=${period.dateFrom}&dateTo=${period.dateTo}`);
    const pdf = await t.request('/v1/report', {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'sustainability_summary', ...period }),
    });
    expect(pdf.status).toBe(200);
    const dir = await mkdtemp(path.join(tmpdir(), 'lcf-inventory-pdf-'));
    try {
      const file = path.join(dir, 'report.pdf');
      await writeFile(file, Buffer.from(await pdf.arrayBuffer()));
      const text = (await promisify(execFile)('pdftotext', ['-layout', file, '-'])).stdout.replace(/\s+/g, ' ');
      expect(text).toContain('GHG inventory');
      expect(text).toContain('allocation method acquisition');
      for (const row of inventory.by_scope as { assets: number; kg_co2e: number; market_based_kg_co2e: number }[]) {
        expect(text).toContain(`${fmt.count(row.assets)} ${fmt.kg(row.kg_co2e)} ${fmt.kg(row.market_based_kg_co2e)}`);
      }
      expect(text).toContain(
        `Total ${fmt.count(inventory.total.assets)} ${fmt.kg(inventory.total.kg_co2e)} ${fmt.kg(inventory.total.market_based_kg_co2e)}`,
      );
      expect(text).toContain(
        `Scope 2 location-based ${fmt.kgCo2e(inventory.scope_2.location_based_kg_co2e)}; market-based ${fmt.kgCo2e(inventory.scope_2.market_based_kg_co2e)}`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses the read-only demo sandbox', async () => {
    const key = (await t.createKey(orgs.main!, { environment: 'test', org_context: false })).key;
    const { status, body } = await get(key, 'dateFrom=2025-01-01&dateTo=2025-12-31');
    expect(status).toBe(403);
    expect(body.code).toBe('NO_ORGANIZATION_CONTEXT');
  });
});
