import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCountingTestApp } from '../support/counting-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import type { TestApp } from '../support/test-app.ts';
import type { StatementLog } from '../support/counting-database.ts';
import { seedDemo } from '../../src/assets/seed-demo.ts';
import { INTERVAL_METHOD, uncertaintyInterval } from '../../src/footprint/engine/index.ts';

let t: TestApp & { statements: StatementLog };
let key: string;
let orgId: string;
let otherKey: string;
let otherAssetId: string;
const N = 1000;

const prisma = () => t.app.services.db.prisma;

beforeAll(async () => {
  t = await createCountingTestApp();
  // Ad-hoc GraphQL needs business or enterprise (free and pro run the approved templates only).
  const org = await t.createOrg('business', 'Inventory Org');
  orgId = org.id;
  key = (await t.createKey(org.id)).key;
  await seedDemo(prisma(), org.id, N, undefined, { batchSize: 400, seed: 42 });
  const other = await t.createOrg('enterprise', 'Other Org');
  otherKey = (await t.createKey(other.id)).key;
  await seedDemo(prisma(), other.id, 5, undefined, { seed: 7 });
  otherAssetId = (await prisma().asset.findFirstOrThrow({ where: { org_id: other.id }, select: { id: true } })).id;
});
afterAll(() => t?.close());

const ASSET_FIELDS = `
  id brand mpn serial_number status purchase_date country total_kg_co2e production_kg use_phase_kg
  product { id brand mpn name category }
  active_calculation {
    id created_at total_kg_co2e
    emission_factor(type: GRID) { value unit source source_version source_url source_license valid_from valid_to
      basis published_value published_basis uplift
      registry { display_name current_version next_check_after } }
    methodology_card { standard engine_version confidence uncertainty_pct interval { low_kg high_kg method } data_sources }
    boundary assumptions
  }`;

const PAGE = `query Page($first: Int, $after: String) {
  assets(first: $first, after: $after) { edges { cursor node { ${ASSET_FIELDS} } } pageInfo { hasNextPage endCursor } }
}`;

