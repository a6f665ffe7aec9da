import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCountingTestApp } from '../support/counting-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import type { TestApp } from '../support/test-app.ts';
import type { StatementLog } from '../support/counting-database.ts';
import { seedDemo } from '../../src/assets/seed-demo.ts';
import { sandboxOrgId, SANDBOX_ORG_ID } from '../../src/sandbox/sandbox.ts';

// Reading the inventory over REST (docs/assets.md, "Reading the inventory over REST"): GET /v1/assets
// (assetPage) and GET /v1/assets/{id} (asset), the same fields and query as GraphQL's.

let t: TestApp & { statements: StatementLog };
const N = 45;
let orgId: string;
let key: string;
let otherKey: string;
let otherAssetId: string;
let testKey: string;
let demoKey: string;
let noContextKey: string;

const prisma = () => t.app.services.db.prisma;
const get = (path: string, k: string | null = key) => t.json(path, k ? { headers: { authorization: `Bearer ${k}` } } : {});
const cursorOf = (id: string) => Buffer.from(`GPC:S:${id}`).toString('base64');
const ownIds = async (where: object = {}) =>
  (await prisma().asset.findMany({ where: { org_id: orgId, ...where }, select: { id: true }, orderBy: { id: 'asc' } })).map((a) => a.id);

/** Every asset of every page of `query` (limit 100 unless the query says), following next_cursor. */
async function walk(query: string, k = key): Promise<{ ids: string[]; pages: any[] }> {
  const pages: any[] = [];
  let cursor: string | null = null;
  do {
    const sep = query ? '&' : '';
    const res = await get(`/v1/assets?${query}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`, k);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    pages.push(res.body);
    cursor = res.body.next_cursor;
  } while (cursor !== null && pages.length < 100);
  return { ids: pages.flatMap((p) => p.assets.map((a: { id: string }) => a.id)), pages };
}

const ASSET_KEYS = [
  'id',
  'brand',
  'mpn',
  'model',
  'serial_number',
  'category',
  'status',
  'purchase_date',
  'country',
  'specs',
  'total_kg_co2e',
  'production_kg',
  'use_phase_kg',
  'adpe_kg_sb_eq',
  'pe_mj',
  'source',
  'created_at',
  'updated_at',
  'product',
  'active_calculation',
];
const CALCULATION_KEYS = [
  'id',
  'created_at',
  'kind',
  'engine_version',
  'country',
  'category',
  'confidence',
  'total_kg_co2e',
  'production_kg',
  'transport_kg',
  'use_phase_kg',
  'end_of_life_kg',
  'product',
  'emission_factor',
  'methodology_card',
  'boundary',
  'assumptions',
  'impacts',
];

beforeAll(async () => {
  t = await createCountingTestApp();
  const org = await t.createOrg('pro', 'Inventory Org');
  orgId = org.id;
  key = (await t.createKey(org.id)).key;
  await seedDemo(prisma(), org.id, N, undefined, { seed: 42 });
  const other = await t.createOrg('business', 'Other Org');
  otherKey = (await t.createKey(other.id)).key;
  await seedDemo(prisma(), other.id, 3, undefined, { seed: 7 });
  otherAssetId = (await prisma().asset.findFirstOrThrow({ where: { org_id: other.id }, select: { id: true } })).id;
  testKey = (await t.createKey(org.id, { environment: 'test' })).key;
  demoKey = (await t.createKey(org.id, { environment: 'test', org_context: false })).key;
  noContextKey = (await t.createKey(org.id, { org_context: false })).key;
});
afterAll(() => t?.close());

