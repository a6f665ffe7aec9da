import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';

// Two organisations with data; every route that exists is tried with A's key on B's ids.
let t: TestApp;
const org: Record<'A' | 'B', { id: string; key: string; assetIds: string[]; calculationId: string }> = {} as never;

const importAssets = (key: string, assets: object[]) =>
  t.json('/v1/assets', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ assets }),
  });

beforeAll(async () => {
  t = await createTestApp();
  for (const name of ['A', 'B'] as const) {
    const { id } = await t.createOrg('enterprise', `Org ${name}`);
    const { key } = await t.createKey(id);
    const imported = await importAssets(key, [
      { brand: 'Dell', model: 'Latitude 5440', serial_number: `${name}-1`, country: 'DE' },
      { brand: 'HP', model: 'EliteBook 840 G10', serial_number: `${name}-2`, country: 'FR' },
    ]);
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const footprint = await t.json('/v1/footprint?brand=Dell&model=X&country=DE', { headers: { authorization: `Bearer ${key}` } });
    org[name] = { id, key, assetIds: [], calculationId: footprint.body.calculation_id };
  }
  await t.app.services.calculations.flush();
  for (const name of ['A', 'B'] as const) {
    org[name].assetIds = (await t.app.services.db.prisma.asset.findMany({ where: { org_id: org[name].id }, select: { id: true } })).map(
      (a) => a.id,
    );
    expect(org[name].assetIds).toHaveLength(2);
  }
});
afterAll(() => t.close());

describe(`organisation isolation on ${TEST_DATABASE_KIND}`, () => {
  it('GraphQL organization, asset and assets show only the caller’s organisation', async () => {
    const res = await t.graphql(
      '{ organization { id asset_count } assets(first: 100) { edges { node { id serial_number active_calculation { id } } } } }',
      {},
      org.A.key,
    );
    expect(res.body.data.organization).toEqual({ id: org.A.id, asset_count: 2 });
    const nodes = res.body.data.assets.edges.map((e: any) => e.node);
    expect(nodes.map((n: any) => n.id).sort()).toEqual([...org.A.assetIds].sort());
    expect(nodes.every((n: any) => n.serial_number.startsWith('A-'))).toBe(true);
    for (const id of org.B.assetIds) {
      const other = await t.graphql('query ($id: ID!) { asset(id: $id) { id serial_number } }', { id }, org.A.key);
      expect(other.body.data?.asset ?? null, id).toBeNull();
      expect(JSON.stringify(other.body)).not.toContain('B-');
    }
  });

  it('filters cannot reach another organisation', async () => {
    const res = await t.graphql('{ assets(first: 100, country: "FR") { edges { node { id } } } }', {}, org.A.key);
    const ids = res.body.data.assets.edges.map((e: any) => e.node.id);
    expect(ids.some((id: string) => org.B.assetIds.includes(id))).toBe(false);
  });

  it('simulateRefurbish does not accept, or reveal, another organisation’s assets', async () => {
    const query = 'mutation ($ids: [ID!]!) { simulateRefurbish(assetIds: $ids) { affected_assets_count } }';
    const foreign = await t.graphql(query, { ids: [org.B.assetIds[0]] }, org.A.key);
    expect(foreign.body.errors[0].extensions.code).toBe('ASSETS_NOT_FOUND');
    const unknown = await t.graphql(query, { ids: ['00000000-0000-4000-8000-000000000000'] }, org.A.key);
    expect(unknown.body.errors[0].message).toBe(foreign.body.errors[0].message);
    const own = await t.graphql(query, { ids: org.A.assetIds }, org.A.key);
    expect(own.body.data.simulateRefurbish.affected_assets_count).toBe(2);
    expect(await t.app.services.db.prisma.scenarioRun.count({ where: { org_id: org.B.id } })).toBe(0);
  });

  it('an import with another organisation’s serial numbers creates the caller’s own asset and leaves B’s untouched', async () => {
    const before = await t.app.services.db.prisma.asset.findMany({ where: { org_id: org.B.id }, orderBy: { id: 'asc' } });
    const res = await importAssets(org.A.key, [{ brand: 'Lenovo', model: 'ThinkPad T14', serial_number: 'B-1', country: 'PL' }]);
    expect(res.status).toBe(200);
    const after = await t.app.services.db.prisma.asset.findMany({ where: { org_id: org.B.id }, orderBy: { id: 'asc' } });
    expect(after).toEqual(before);
    expect(await t.app.services.db.prisma.asset.count({ where: { org_id: org.A.id, serial_number: 'B-1' } })).toBe(1);
  });

  it('stored calculations belong to the caller’s organisation', async () => {
    const calc = await t.app.services.db.prisma.calculation.findUniqueOrThrow({ where: { id: org.B.calculationId } });
    expect(calc.org_id).toBe(org.B.id);
    const res = await t.graphql('{ assets(first: 100) { edges { node { active_calculation { id } } } } }', {}, org.A.key);
    expect(JSON.stringify(res.body)).not.toContain(org.B.calculationId);
  });

  it('the console of A cannot revoke B’s keys', async () => {
    const base = await t.listen();
    const login = await fetch(`${base}/console/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      body: `key=${org.A.key}`,
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const bKey = await t.app.services.db.prisma.apiKey.findFirstOrThrow({ where: { org_id: org.B.id } });
    await fetch(`${base}/console/keys/${bKey.id}/revoke`, { method: 'POST', redirect: 'manual', headers: { cookie, origin: base } });
    expect((await t.app.services.db.prisma.apiKey.findUniqueOrThrow({ where: { id: bKey.id } })).revoked_at).toBeNull();
    const page = await (await fetch(`${base}/console`, { headers: { cookie } })).text();
    expect(page).not.toContain(bKey.prefix);
  });
});