describe(`GraphQL inventory on ${TEST_DATABASE_KIND}`, () => {
  it('resolves every field of spec table 2.13 for an asset, with real data', async () => {
    const row = await prisma().asset.findFirstOrThrow({
      where: { org_id: orgId, product_id: { not: null } },
      include: { product: true, active_calculation: true },
    });
    const res = await t.graphql(`query One($id: ID!) { asset(id: $id) { ${ASSET_FIELDS} } }`, { id: row.id }, key);
    expect(res.body.errors).toBeUndefined();
    const a = res.body.data.asset;
    expect(a).toMatchObject({
      id: row.id,
      brand: row.brand,
      mpn: row.mpn,
      serial_number: row.serial_number,
      status: row.status,
      purchase_date: row.purchase_date!.toISOString().slice(0, 10),
      country: row.country,
      total_kg_co2e: row.total_kg_co2e,
      production_kg: row.production_kg,
      use_phase_kg: row.use_phase_kg,
      product: {
        id: row.product!.id,
        brand: row.product!.brand,
        mpn: row.product!.mpn,
        name: row.product!.name,
        category: row.product!.category,
      },
    });
    expect(a.total_kg_co2e).toBeGreaterThan(0);
    const c = a.active_calculation;
    expect(c.id).toBe(row.active_calculation_id);
    expect(c.total_kg_co2e).toBe(a.total_kg_co2e);
    expect(Date.parse(c.created_at)).toBeGreaterThan(Date.now() - 3_600_000);
    const f = c.emission_factor;
    expect(f.value).toBeGreaterThan(0);
    expect(f.unit).toBe('kg CO2e/kWh');
    expect(f.source).toMatch(/\w/);
    expect(f.source_version).toMatch(/\w/);
    expect(f.valid_from).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(f.registry.display_name).toMatch(/\w/);
    expect(f.registry.current_version).toMatch(/\w/);
    // The factor is the one stored with the calculation, not a fresh lookup.
    const stored = await prisma().emissionFactor.findUniqueOrThrow({ where: { id: row.active_calculation!.grid_factor_id! } });
    expect(f.value).toBe(stored.value);
    // Its basis provenance: lifecycle CO2e, converted from the published figure when that is direct.
    expect(f.basis).toBe('lifecycle_co2e');
    expect(['lifecycle_co2e', 'direct_co2e', 'direct_co2']).toContain(f.published_basis);
    expect(f.value).toBeCloseTo(f.published_value * (f.uplift ?? 1), 6);
    expect(c.methodology_card.engine_version).toMatch(/^4\./);
    expect(c.methodology_card.standard).toMatch(/ISO 14067/);
    // the interval of the calculation's total from its recorded uncertainty: multiplicative, above zero
    expect(c.methodology_card.interval).toEqual({
      ...uncertaintyInterval(c.total_kg_co2e, c.methodology_card.uncertainty_pct),
      method: INTERVAL_METHOD,
    });
    expect(c.methodology_card.interval.low_kg).toBeGreaterThan(0);
    expect(c.methodology_card.interval.low_kg).toBeLessThan(c.total_kg_co2e);
    expect(c.methodology_card.data_sources.some((s: string) => s.startsWith(`grid factor ${row.country}`))).toBe(true);
    expect(c.boundary).toHaveLength(4);
    expect(c.boundary[2]).toMatch(new RegExp(`^use: .* ${row.country} grid$`));
  });

  it('answers null for missing provenance and for assets of other organisations', async () => {
    const res = await t.graphql(`query One($id: ID!) { asset(id: $id) { id } }`, { id: otherAssetId }, key);
    expect(res.body).toEqual({ data: { asset: null }, extensions: expect.any(Object) });
    // The same asset is visible to its own organisation.
    expect((await t.graphql(`query One($id: ID!) { asset(id: $id) { id } }`, { id: otherAssetId }, otherKey)).body.data.asset.id).toBe(
      otherAssetId,
    );
    // A factor without licence or URL in the source stays null (US states: public domain with URL; pick any factor lacking them, if the data has one).
    const bare = await prisma().emissionFactor.findFirst({ where: { OR: [{ source_url: null }, { source_license: null }] } });
    if (bare) {
      const f = (
        await t.graphql(
          `query F($r: String!, $d: DateTime) { factorByRegion(type: GRID, regionCode: $r, atDate: $d) { source_url source_license } }`,
          { r: bare.region_code, d: bare.valid_from.toISOString() },
          key,
        )
      ).body.data.factorByRegion;
      expect(f).toEqual({ source_url: bare.source_url, source_license: bare.source_license });
    }
    const bad = await t.graphql(`query One($id: ID!) { asset(id: $id) { id } }`, { id: 'not-a-uuid' }, key);
    expect(bad.body.errors[0].extensions.code).toBe('INVALID_PARAMETER');
  });

  it(`walks all ${N} assets in pages of 100 without gaps or repeats`, async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const res: { body: any } = await t.graphql(PAGE, { first: 100, after }, key);
      expect(res.body.errors).toBeUndefined();
      const { edges, pageInfo } = res.body.data.assets;
      seen.push(...edges.map((e: any) => e.node.id));
      pages++;
      for (const e of edges) expect(e.node.active_calculation.id).toBeTruthy();
      if (!pageInfo.hasNextPage) break;
      expect(edges).toHaveLength(100);
      after = pageInfo.endCursor;
      expect(after).not.toContain(edges[99].node.id); // opaque
    }
    expect(pages).toBe(N / 100);
    expect(new Set(seen).size).toBe(N);
    const ids = await prisma().asset.findMany({ where: { org_id: orgId }, select: { id: true } });
    expect(new Set(seen)).toEqual(new Set(ids.map((r) => r.id)));
  });

  it('refuses pages over 100 with PAGE_SIZE_TOO_LARGE and foreign cursors with INVALID_CURSOR', async () => {
    const res = await t.graphql(PAGE, { first: 101 }, key);
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0].extensions.code).toBe('PAGE_SIZE_TOO_LARGE');
    expect(res.body.errors[0].extensions.details).toMatch(/at most 100/);
    const cursor = Buffer.from('GPC:S:nope').toString('base64');
    expect((await t.graphql(PAGE, { first: 10, after: cursor }, key)).body.errors[0].extensions.code).toBe('INVALID_CURSOR');
  });

  it('answers a cursor of another organisation’s asset exactly like an unknown or malformed one', async () => {
    const cursorOf = (id: string) => Buffer.from(`GPC:S:${id}`).toString('base64');
    const own = (await prisma().asset.findMany({ where: { org_id: orgId }, select: { id: true }, orderBy: { id: 'asc' }, take: 3 })).map(
      (a) => a.id,
    );
    const next = await t.graphql(PAGE, { first: 2, after: cursorOf(own[0]!) }, key);
    expect(next.body.data.assets.edges.map((e: any) => e.node.id)).toEqual(own.slice(1));

    const forged = [
      cursorOf(otherAssetId),
      cursorOf(randomUUID()),
      'bm90IGEgY3Vyc29y!!!', // not base64
      Buffer.from('garbage').toString('base64'),
      Buffer.from(`GPC:S:${'f'.repeat(100)}`).toString('base64'), // over-long
    ];
    const answers = await Promise.all(forged.map((after) => t.graphql(PAGE, { first: 10, after }, key)));
    expect(answers[0]!.body.errors[0].extensions).toMatchObject({
      code: 'INVALID_CURSOR',
      details: 'after: not a cursor of this connection (use pageInfo.endCursor or edges.cursor)',
    });
    for (const answer of answers)
      expect({ status: answer.status, body: answer.body }).toEqual({ status: answers[0]!.status, body: answers[0]!.body });
    // The asset is a valid cursor for its own organisation.
    expect((await t.graphql(PAGE, { first: 1, after: cursorOf(otherAssetId) }, otherKey)).body.errors).toBeUndefined();
  });

  it('loads a page with product and active calculation in a constant number of statements (no N+1)', async () => {
    const warm = await t.graphql(PAGE, { first: 1 }, key); // warm the key cache
    const count = async (first: number, after?: string) => {
      t.statements.reset();
      const res = await t.graphql(PAGE, { first, after }, key);
      expect(res.body.data.assets.edges).toHaveLength(first);
      return t.statements.ownWork;
    };
    const ten = await count(10);
    const hundred = await count(100);
    expect(hundred).toBe(ten);
    expect(hundred).toBeLessThanOrEqual(7);
    // A cursor costs one indexed lookup more: its row is checked in the caller's organisation.
    expect(await count(100, warm.body.data.assets.pageInfo.endCursor)).toBe(hundred + 1);
  });

  it('filters by status, category, country and purchase date', async () => {
    const sample = await prisma().asset.findFirstOrThrow({ where: { org_id: orgId, status: 'in_use' } });
    const filters = {
      status: ['in_use', 'in_repair'],
      category: sample.category,
      country: sample.country.toLowerCase(),
      purchase_date_from: '2020-01-01',
      purchase_date_to: new Date().toISOString().slice(0, 10),
    };
    const where = {
      org_id: orgId,
      status: { in: ['in_use', 'in_repair'] as ('in_use' | 'in_repair')[] },
      category: sample.category,
      country: sample.country,
      purchase_date: { gte: new Date('2020-01-01T00:00:00Z'), lte: new Date(`${filters.purchase_date_to}T00:00:00Z`) },
    };
    const expected = await prisma().asset.findMany({ where, select: { id: true } });
    expect(expected.length).toBeGreaterThan(0);
    const res = await t.graphql(
      `query Filtered($status: [AssetStatus!], $category: String, $country: String, $from: Date, $to: Date) {
        assets(first: 100, status: $status, category: $category, country: $country, purchase_date_from: $from, purchase_date_to: $to) {
          totalCount edges { node { id status category country purchase_date } }
        }
      }`,
      {
        status: filters.status,
        category: filters.category,
        country: filters.country,
        from: filters.purchase_date_from,
        to: filters.purchase_date_to,
      },
      key,
    );
    expect(res.body.errors).toBeUndefined();
    const { totalCount, edges } = res.body.data.assets;
    expect(totalCount).toBe(expected.length);
    const expectedIds = new Set(expected.map((e) => e.id));
    expect(edges).toHaveLength(Math.min(100, expected.length));
    for (const e of edges) expect(expectedIds.has(e.node.id)).toBe(true);
    for (const { node } of edges) {
      expect(['in_use', 'in_repair']).toContain(node.status);
      expect(node.category).toBe(sample.category);
      expect(node.country).toBe(sample.country);
      expect(node.purchase_date >= '2020-01-01').toBe(true);
    }
    const single = await t.graphql(`{ assets(first: 1, status: disposed) { totalCount } }`, {}, key);
    expect(single.body.data.assets.totalCount).toBe(await prisma().asset.count({ where: { org_id: orgId, status: 'disposed' } }));
  });

  it('keeps the organisation totals the SQL sum of the current asset totals', async () => {
    const res = await t.graphql(`{ organization { id name plan asset_count total_kg_co2e } }`, {}, key);
    const sum = await prisma().asset.aggregate({ where: { org_id: orgId }, _sum: { total_kg_co2e: true }, _count: true });
    expect(res.body.data.organization).toEqual({
      id: orgId,
      name: 'Inventory Org',
      plan: 'business',
      asset_count: N,
      total_kg_co2e: Math.round(sum._sum.total_kg_co2e! * 100) / 100,
    });
  });

  it("sums the assets' whole-life ADPe and PE over those that have them, and says how many", async () => {
    const Q = '{ organization { asset_count adpe_kg_sb_eq pe_mj impacts_asset_count } }';
    /** The organisation's figures against the sums of its assets' ADPe and PE as the API answers them (4 significant digits). */
    const expectSums = async (k: string, orgOf: string, withImpacts: number) => {
      const res = await t.graphql(Q, {}, k);
      expect(res.body.errors).toBeUndefined();
      const org = res.body.data.organization;
      const assets = await prisma().asset.findMany({ where: { org_id: orgOf }, select: { adpe_kg_sb_eq: true, pe_mj: true } });
      expect([org.asset_count, org.impacts_asset_count]).toEqual([assets.length, withImpacts]);
      for (const c of ['adpe_kg_sb_eq', 'pe_mj'] as const) {
        const values = assets.map((a) => a[c]).filter((v) => v !== null);
        expect(values).toHaveLength(withImpacts);
        if (withImpacts === 0) expect(org[c], c).toBeNull();
        else {
          const sum = values.reduce((x, y) => x + y, 0);
          expect(Math.abs(org[c] - sum), c).toBeLessThanOrEqual(5e-4 * sum);
        }
      }
      return org;
    };
    const all = await expectSums(key, orgId, N);
    expect(all.adpe_kg_sb_eq).toBeGreaterThan(0);

    // An asset calculated before ADPe and PE is left out of the sums, not counted as 0.
    const asset = await prisma().asset.findFirstOrThrow({ where: { org_id: orgId }, include: { active_calculation: true } });
    const current = asset.active_calculation!;
    const { impacts: _impacts, ...older } = current.result as Record<string, unknown>;
    const { id: _id, created_at: _created, result: _result, ...figures } = current;
    const bare = await prisma().calculation.create({ data: { ...figures, inputs: figures.inputs as object, result: older as object } });
    await prisma().asset.update({ where: { id: asset.id }, data: { active_calculation_id: bare.id } });
    try {
      const partial = await expectSums(key, orgId, N - 1);
      expect(partial.pe_mj).toBeLessThan(all.pe_mj);
    } finally {
      await prisma().asset.update({ where: { id: asset.id }, data: { active_calculation_id: current.id } });
    }

    // An organisation without assets: no ADPe or PE at all (null), none counted.
    const empty = await t.createOrg('business', 'Empty Org');
    await expectSums((await t.createKey(empty.id)).key, empty.id, 0);
  });
});