describe(`GET /v1/assets on ${TEST_DATABASE_KIND}`, () => {
  it('pages through every asset exactly once, in id order, the same pages on every walk', async () => {
    const { ids, pages } = await walk('limit=10');
    expect(ids).toEqual(await ownIds());
    expect(pages.map((p) => p.assets.length)).toEqual([10, 10, 10, 10, 5]);
    for (const page of pages) expect([page.total, page.limit]).toEqual([N, 10]);
    expect(pages.at(-1).next_cursor).toBeNull();
    expect(pages[0].next_cursor).not.toContain(ids[9]); // opaque
    expect((await walk('limit=10')).ids).toEqual(ids);
    // The default page and the largest.
    const first = await get('/v1/assets');
    expect([first.body.limit, first.body.assets.length, first.body.total]).toEqual([20, 20, N]);
    const all = await get('/v1/assets?limit=100');
    expect([all.body.assets.map((a: { id: string }) => a.id), all.body.next_cursor]).toEqual([ids, null]);
  });

  it('answers the same page through GraphQL (assetPage) and its cursor is the connection’s', async () => {
    const rest = await get('/v1/assets?limit=3', otherKey);
    const graphql = await t.graphql('{ assetPage(limit: 2) { total limit next_cursor assets { id } } }', {}, otherKey);
    expect(graphql.body.data.assetPage).toEqual({
      total: 3,
      limit: 2,
      next_cursor: expect.any(String),
      assets: rest.body.assets.slice(0, 2).map((a: { id: string }) => ({ id: a.id })),
    });
    const connection = await t.graphql('{ assets(first: 2) { pageInfo { endCursor } } }', {}, otherKey);
    expect(graphql.body.data.assetPage.next_cursor).toBe(connection.body.data.assets.pageInfo.endCursor);
    const next = await get(`/v1/assets?limit=2&cursor=${encodeURIComponent(connection.body.data.assets.pageInfo.endCursor)}`, otherKey);
    expect(next.body.assets.map((a: { id: string }) => a.id)).toEqual([rest.body.assets[2].id]);
  });

  it('answers exactly these fields: the page, each asset with its product and active calculation', async () => {
    const res = await get('/v1/assets?limit=5');
    expect(Object.keys(res.body)).toEqual(['total', 'limit', 'next_cursor', 'assets']);
    const row = await prisma().asset.findUniqueOrThrow({
      where: { id: res.body.assets[0].id },
      include: { product: true, active_calculation: true },
    });
    const asset = res.body.assets[0];
    expect(Object.keys(asset)).toEqual(ASSET_KEYS);
    expect(asset).toMatchObject({
      id: row.id,
      brand: row.brand,
      mpn: row.mpn,
      model: row.model,
      serial_number: row.serial_number,
      category: row.category,
      status: row.status,
      purchase_date: row.purchase_date?.toISOString().slice(0, 10) ?? null,
      country: row.country,
      specs: row.specs,
      total_kg_co2e: row.total_kg_co2e,
      production_kg: row.production_kg,
      use_phase_kg: row.use_phase_kg,
      source: 'seed-demo',
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    });
    const calc = asset.active_calculation;
    expect(Object.keys(calc)).toEqual(CALCULATION_KEYS);
    expect(calc).toMatchObject({
      id: row.active_calculation_id,
      kind: 'footprint',
      total_kg_co2e: row.total_kg_co2e,
      engine_version: row.active_calculation!.engine_version,
      country: row.country,
    });
    // The stored grid factor (the nested field's default, GRID), with its registry.
    expect(calc.emission_factor).toMatchObject({ type: 'GRID', region_code: row.country, id: row.active_calculation!.grid_factor_id });
    expect(calc.emission_factor.registry.display_name).toMatch(/\w/);
    expect(calc.methodology_card.engine_version).toBe(row.active_calculation!.engine_version);
    // GWP, ADPe and PE as stored with the calculation, each with its phases, total and uncertainty.
    const stored = (row.active_calculation!.result as any).impacts;
    expect(stored.adpe.total).toBeGreaterThan(0);
    for (const criterion of ['gwp', 'adpe', 'pe'] as const) {
      const { production_components: _components, ...answered } = stored[criterion];
      expect(calc.impacts[criterion], criterion).toMatchObject(answered);
    }
    expect(calc.impacts.gwp.total).toBe(row.active_calculation!.total_kg_co2e);
    // The asset's whole-life ADPe and PE are those of its active calculation.
    expect(asset).toMatchObject({ adpe_kg_sb_eq: stored.adpe.total, pe_mj: stored.pe.total });
    if (row.product) expect(asset.product).toMatchObject({ id: row.product.id, name: row.product.name });
    // GET /v1/assets/{id} answers the same object.
    const one = await get(`/v1/assets/${row.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(asset);
  });

  it('filters by status, category, country and purchase dates, alone and together', async () => {
    const sample = await prisma().asset.findFirstOrThrow({
      where: { org_id: orgId, purchase_date: { not: null } },
      orderBy: { id: 'asc' },
    });
    const day = sample.purchase_date!.toISOString().slice(0, 10);
    const cases: [string, object][] = [
      [`status=${sample.status}`, { status: sample.status }],
      [`status=${sample.status.toUpperCase()}`, { status: sample.status }],
      [`category=${sample.category}`, { category: sample.category }],
      [`category=${sample.category.toUpperCase()}`, { category: sample.category }],
      [`country=${sample.country.toLowerCase()}`, { country: sample.country }],
      [`purchase_date_from=${day}`, { purchase_date: { gte: sample.purchase_date } }],
      [`purchase_date_to=${day}`, { purchase_date: { lte: sample.purchase_date } }],
      [`purchase_date_from=${day}&purchase_date_to=${day}`, { purchase_date: sample.purchase_date }],
      [
        `status=${sample.status}&category=${sample.category}&country=${sample.country}&purchase_date_to=${day}`,
        { status: sample.status, category: sample.category, country: sample.country, purchase_date: { lte: sample.purchase_date } },
      ],
      ['status=disposed', { status: 'disposed' }],
    ];
    for (const [query, where] of cases) {
      const expected = await ownIds(where);
      const { ids, pages } = await walk(`${query}&limit=7`);
      expect([query, ids]).toEqual([query, expected]);
      for (const page of pages) expect([query, page.total]).toEqual([query, expected.length]);
    }
    // Each filter narrows: the combined one is a proper subset, and holds the sample.
    const combined = await ownIds(cases[8]![1]);
    expect(combined).toContain(sample.id);
    expect(combined.length).toBeLessThan(N);
    // A filter nothing matches: an empty last page.
    const none = await get('/v1/assets?purchase_date_to=1990-01-01');
    expect(none.body).toEqual({ total: 0, limit: 20, next_cursor: null, assets: [] });
  });

  it('refuses a bad filter, page size or cursor with 400 naming it, and an unknown parameter', async () => {
    const refusals: [string, string, string, RegExp][] = [
      [
        'status=bogus',
        'INVALID_PARAMETER',
        'status',
        /^status: must be one of disposed, in_repair, in_stock, in_use, recycled, refurbished, resold, got 'bogus'$/,
      ],
      ['status=in_use&status=in_repair', 'INVALID_PARAMETER', 'status', /^status: must be given once, as status=value$/],
      ['category=lapotp', 'INVALID_PARAMETER', 'category', /^category: unknown category 'lapotp'; closest: laptop, /],
      ['country=XX', 'INVALID_PARAMETER', 'country', /^country: unknown region code 'XX'; closest valid codes: /],
      [
        'purchase_date_from=2020-13-01',
        'INVALID_PARAMETER',
        'purchase_date_from',
        /^purchase_date_from: Date is not a valid date: 2020-13-01$/,
      ],
      ['purchase_date_to=2021-02-30', 'INVALID_PARAMETER', 'purchase_date_to', /^purchase_date_to: Date is not a valid date: 2021-02-30$/],
      ['purchase_date_to=2021%2F02%2F03', 'INVALID_PARAMETER', 'purchase_date_to', /^purchase_date_to: Date must be a date YYYY-MM-DD$/],
      [
        'purchase_date_from=2021-01-01T00:00:00Z',
        'INVALID_PARAMETER',
        'purchase_date_from',
        /^purchase_date_from: Date must be a date YYYY-MM-DD$/,
      ],
      [
        'purchase_date_from=2022-01-02&purchase_date_to=2022-01-01',
        'INVALID_PARAMETER',
        'purchase_date_from',
        /^purchase_date_from: must not be after purchase_date_to$/,
      ],
      ['country=XX&category=lapotp', 'INVALID_PARAMETER', 'category', /^category: unknown category .*; country: unknown region code 'XX'/],
      ['limit=0', 'INVALID_PARAMETER', 'limit', /^limit: must be an integer from 1 to 100, got 0$/],
      ['limit=101', 'INVALID_PARAMETER', 'limit', /^limit: must be an integer from 1 to 100, got 101$/],
      ['limit=ten', 'INVALID_PARAMETER', 'limit', /^limit: must be an integer, got 'ten'$/],
      ['cursor=nope', 'INVALID_CURSOR', 'cursor', /^cursor: not a cursor of this list \(use next_cursor\)$/],
      ['purchased_after=2020-01-01', 'UNKNOWN_PARAMETER', 'purchased_after', /^purchased_after: unknown parameter/],
      ['first=10', 'UNKNOWN_PARAMETER', 'first', /^first: unknown parameter/],
      ['statuses=in_use', 'UNKNOWN_PARAMETER', 'statuses', /^statuses: unknown parameter, did you mean 'status'\?$/],
    ];
    for (const [query, code, field, details] of refusals) {
      const res = await get(`/v1/assets?${query}`);
      expect([query, res.status, res.body.code, res.body.error]).toEqual([query, 400, code, expect.stringContaining(`'${field}'`)]);
      expect(res.body.details).toMatch(details);
    }
  });

  it('answers a cursor of another organisation’s asset exactly like an unknown or malformed one', async () => {
    const own = await ownIds();
    const next = await get(`/v1/assets?limit=2&cursor=${encodeURIComponent(cursorOf(own[0]!))}`);
    expect(next.body.assets.map((a: { id: string }) => a.id)).toEqual(own.slice(1, 3));
    const forged = [cursorOf(otherAssetId), cursorOf(randomUUID()), Buffer.from('garbage').toString('base64'), 'x'.repeat(100)];
    const answers = await Promise.all(forged.map((c) => get(`/v1/assets?cursor=${encodeURIComponent(c)}`)));
    for (const answer of answers) {
      expect({ status: answer.status, body: answer.body }).toEqual({
        status: 400,
        body: {
          error: "Invalid parameter 'cursor'",
          code: 'INVALID_CURSOR',
          details: 'cursor: not a cursor of this list (use next_cursor)',
        },
      });
    }
    // Longer than any cursor: the text limit of the parameter.
    const long = await get(`/v1/assets?cursor=${'x'.repeat(101)}`);
    expect([long.status, long.body.code, long.body.details]).toEqual([400, 'INVALID_PARAMETER', expect.stringMatching(/^cursor: /)]);
  });

  it('reads a page in a constant number of statements (no N+1)', async () => {
    await get('/v1/assets?limit=1'); // warm the key cache
    const count = async (query: string) => {
      t.statements.reset();
      const res = await get(`/v1/assets?${query}`);
      expect(res.status).toBe(200);
      return t.statements.ownWork;
    };
    const small = await count('limit=10');
    // The count, the assets, their products, calculations, factors and registries.
    expect(small).toBeLessThanOrEqual(7);
    expect(await count('limit=40')).toBe(small);
    // A cursor costs its one indexed check.
    expect(await count(`limit=40&cursor=${encodeURIComponent(cursorOf((await ownIds())[0]!))}`)).toBe(small + 1);
  });
});

describe(`GET /v1/assets/{id} on ${TEST_DATABASE_KIND}`, () => {
  it('answers another organisation’s asset exactly like one that does not exist: 404', async () => {
    const missing = randomUUID();
    const [foreign, unknown] = await Promise.all([get(`/v1/assets/${otherAssetId}`), get(`/v1/assets/${missing}`)]);
    const body = (id: string) => ({ error: 'Asset not found', code: 'NOT_FOUND', details: `id: no asset ${id} in this organisation` });
    expect({ status: foreign.status, body: foreign.body }).toEqual({ status: 404, body: body(otherAssetId) });
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 404, body: body(missing) });
    expect([...foreign.headers.keys()].sort()).toEqual([...unknown.headers.keys()].sort());
    // The same asset is its own organisation's to read.
    expect((await get(`/v1/assets/${otherAssetId}`, otherKey)).body.id).toBe(otherAssetId);
    // GraphQL keeps its null for the same ids.
    const graphql = await t.graphql('query ($id: ID!) { asset(id: $id) { id } }', { id: missing }, otherKey);
    expect(graphql.body.data).toEqual({ asset: null });
  });

  it('refuses a malformed id with 400 naming it; /v1/assets/csv stays the CSV import', async () => {
    for (const id of ['not-a-uuid', 'csv']) {
      const res = await get(`/v1/assets/${id}`);
      expect([res.status, res.body]).toEqual([
        400,
        { error: "Invalid parameter 'id'", code: 'INVALID_PARAMETER', details: `id: must be an asset id (UUID), got '${id}'` },
      ]);
    }
    const unknown = await get(`/v1/assets/${randomUUID()}?expand=all`);
    expect([unknown.status, unknown.body.code]).toEqual([400, 'UNKNOWN_PARAMETER']);
    const importer = (await t.createKey((await t.createOrg('pro', 'CSV Org')).id)).key;
    const csv = await t.json('/v1/assets/csv', {
      method: 'POST',
      headers: { authorization: `Bearer ${importer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ csv: 'brand,model,serial_number,country\nDell,Latitude 5440,CSV-1,DE' }),
    });
    expect([csv.status, csv.body.created]).toEqual([200, 1]);
    const method = await t.json('/v1/assets/csv', { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    expect([method.status, method.headers.get('allow')]).toEqual([405, 'GET, HEAD, POST']);
  });
});

