import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCountingTestApp } from '../support/counting-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { createTestApp, qs, type TestApp } from '../support/test-app.ts';
import type { StatementLog } from '../support/counting-database.ts';
import { bearer, issue } from '../certificates/support.ts';

// A calculation's id is the address of its content (organisation, inputs, engine version, factor
// vintages, answer): asking the same again answers the stored calculation and writes nothing.
describe(`content-addressed calculations on ${TEST_DATABASE_KIND}`, () => {
  let t: TestApp & { statements: StatementLog };
  let orgId: string;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    t = await createCountingTestApp();
    orgId = (await t.createOrg('enterprise', 'Repeat Org')).id;
    key = (await t.createKey(orgId)).key;
    otherKey = (await t.createKey((await t.createOrg('enterprise', 'Other Org')).id)).key;
  });
  afterAll(() => t.close());

  const prisma = () => t.app.services.db.prisma;
  const footprint = async (params: Record<string, string | number>, k: string | null = key, app: TestApp = t) => {
    const res = await app.json(`/v1/footprint?${qs(params)}`, { headers: k ? { authorization: `Bearer ${k}` } : {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { calculation_id: string | null; calculated_at: string; total_kg_co2e: number };
  };
  /** Statements that write calculation rows. */
  const calculationWrites = () => t.statements.statements.filter((sql) => /INSERT INTO calculations/.test(sql)).length;
  const rows = () => prisma().calculation.count();
  const laptop = { brand: 'Dell', model: 'Latitude 5440', category: 'laptop', country: 'DE', ram_gb: 16 };

  it('answers a repeated footprint with the same calculation_id and calculated_at, and writes nothing', async () => {
    const first = await footprint(laptop);
    expect(first.calculation_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const count = await rows();
    const stored = await prisma().calculation.findUniqueOrThrow({ where: { id: first.calculation_id! } });
    expect(stored.created_at.toISOString()).toBe(first.calculated_at);

    t.statements.reset();
    // The second through the pipeline's fast path, the third as GraphQL: the same calculation.
    const again = [await footprint(laptop), await footprint(laptop)];
    const graphql = await t.graphql(
      'query($brand: String!, $model: String, $category: String, $country: String!, $ram_gb: Float) { footprint(brand: $brand, model: $model, category: $category, country: $country, ram_gb: $ram_gb) { calculation_id calculated_at } }',
      laptop,
      key,
    );
    expect(graphql.body.errors).toBeUndefined();
    for (const answer of [...again, graphql.body.data.footprint]) {
      expect(answer.calculation_id).toBe(first.calculation_id);
      expect(answer.calculated_at).toBe(first.calculated_at);
    }
    expect(calculationWrites()).toBe(0);
    expect(await rows()).toBe(count);
  });

  it('gives another input, another organisation and another kind a calculation of its own; anonymous calls none', async () => {
    const base = await footprint(laptop);
    const ids = [
      base.calculation_id,
      (await footprint({ ...laptop, ram_gb: 32 })).calculation_id,
      (await footprint({ ...laptop, country: 'FR' })).calculation_id,
      (await footprint(laptop, otherKey)).calculation_id,
    ];
    const savings = await t.json(`/v1/savings?${qs(laptop)}`, { headers: { authorization: `Bearer ${key}` } });
    expect(savings.status).toBe(200);
    ids.push(savings.body.calculation_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(await prisma().calculation.count({ where: { id: { in: ids as string[] } } })).toBe(ids.length);

    t.statements.reset();
    expect((await footprint(laptop, null)).calculation_id).toBeNull();
    expect(calculationWrites()).toBe(0);
  });

  it('keeps a certificate of the calculation valid after the same footprint is asked again', async () => {
    const first = await footprint({ ...laptop, ram_gb: 8 });
    const certificate = await issue(t, key, first.calculation_id);
    expect(certificate.status).toBe(200);
    const again = await footprint({ ...laptop, ram_gb: 8 });
    expect(again.calculation_id).toBe(first.calculation_id);
    const reissued = await issue(t, key, again.calculation_id);
    expect(reissued.body.id).toBe(certificate.body.id);
    const verified = await t.json(new URL(certificate.body.verify_url).pathname, { headers: { accept: 'application/json' } });
    expect(verified.body.verdict).toBe('valid');
  });

  it('answers a repeated batch with the same ids, one per distinct product, and writes nothing', async () => {
    const products = [
      { brand: 'HP', model: 'EliteBook 840 G10', country: 'NL' },
      { brand: 'Lenovo', model: 'ThinkPad T14 Gen 4', country: 'SE' },
      { brand: 'HP', model: 'EliteBook 840 G10', country: 'NL' },
    ];
    const batch = async () => {
      const res = await t.json('/v1/footprint/batch', { method: 'POST', headers: bearer(key), body: JSON.stringify({ products }) });
      expect(res.status).toBe(200);
      return (res.body.results as { calculation_id: string }[]).map((r) => r.calculation_id);
    };
    const first = await batch();
    expect(first[2]).toBe(first[0]);
    expect(first[1]).not.toBe(first[0]);
    const count = await rows();
    t.statements.reset();
    expect(await batch()).toEqual(first);
    expect(calculationWrites()).toBe(0);
    expect(await rows()).toBe(count);
    // The same product asked alone is the same calculation.
    expect((await footprint(products[1]!)).calculation_id).toBe(first[1]);
  });

  it('keeps a calculation per asset: assets alike have one each, importing an asset unchanged stores nothing new', async () => {
    const post = (assets: object[]) => t.json('/v1/assets', { method: 'POST', headers: bearer(key), body: JSON.stringify({ assets }) });
    const alike = { brand: 'Dell', model: 'Latitude 5440', country: 'DE', ram_gb: 16 };
    const first = await post([
      { ...alike, serial_number: 'CA-1' },
      { ...alike, serial_number: 'CA-2' },
    ]);
    expect(first.body).toMatchObject({ created: 2, failed: 0 });
    const [a, b] = first.body.assets as { id: string; calculation_id: string }[];
    expect(a!.calculation_id).not.toBe(b!.calculation_id);
    // Not the footprint a plain request stored for the same device: that row belongs to no asset.
    const plain = await footprint(alike);
    expect([a!.calculation_id, b!.calculation_id]).not.toContain(plain.calculation_id);
    // Yet each asset's row stores the same answer and inputs, with its own calculated_at (its created_at).
    const { calculated_at: _at, ...answer } = (await prisma().calculation.findUniqueOrThrow({ where: { id: plain.calculation_id! } }))
      .result as Record<string, unknown>;
    for (const asset of [a!, b!]) {
      const row = await prisma().calculation.findUniqueOrThrow({ where: { id: asset.calculation_id } });
      expect(row.result).toEqual({ ...answer, calculated_at: row.created_at.toISOString() });
      expect(row.inputs).toEqual({ ...alike, mpn: null, category: null });
    }
    const count = await rows();

    const again = await post([{ ...alike, serial_number: 'CA-1' }]);
    expect(again.body).toMatchObject({ updated: 1, failed: 0 });
    expect(again.body.assets[0].calculation_id).toBe(a!.calculation_id);
    expect(await rows()).toBe(count);
    const linked = await prisma().calculation.findUniqueOrThrow({ where: { id: a!.calculation_id } });
    expect(linked.asset_id).toBe(a!.id);
  });

  it('stores for assets of one device bought on different days the rows each would have alone', async () => {
    // P2419H is dated by the catalogue: its rows share one result (the writer sends it once); Custom
    // Build 14 by the purchase date, which its result cites: a result per date.
    const rows = ['2020-01-10', '2021-06-30', '2023-07-01'].flatMap((purchase_date, i) => [
      { brand: 'Dell', model: 'P2419H', country: 'DE', purchase_date, serial_number: `DAY-P-${i}` },
      { brand: 'Dell', model: 'Custom Build 14', country: 'DE', purchase_date, serial_number: `DAY-C-${i}` },
    ]);
    const post = (k: string, assets: object[]) =>
      t.json('/v1/assets', { method: 'POST', headers: bearer(k), body: JSON.stringify({ assets }) });
    const together = await post(key, rows);
    expect(together.body).toMatchObject({ created: rows.length, failed: 0 });
    const alone: string[] = [];
    for (const row of rows) alone.push((await post(otherKey, [row])).body.assets[0].calculation_id);

    // Every stored column as PostgreSQL prints it, but the row's own (id, organisation, key, asset, when).
    type Stored = { id: string; row: string; result: Record<string, any>; impacts: (number | null)[] };
    const stored = async (ids: string[]) => {
      const found = await prisma().$queryRawUnsafe<Stored[]>(
        `SELECT id::text, result,
          (to_jsonb(c) - 'id' - 'org_id' - 'api_key_id' - 'asset_id' - 'created_at' || jsonb_build_object('result', result - 'calculated_at'))::text AS row,
          ARRAY[adpe_production_kg_sb_eq, adpe_transport_kg_sb_eq, adpe_use_phase_kg_sb_eq, adpe_end_of_life_kg_sb_eq, adpe_kg_sb_eq,
            pe_production_mj, pe_transport_mj, pe_use_phase_mj, pe_end_of_life_mj, pe_mj] AS impacts
        FROM calculations c WHERE id = ANY ($1::uuid[])`,
        ids,
      );
      return ids.map((id) => found.find((f) => f.id === id)!);
    };
    const batch = await stored(together.body.assets.map((a: { calculation_id: string }) => a.calculation_id));
    const single = await stored(alone);
    for (const [i, row] of batch.entries()) {
      expect(row.row).toBe(single[i]!.row);
      const { adpe, pe } = row.result.impacts;
      const figures = [adpe, pe].flatMap((f) => [f.phases.production, f.phases.transport, f.phases.use, f.phases.end_of_life, f.total]);
      expect(figures.every((f) => typeof f === 'number')).toBe(true);
      expect(row.impacts).toEqual(figures);
    }
    // The catalogue-dated device: one answer for every date; the other: one per date.
    const answer = (i: number) => JSON.parse(batch[i]!.row).result;
    expect(answer(2)).toEqual(answer(0));
    expect(answer(3)).not.toEqual(answer(1));
  });

  it('after a restart answers the stored calculation, and a new grid factor vintage is a new calculation', async () => {
    const before = await footprint({ ...laptop, country: 'PL' });
    const beforeAt = await footprint({ ...laptop, country: 'AT' });
    // A new data release for Poland: a later vintage of its grid factor, loaded by the next start.
    const current = await prisma().emissionFactor.findFirstOrThrow({
      where: { type: 'GRID', region_code: 'PL' },
      orderBy: { valid_from: 'desc' },
    });
    const today = new Date(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
    expect(current.valid_from.getTime()).toBeLessThan(today.getTime());
    const { id: _id, created_at: _created, ...factor } = current;
    await prisma().emissionFactor.create({
      data: {
        ...factor,
        id: randomUUID(),
        value: current.value * 0.9,
        source_version: `${current.source_version}-next`,
        valid_from: today,
      },
    });
    await t.app.services.calculations.flush();
    const count = await rows();

    const restarted = await createTestApp({}, { database: t.app.services.db });
    try {
      t.statements.reset();
      const afterAt = await footprint({ ...laptop, country: 'AT' }, key, restarted);
      expect(afterAt.calculation_id).toBe(beforeAt.calculation_id);
      expect(afterAt.calculated_at).toBe(beforeAt.calculated_at);
      expect(await rows()).toBe(count);

      const after = await footprint({ ...laptop, country: 'PL' }, key, restarted);
      expect(after.calculation_id).not.toBe(before.calculation_id);
      expect(after.total_kg_co2e).toBeLessThan(before.total_kg_co2e);
      expect(await rows()).toBe(count + 1);
      const stored = await prisma().calculation.findUniqueOrThrow({ where: { id: after.calculation_id! } });
      expect(stored.grid_factor_id).not.toBe(current.id);
    } finally {
      await restarted.close();
    }
  });
});
