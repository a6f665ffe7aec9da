/**
 * The release year as an input (issue 40): a year the caller states wins over the catalogue's and
 * narrows the interval; an asset's purchase date gives an estimated year with its basis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, qs, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';

let t: TestApp;
let key: string;
let orgId: string;
beforeAll(async () => {
  t = await createTestApp();
  const org = await t.createOrg('pro', 'Year Org');
  orgId = org.id;
  key = (await t.createKey(org.id)).key;
});
afterAll(() => t?.close());

const footprint = async (params: Record<string, string | number>) => {
  const res = await t.json(`/v1/footprint?${qs({ country: 'DE', ...params })}`);
  return res;
};
const post = (path: string, body: unknown) =>
  t.json(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
const width = (b: any) => b.methodology.interval.high_kg / b.methodology.interval.low_kg;

describe(`release_year on footprint inputs on ${TEST_DATABASE_KIND}`, () => {
  it("a stated year wins over the catalogue's, changes the estimate and says so", async () => {
    const catalogue = await footprint({ brand: 'Dell', model: 'P2419H' });
    expect(catalogue.status).toBe(200);
    const stated = await footprint({ brand: 'Dell', model: 'P2419H', release_year: 2023 });
    expect(stated.status).toBe(200);
    expect(stated.body.product.name).toBe(catalogue.body.product.name);
    expect(stated.body.methodology.data_sources).toContainEqual(
      expect.stringMatching(/^release_year 2023 stated by the caller, used instead of the catalogue's 20\d\d$/),
    );
    expect(catalogue.body.methodology.data_sources.join('\n')).not.toMatch(/stated by the caller/);
    // the calibrated year trend of the manufacturer's sheets moves the embodied figure
    expect(stated.body.breakdown.production_kg).not.toBe(catalogue.body.breakdown.production_kg);
  });

  it('narrows the interval of a device nothing else dates', async () => {
    const device = { brand: 'Dell', model: 'Custom Build 14', category: 'laptop', weight_kg: 1.4, ram_gb: 16 };
    const undated = await footprint(device);
    const dated = await footprint({ ...device, release_year: 2022 });
    expect([undated.status, dated.status]).toEqual([200, 200]);
    expect(dated.body.methodology.confidence).toBe(undated.body.methodology.confidence);
    expect(dated.body.methodology.uncertainty_pct).toBeLessThan(undated.body.methodology.uncertainty_pct);
    expect(width(dated.body)).toBeLessThan(width(undated.body));
    expect(dated.body.methodology.data_sources).toContain('release_year 2022 stated by the caller');
  });

  it('refuses a year outside 1990..next year or not whole, naming the field, on GET, savings and batch items', async () => {
    const next = new Date().getUTCFullYear() + 1;
    const base = { brand: 'Dell', model: 'Custom Build 14' };
    for (const [year, reason] of [
      [1989, /release_year: must be 1990 or later, got 1989/],
      [next + 1, new RegExp(`release_year: must be at most ${next} \\(next year\\), got ${next + 1}`)],
    ] as const) {
      const res = await footprint({ ...base, release_year: year });
      expect(res.status).toBe(400);
      expect(res.body.details).toMatch(reason);
      const savings = await t.json(`/v1/savings?${qs({ ...base, country: 'DE', release_year: year })}`);
      expect(savings.status).toBe(400);
      expect(savings.body.details).toMatch(reason);
    }
    expect((await footprint({ ...base, release_year: next })).status).toBe(200);
    expect((await footprint({ ...base, release_year: '2020.5' })).status).toBe(400);
    const batch = await post('/v1/footprint/batch', {
      products: [
        { ...base, country: 'DE', release_year: 1980 },
        { ...base, country: 'DE', release_year: 2021 },
      ],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.successful).toBe(1);
    expect(batch.body.results[0]).toMatchObject({ index: 0, error: expect.stringMatching(/^release_year: must be 1990 or later/) });
    expect(batch.body.results[1].methodology.data_sources).toContain('release_year 2021 stated by the caller');
  });

  it('takes release_year over GraphQL', async () => {
    const org = await t.createOrg('business', 'Year GraphQL Org');
    const business = (await t.createKey(org.id)).key;
    const res = await t.graphql(
      '{ footprint(brand: "Dell", model: "Custom Build 14", country: "DE", release_year: 2020) { methodology { data_sources } } }',
      undefined,
      business,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.footprint.methodology.data_sources).toContain('release_year 2020 stated by the caller');
  });
});

describe(`release_year and purchase_date on asset imports on ${TEST_DATABASE_KIND}`, () => {
  it('estimates the year of an undated model from its purchase date, keeps a stated year, and says which', async () => {
    const res = await post('/v1/assets', {
      assets: [
        { brand: 'Dell', model: 'Custom Build 14', serial_number: 'Y-1', country: 'DE', purchase_date: '2021-03-15' },
        { brand: 'Dell', model: 'Custom Build 14', serial_number: 'Y-2', country: 'DE', purchase_date: '2021-03-15', release_year: 2019 },
        { brand: 'Dell', model: 'Custom Build 14', serial_number: 'Y-3', country: 'DE' },
        { brand: 'Dell', model: 'Custom Build 14', serial_number: 'Y-4', country: 'DE', release_year: 1900 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created: 3, failed: 1 });
    expect(res.body.errors.map((e: any) => `${e.index} ${e.field}`)).toEqual(['3 release_year']);
    const assets = await t.app.services.db.prisma.asset.findMany({
      where: { org_id: orgId, serial_number: { in: ['Y-1', 'Y-2', 'Y-3'] } },
      include: { active_calculation: true },
      orderBy: { serial_number: 'asc' },
    });
    const sources = (i: number) => (assets[i]!.active_calculation!.result as any).methodology.data_sources as string[];
    const uncertainty = (i: number) => (assets[i]!.active_calculation!.result as any).methodology.uncertainty_pct as number;
    expect(sources(0)).toContainEqual(expect.stringMatching(/^release_year 2021 estimated from the purchase date 2021-03-15 /));
    expect(sources(1)).toContain('release_year 2019 stated by the caller');
    expect(assets[1]!.specs).toEqual({ release_year: 2019 });
    expect(sources(2).join('\n')).not.toMatch(/release_year/);
    // the estimated year moves the estimate but keeps the interval measured without a year; a stated one narrows it
    expect(assets[0]!.total_kg_co2e).not.toBe(assets[2]!.total_kg_co2e);
    expect(uncertainty(0)).toBe(uncertainty(2));
    expect(uncertainty(1)).toBeLessThan(uncertainty(2));
  });

  it('gives rows differing only in their purchase date the footprint their date makes, and each its own calculation', async () => {
    // P2419H is dated by the catalogue (its purchase date changes nothing); Custom Build 14 by the purchase date alone.
    const rows = [
      { brand: 'Dell', model: 'P2419H', serial_number: 'PD-1', country: 'DE', purchase_date: '2020-01-10' },
      { brand: 'Dell', model: 'P2419H', serial_number: 'PD-2', country: 'DE', purchase_date: '2023-07-01' },
      { brand: 'Dell', model: 'Custom Build 14', serial_number: 'PD-3', country: 'DE', purchase_date: '2019-05-05' },
      { brand: 'Dell', model: 'Custom Build 14', serial_number: 'PD-4', country: 'DE', purchase_date: '2023-07-01' },
    ];
    const batch = await post('/v1/assets', { assets: rows });
    expect(batch.status).toBe(200);
    expect(batch.body).toMatchObject({ created: 4, failed: 0 });
    const ids = batch.body.assets.map((a: any) => a.calculation_id);
    expect(new Set(ids).size).toBe(4);
    const calculations = await t.app.services.db.prisma.calculation.findMany({ where: { id: { in: ids } } });
    const of = (i: number) => calculations.find((c) => c.id === ids[i])!;
    const answer = (i: number) => {
      const { calculated_at: _at, calculation_id: _id, ...rest } = of(i).result as any;
      return rest;
    };
    for (const i of [0, 1, 2, 3]) expect((of(i).inputs as any).purchase_date).toBe(rows[i]!.purchase_date);
    expect(answer(1)).toEqual(answer(0));
    expect(answer(0).methodology.data_sources.join('\n')).not.toMatch(/purchase date/);
    expect(answer(2).methodology.data_sources).toContainEqual(
      expect.stringMatching(/^release_year 2019 estimated from the purchase date 2019-05-05 /),
    );
    expect(answer(3).methodology.data_sources).toContainEqual(
      expect.stringMatching(/^release_year 2023 estimated from the purchase date 2023-07-01 /),
    );
    expect(of(3).total_kg_co2e).not.toBe(of(2).total_kg_co2e);
    // Each row imported again alone, where nothing is shared: the same content, so the same calculation.
    for (const [i, row] of rows.entries()) {
      const alone = await post('/v1/assets', { assets: [row] });
      expect(alone.body.assets[0]).toMatchObject({ action: 'updated', calculation_id: ids[i] });
    }
  });

  it('reads release_year from a CSV column', async () => {
    const csv = ['brand,model,serial_number,country,purchase_date,release_year', 'Dell,Custom Build 14,YC-1,DE,2024-01-10,2022'].join('\n');
    const res = await post('/v1/assets/csv', { csv });
    expect(res.status).toBe(200);
    expect(res.body.created).toBe(1);
    const asset = await t.app.services.db.prisma.asset.findFirstOrThrow({
      where: { org_id: orgId, serial_number: 'YC-1' },
      include: { active_calculation: true },
    });
    expect(asset.specs).toEqual({ release_year: 2022 });
    expect((asset.active_calculation!.result as any).methodology.data_sources).toContain('release_year 2022 stated by the caller');
  });
});