describe(`Keys, sandbox and quota on ${TEST_DATABASE_KIND}`, () => {
  it('shows a test key its sandbox only, never the organisation’s real assets', async () => {
    const real = new Set(await ownIds());
    const sandbox = await walk('limit=100', testKey);
    expect(sandbox.pages[0].total).toBe(120);
    expect(sandbox.ids).toEqual(
      (await prisma().asset.findMany({ where: { org_id: sandboxOrgId(orgId) }, select: { id: true }, orderBy: { id: 'asc' } })).map(
        (a) => a.id,
      ),
    );
    expect(sandbox.ids.filter((id) => real.has(id))).toEqual([]);
    const realId = [...real][0]!;
    const byId = await get(`/v1/assets/${realId}`, testKey);
    expect([byId.status, byId.body.code]).toEqual([404, 'NOT_FOUND']);
    expect((await get(`/v1/assets/${sandbox.ids[0]}`, testKey)).status).toBe(200);
    // A real key cannot read the sandbox either.
    expect((await get(`/v1/assets/${sandbox.ids[0]}`)).status).toBe(404);
    // A test key without organisation context reads the shared demo sandbox.
    const demo = await walk('limit=100', demoKey);
    expect(demo.ids).toEqual(
      (await prisma().asset.findMany({ where: { org_id: SANDBOX_ORG_ID }, select: { id: true }, orderBy: { id: 'asc' } })).map((a) => a.id),
    );
    expect(demo.ids.filter((id) => real.has(id))).toEqual([]);
  });

  it('refuses a missing key (401) and a live key without organisation context (403) before any quota', async () => {
    const anonymous = await get('/v1/assets', null);
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 'MISSING_API_KEY']);
    for (const path of ['/v1/assets', `/v1/assets/${otherAssetId}`]) {
      const res = await get(path, noContextKey);
      expect([path, res.status, res.body.code]).toEqual([path, 403, 'NO_ORGANIZATION_CONTEXT']);
    }
  });

  it('counts each read against the request quota; refusals (400, 404) are given back', async () => {
    const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));
    const ownId = (await ownIds())[0]!;
    const first = await get('/v1/assets?limit=1');
    expect(first.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    const one = await get(`/v1/assets/${ownId}`);
    expect(remaining(one)).toBe(remaining(first) - 1);
    const notFound = await get(`/v1/assets/${randomUUID()}`);
    const invalid = await get('/v1/assets?limit=0');
    const after = await get('/v1/assets?limit=1');
    expect([notFound.status, invalid.status]).toEqual([404, 400]);
    expect(remaining(after)).toBe(remaining(one) - 1);
  });
});

