import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { SANDBOX_ORG_ID, sandboxOrgId } from '../../src/sandbox/sandbox.ts';

// svc_test_ keys never read or write real data: each organisation's test keys work in its own
// sandbox; test keys without organisation context read the demo sandbox and cannot change it.
let t: TestApp;
const org: Record<'A' | 'B', { id: string; live: string; test: string; realAssetIds: string[] }> = {} as never;
let demoKey: string;

const prisma = () => t.app.services.db.prisma;
const auth = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
const restImport = (key: string, assets: object[]) =>
  t.json('/v1/assets', { method: 'POST', headers: auth(key), body: JSON.stringify({ assets }) });
const IMPORT = 'mutation ($a: [AssetInput!]!) { importAssets(assets: $a) { created updated assets { id serial_number } } }';
const IMPORT_CSV = 'mutation ($csv: String!) { importAssetsCsv(csv: $csv) { created updated assets { id serial_number } } }';
const ASSET_BY_ID = 'query ($id: ID!) { asset(id: $id) { id serial_number status } }';
const realAssets = (orgId: string) => prisma().asset.findMany({ where: { org_id: orgId }, orderBy: { id: 'asc' } });

beforeAll(async () => {
  t = await createTestApp();
  for (const name of ['A', 'B'] as const) {
    const { id } = await t.createOrg('business', `Org ${name}`);
    const live = (await t.createKey(id)).key;
    const serials = [1, 2, 3].map((n) => `${name}-${n}`);
    const imported = await restImport(
      live,
      serials.map((serial_number) => ({ brand: 'Dell', model: 'Latitude 5440', serial_number, country: 'DE', status: 'in_use' })),
    );
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    org[name] = {
      id,
      live,
      test: (await t.createKey(id, { environment: 'test' })).key,
      realAssetIds: imported.body.assets.map((a: { id: string }) => a.id),
    };
  }
  demoKey = (await t.createKey(org.A.id, { environment: 'test', org_context: false })).key;
});
afterAll(() => t.close());

describe(`svc_test_ keys on ${TEST_DATABASE_KIND}`, () => {
  it('work in their organisation’s own sandbox: the demo estate, same plan, never the real organisation', async () => {
    const res = await t.graphql('{ organization { id name plan asset_count } }', {}, org.A.test);
    expect(res.body.data.organization).toEqual({
      id: sandboxOrgId(org.A.id),
      name: 'Sandbox of Org A',
      plan: 'business',
      asset_count: 120,
    });
    expect(sandboxOrgId(org.A.id)).not.toBe(sandboxOrgId(org.B.id));
    const real = await t.graphql(ASSET_BY_ID, { id: org.A.realAssetIds[0] }, org.A.test);
    expect(real.body).toEqual({ data: { asset: null }, extensions: expect.any(Object) });
  });

  for (const [via, serial, importWith] of [
    ['REST POST /v1/assets', 'A-1', async (key: string, asset: Record<string, string>) => (await restImport(key, [asset])).body],
    [
      'GraphQL importAssets',
      'A-2',
      async (key: string, asset: Record<string, string>) => (await t.graphql(IMPORT, { a: [asset] }, key)).body.data.importAssets,
    ],
    [
      'GraphQL importAssetsCsv',
      'A-3',
      async (key: string, asset: Record<string, string>) =>
        (await t.graphql(IMPORT_CSV, { csv: `${Object.keys(asset).join(',')}\n${Object.values(asset).join(',')}` }, key)).body.data
          .importAssetsCsv,
    ],
  ] as const) {
    it(`${via} with a test key leaves the real organisation unchanged`, async () => {
      const before = await realAssets(org.A.id);
      // The serial number of a real asset: in the sandbox it is a new asset, the real one stays in use.
      const result = await importWith(org.A.test, {
        brand: 'HP',
        model: 'EliteBook 840 G10',
        serial_number: serial,
        country: 'FR',
        status: 'disposed',
      });
      expect(result).toMatchObject({ created: 1, updated: 0 });
      const imported = result.assets[0].id;
      expect(await realAssets(org.A.id)).toEqual(before);
      expect(before.map((a) => a.status)).toEqual(['in_use', 'in_use', 'in_use']);

      expect((await t.graphql(ASSET_BY_ID, { id: imported }, org.A.test)).body.data.asset).toEqual({
        id: imported,
        serial_number: serial,
        status: 'disposed',
      });
      expect((await t.graphql(ASSET_BY_ID, { id: imported }, org.A.live)).body.data.asset).toBeNull();
      expect((await prisma().asset.findUniqueOrThrow({ where: { id: imported } })).org_id).toBe(sandboxOrgId(org.A.id));
    });
  }

  it('of organisation A never see organisation B’s sandbox', async () => {
    const inB = await restImport(org.B.test, [{ brand: 'Lenovo', model: 'ThinkPad T14', serial_number: 'ONLY-IN-B', country: 'PL' }]);
    expect(inB.status).toBe(200);
    const id = inB.body.assets[0].id;
    expect((await t.graphql(ASSET_BY_ID, { id }, org.B.test)).body.data.asset.serial_number).toBe('ONLY-IN-B');
    expect((await t.graphql(ASSET_BY_ID, { id }, org.A.test)).body.data.asset).toBeNull();
    const page = await t.graphql(
      '{ organization { id } assets(first: 100, country: "PL") { edges { node { serial_number } } } }',
      {},
      org.A.test,
    );
    expect(page.body.data.organization.id).toBe(sandboxOrgId(org.A.id));
    expect(JSON.stringify(page.body)).not.toContain('ONLY-IN-B');
  });

  it('store footprint calculations in the sandbox organisation (pipeline and fast path)', async () => {
    const path = '/v1/footprint?brand=Dell&model=Latitude%205440&country=DE';
    const first = await t.json(path, { headers: auth(org.A.test) });
    const second = await t.json(path, { headers: auth(org.A.test) }); // the same query string: the fast path
    expect([first.status, second.status]).toEqual([200, 200]);
    for (const { body } of [first, second]) {
      expect((await prisma().calculation.findUniqueOrThrow({ where: { id: body.calculation_id } })).org_id).toBe(sandboxOrgId(org.A.id));
    }
    expect(
      await prisma().calculation.count({
        where: { org_id: org.A.id, id: { in: [first.body.calculation_id, second.body.calculation_id] } },
      }),
    ).toBe(0);
  });

  it('count their usage for the key’s own organisation', async () => {
    const key = await prisma().apiKey.findFirstOrThrow({ where: { org_id: org.A.id, environment: 'test', org_context: true } });
    const usage = await prisma().usageCounter.findMany({ where: { api_key_id: key.id } });
    // Counted in Redis when TEST_REDIS_URL is set; in the database otherwise.
    for (const row of usage) expect(row.org_id).toBe(org.A.id);
  });

  // PGlite is one session shared by everything in its process (advisory locks do not exclude each
  // other there): it serves a single instance, so two instances are tried on PostgreSQL only.
  it(`create the sandbox once when first requests arrive together${TEST_DATABASE_KIND === 'postgres' ? ' at two instances' : ''}`, async () => {
    const { id } = await t.createOrg('business', 'Org C');
    const test = (await t.createKey(id, { environment: 'test' })).key;
    const second = TEST_DATABASE_KIND === 'postgres' ? await createTestApp({}, { database: t.app.services.db }) : t;
    try {
      const answers = await Promise.all([t, second, t, second].map((app) => app.graphql('{ organization { id asset_count } }', {}, test)));
      for (const res of answers) expect(res.body.data.organization).toEqual({ id: sandboxOrgId(id), asset_count: 120 });
    } finally {
      if (second !== t) await second.close();
    }
  });
});