describe(`factorByRegion on ${TEST_DATABASE_KIND}`, () => {
  const Q = `query F($r: String!, $d: DateTime) { factorByRegion(type: GRID, regionCode: $r, atDate: $d) {
    value unit source source_version source_url source_license valid_from valid_to registry { display_name current_version next_check_after } } }`;

  it('answers the vintage valid at the date: DE 2022 and 2025 differ', async () => {
    const y2022 = (await t.graphql(Q, { r: 'DE', d: '2022-07-01T12:00:00Z' }, key)).body.data.factorByRegion;
    const y2025 = (await t.graphql(Q, { r: 'de', d: '2025-03-15T00:00:00Z' }, key)).body.data.factorByRegion;
    expect(y2022).toMatchObject({ valid_from: '2022-01-01', valid_to: '2022-12-31', unit: 'kg CO2e/kWh' });
    expect(y2025.valid_from).toBe('2025-01-01');
    expect(y2022.value).not.toBe(y2025.value);
    expect(y2022.source_version).toMatch(/2022/);
    expect(y2025.source_version).toMatch(/2025/);
    expect(y2022.registry.display_name).toMatch(/Electricity Maps/);
    // Without a date: today's vintage; before the oldest vintage: the oldest.
    const now = (await t.graphql(Q, { r: 'DE' }, key)).body.data.factorByRegion;
    expect(now.valid_to).toBeNull();
    const early = (await t.graphql(Q, { r: 'DE', d: '1999-01-01T00:00:00Z' }, key)).body.data.factorByRegion;
    const oldest = await prisma().emissionFactor.findFirstOrThrow({
      where: { type: 'GRID', region_code: 'DE' },
      orderBy: { valid_from: 'asc' },
    });
    expect(early.valid_from).toBe(oldest.valid_from.toISOString().slice(0, 10));
  });

  it('shows the basis, the published value and the uplift of a converted factor', async () => {
    const B = `query F($r: String!, $d: DateTime) { factorByRegion(type: GRID, regionCode: $r, atDate: $d) {
      value unit source basis published_value published_basis uplift uplift_source } }`;
    const ca = (await t.graphql(B, { r: 'US-CA' }, key)).body.data.factorByRegion;
    expect(ca).toMatchObject({
      value: 0.241221,
      unit: 'kg CO2e/kWh',
      basis: 'lifecycle_co2e',
      published_value: 0.207512,
      published_basis: 'direct_co2e',
      uplift: 1.162442,
    });
    expect(ca.uplift_source).toMatch(
      /^Electricity Maps US 2022 lifecycle average \(0\.434 kg CO2e\/kWh\) \/ US EPA eGRID2022 national CO2 /,
    );
    expect(ca.source).toMatch(/; converted to lifecycle CO2e: published value 0\.207512 x uplift 1\.162442$/);
    const bj = (await t.graphql(B, { r: 'CN-BJ', d: '2021-06-01T00:00:00Z' }, key)).body.data.factorByRegion;
    expect(bj).toMatchObject({ value: 0.5688, basis: 'lifecycle_co2e', published_value: 0.5688, published_basis: 'direct_co2', uplift: 1 });
    expect(bj.uplift_source).toMatch(/; ratio 0\.991379 is below 1, so the published value is kept$/);
    const de = (await t.graphql(B, { r: 'DE', d: '2025-03-01T00:00:00Z' }, key)).body.data.factorByRegion;
    expect(de).toMatchObject({
      basis: 'lifecycle_co2e',
      published_basis: 'lifecycle_co2e',
      published_value: de.value,
      uplift: null,
      uplift_source: null,
    });
  });

  it('names the closest codes for an unknown region', async () => {
    const res = await t.graphql(Q, { r: 'DX' }, key);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_PARAMETER');
    expect(res.body.errors[0].extensions.details).toMatch(/^regionCode: unknown region code 'DX'; closest valid codes: [A-Z]{2}(-\w+)?, /);
  });
});