describe('OpenAPI of the inventory reads', () => {
  it('documents assetPage and asset: their parameters, page body and errors', async () => {
    const doc = (await t.json('/v1/openapi.json')).body;
    const list = doc.paths['/v1/assets'].get;
    const one = doc.paths['/v1/assets/{id}'].get;
    expect([list.operationId, one.operationId, doc.paths['/v1/assets'].post.operationId]).toEqual(['assetPage', 'asset', 'importAssets']);
    expect(list.parameters.map((p: { name: string; in: string; required: boolean }) => [p.name, p.in, p.required])).toEqual([
      ['status', 'query', false],
      ['category', 'query', false],
      ['country', 'query', false],
      ['purchase_date_from', 'query', false],
      ['purchase_date_to', 'query', false],
      ['limit', 'query', false],
      ['cursor', 'query', false],
    ]);
    expect(list.parameters[0].schema.$ref).toBe('#/components/schemas/AssetStatus');
    for (const date of [list.parameters[3], list.parameters[4]]) {
      expect(date.schema).toMatchObject({ type: 'string', format: 'date' });
    }
    // Each Date parameter has a schema of its own: no other parameter's description written into a shared one.
    expect([list.parameters[3].schema.description, list.parameters[4].schema.description]).toEqual([
      'Purchased on or after this date',
      'Purchased on or before this date',
    ]);
    expect(list.parameters[5].schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    expect(one.parameters.map((p: { name: string; in: string; required: boolean }) => [p.name, p.in, p.required])).toEqual([
      ['id', 'path', true],
    ]);
    expect(list.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/AssetPage' });
    expect(one.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Asset' });
    expect(Object.keys(list.responses).sort()).toEqual(['200', '400', '401', '403', '429', 'default']);
    expect(Object.keys(one.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429', 'default']);
    const page = doc.components.schemas.AssetPage;
    expect(Object.keys(page.properties)).toEqual(['total', 'limit', 'next_cursor', 'assets']);
    // Always sent (null on the last page), so required; null among its types says it may be null.
    expect(page.required).toEqual(['total', 'limit', 'next_cursor', 'assets']);
    expect(page.properties.next_cursor).toMatchObject({ type: ['string', 'null'] });
    // A nested field's argument (Calculation.emission_factor's type) is no parameter of any route.
    const parameters = Object.values(doc.paths).flatMap((ops: any) => Object.values(ops).flatMap((op: any) => op.parameters ?? []));
    expect(parameters.filter((p: { name: string }) => p.name.includes('_emission_factor_'))).toEqual([]);
  });
});