describe(`svc_test_ keys without organisation context on ${TEST_DATABASE_KIND}`, () => {
  it('read the demo sandbox', async () => {
    const res = await t.graphql('{ organization { id asset_count } assets(first: 1) { edges { node { id } } } }', {}, demoKey);
    expect(res.body.data.organization).toEqual({ id: SANDBOX_ORG_ID, asset_count: 120 });
    expect(res.body.data.assets.edges).toHaveLength(1);
  });

  it('cannot write to it: 403 SANDBOX_READ_ONLY on every interface, nothing stored', async () => {
    const before = await prisma().asset.count({ where: { org_id: SANDBOX_ORG_ID } });
    const calculationsBefore = await prisma().calculation.count({ where: { org_id: SANDBOX_ORG_ID } });
    const asset = { brand: 'HP', model: 'EliteBook 840 G10', serial_number: 'DEMO-WRITE', country: 'FR' };

    const rest = await restImport(demoKey, [asset]);
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ code: 'SANDBOX_READ_ONLY' });
    const csv = await t.json('/v1/assets/csv', {
      method: 'POST',
      headers: auth(demoKey),
      body: JSON.stringify({ csv: 'brand,model,serial_number,country\nHP,X,DEMO-CSV,DE' }),
    });
    expect([csv.status, csv.body.code]).toEqual([403, 'SANDBOX_READ_ONLY']);
    const gql = await t.graphql(IMPORT, { a: [asset] }, demoKey);
    expect(gql.body.errors[0].extensions.code).toBe('SANDBOX_READ_ONLY');
    const ids = (await t.graphql('{ assets(first: 2) { edges { node { id } } } }', {}, demoKey)).body.data.assets.edges.map(
      (e: any) => e.node.id,
    );
    const scenario = await t.graphql(
      'mutation ($ids: [ID!]!) { simulateRefurbish(assetIds: $ids) { affected_assets_count } }',
      { ids },
      demoKey,
    );
    expect(scenario.body.errors[0].extensions.code).toBe('SANDBOX_READ_ONLY');

    const footprint = await t.json('/v1/footprint?brand=Dell&model=Latitude%205440&country=FR', { headers: auth(demoKey) });
    expect(footprint.status).toBe(200);
    expect(footprint.body.calculation_id).toBeNull();
    expect(await prisma().asset.count({ where: { org_id: SANDBOX_ORG_ID } })).toBe(before);
    expect(await prisma().calculation.count({ where: { org_id: SANDBOX_ORG_ID } })).toBe(calculationsBefore);
    expect(await prisma().scenarioRun.count({ where: { org_id: SANDBOX_ORG_ID } })).toBe(0);
  });
});
