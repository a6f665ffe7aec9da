import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { runCli } from '../support/process.ts';
import { ODATA_AUDIT_EVENT } from '../../src/odata/query.ts';
import { METADATA_XML } from '../../src/odata/csdl.ts';

/** GET /v1/odata… over HTTP (in process): access, every query option, paging, errors and proof headers. */
let t: TestApp;
let workDir: string;
const keys: Record<string, string> = {};
let orgId: string;
const prisma = () => t.app.services.db.prisma;

interface AssetSeed {
  serial_number: string;
  brand: string;
  mpn: string | null;
  category: string;
  country: string;
  status: 'in_stock' | 'in_use' | 'in_repair' | 'refurbished' | 'resold' | 'recycled' | 'disposed';
  purchase_date: string | null;
  total_kg_co2e: number | null;
  created_at: string;
}

// Values chosen for the edge cases: quotes, LIKE wildcards, backslash, null text and numbers, ties.
const SEED: AssetSeed[] = [
  {
    serial_number: 'S01',
    brand: 'Dell',
    mpn: 'LAT-5440',
    category: 'laptop',
    country: 'DE',
    status: 'in_use',
    purchase_date: '2023-01-15',
    total_kg_co2e: 310.5,
    created_at: '2024-01-01T10:00:00Z',
  },
  {
    serial_number: 'S02',
    brand: 'Dell',
    mpn: 'OPT/7010#2?',
    category: 'desktop',
    country: 'FR',
    status: 'in_stock',
    purchase_date: '2022-06-30',
    total_kg_co2e: 420,
    created_at: '2024-01-02T10:00:00Z',
  },
  {
    serial_number: 'S03',
    brand: "O'Neil",
    mpn: null,
    category: 'monitor',
    country: 'DE',
    status: 'recycled',
    purchase_date: null,
    total_kg_co2e: null,
    created_at: '2024-01-03T10:00:00Z',
  },
  {
    serial_number: 'S04',
    brand: '100% Green',
    mpn: 'a_b',
    category: 'laptop',
    country: 'NL',
    status: 'in_use',
    purchase_date: '2024-02-29',
    total_kg_co2e: 150.25,
    created_at: '2024-01-04T10:00:00Z',
  },
  {
    serial_number: 'S05',
    brand: '1000 Watt',
    mpn: 'axb',
    category: 'server',
    country: 'US-CA',
    status: 'in_repair',
    purchase_date: '2021-12-31',
    total_kg_co2e: 1200,
    created_at: '2024-01-05T10:00:00Z',
  },
  {
    serial_number: 'S06',
    brand: 'Back\\Slash',
    mpn: 'x\\y',
    category: 'laptop',
    country: 'DE',
    status: 'disposed',
    purchase_date: '2020-03-01',
    total_kg_co2e: 310.5,
    created_at: '2024-01-06T10:00:00Z',
  },
  {
    serial_number: 'S07',
    brand: 'HP',
    mpn: 'EliteBook 840',
    category: 'laptop',
    country: 'GB',
    status: 'resold',
    purchase_date: '2023-01-15',
    total_kg_co2e: 95,
    created_at: '2024-01-07T10:00:00Z',
  },
  {
    serial_number: 'S08',
    brand: 'hp',
    mpn: 'elitebook',
    category: 'laptop',
    country: 'DE',
    status: 'refurbished',
    purchase_date: '2019-07-04',
    total_kg_co2e: 0,
    created_at: '2024-01-08T10:00:00Z',
  },
  {
    serial_number: 'S09',
    brand: 'Lenovo',
    mpn: null,
    category: 'tablet',
    country: 'PL',
    status: 'in_use',
    purchase_date: '2025-01-01',
    total_kg_co2e: -1.5,
    created_at: '2024-01-09T10:00:00Z',
  },
  {
    serial_number: 'S10',
    brand: 'Lenovo',
    mpn: "it's",
    category: 'laptop',
    country: 'DE',
    status: 'in_use',
    purchase_date: null,
    total_kg_co2e: 88.125,
    created_at: '2024-01-10T10:00:00Z',
  },
];
const ids: Record<string, string> = {};

const auth = (key: string | null | undefined): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});
/** `key` null: no Authorization header. */
const get = (p: string, key: string | null = keys.bi!, headers: Record<string, string> = {}) =>
  t.json(p, { headers: { ...auth(key), ...headers } });
const odata = (set: string, query = '', key: string | null = keys.bi!, headers: Record<string, string> = {}) =>
  get(`/v1/odata/${set}${query ? `?${query}` : ''}`, key, headers);

/** The serial numbers a filter returns, in key order. */
async function serials(filter: string): Promise<string[]> {
  const res = await odata('Assets', `$filter=${encodeURIComponent(filter)}&$select=serial_number&$orderby=serial_number`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.value.map((r: { serial_number: string }) => r.serial_number);
}
const where = (predicate: (a: AssetSeed) => boolean) => SEED.filter(predicate).map((a) => a.serial_number);

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), 'lcf-odata-'));
  t = await createTestApp();
  const org = await t.createOrg('enterprise', 'BI Corp');
  orgId = org.id;
  keys.bi = (await t.createKey(org.id, { bi_enabled: true })).key;
  keys.noBi = (await t.createKey(org.id)).key;
  keys.noContext = (await t.createKey(org.id, { bi_enabled: true, org_context: false })).key;
  keys.demo = (await t.createKey(org.id, { bi_enabled: true, environment: 'test', org_context: false })).key;
  const business = await t.createOrg('business', 'Almost BI');
  keys.business = (await t.createKey(business.id, { bi_enabled: true })).key;
  const other = await t.createOrg('enterprise', 'Other Corp');
  keys.other = (await t.createKey(other.id, { bi_enabled: true })).key;
  await prisma().asset.create({ data: { org_id: other.id, brand: 'Dell', category: 'laptop', country: 'DE', serial_number: 'OTHER-1' } });
  for (const a of SEED) {
    const row = await prisma().asset.create({
      data: {
        org_id: orgId,
        ...a,
        purchase_date: a.purchase_date ? new Date(`${a.purchase_date}T00:00:00Z`) : null,
        created_at: new Date(a.created_at),
        updated_at: new Date(a.created_at),
      },
    });
    ids[a.serial_number] = row.id;
  }
}, 120_000);
afterAll(async () => {
  await t?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe(`OData access on ${TEST_DATABASE_KIND}`, () => {
  it('answers 401 without a key (inviting Basic), 401 for a bad key, 402 without bi_enabled, 403 below enterprise or without organisation', async () => {
    for (const p of ['/v1/odata', '/v1/odata/$metadata', '/v1/odata/Assets']) {
      // Errors are JSON on every path, $metadata included.
      const none = await get(p, null);
      expect(none.status).toBe(401);
      expect(none.body.error.code).toBe('MISSING_API_KEY');
      expect(none.headers.get('www-authenticate')).toMatch(/Basic realm="OData"/);
      expect((await get(p, 'svc_live_notAKeyOfThisService0000000000')).status).toBe(401);
      expect((await get(p, keys.noBi)).body.error).toMatchObject({ code: 'BI_NOT_ENABLED' });
      expect((await get(p, keys.noBi)).status).toBe(402);
      const business = await get(p, keys.business);
      expect([business.status, business.body.error.code]).toEqual([403, 'PLAN_TOO_LOW']);
      const noContext = await get(p, keys.noContext);
      expect([noContext.status, noContext.body.error.code]).toEqual([403, 'NO_ORGANIZATION_CONTEXT']);
    }
    // The read-only demo sandbox has no audit log to record a query in.
    expect((await odata('Assets', '', keys.demo)).body.error.code).toBe('NO_ORGANIZATION_CONTEXT');
    expect((await t.request('/v1/odata/$metadata', { headers: auth(keys.demo) })).status).toBe(200);
  });

  it('accepts the API key as the password of HTTP Basic, with any user name, on OData paths only', async () => {
    const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
    const ok = await t.json('/v1/odata/Assets?$top=1', { headers: basic('powerbi', keys.bi!) });
    expect(ok.status).toBe(200);
    expect(ok.body.value).toHaveLength(1);
    expect((await t.request('/v1/odata/$metadata', { headers: basic('', keys.bi!) })).status).toBe(200);
    const wrong = await t.json('/v1/odata/Assets', { headers: basic('excel', 'svc_live_wrongwrongwrongwrongwrongwrong00') });
    expect([wrong.status, wrong.body.error.code]).toEqual([401, 'INVALID_API_KEY']);
    const empty = await t.json('/v1/odata/Assets', { headers: basic('excel', '') });
    expect([empty.status, empty.body.error.code]).toEqual([401, 'INVALID_AUTHORIZATION']);
    const notBi = await t.json('/v1/odata/Assets', { headers: basic('x', keys.noBi!) });
    expect(notBi.status).toBe(402);
    // Elsewhere Basic is not a way to send a key.
    const graphql = await t.json('/v1/graphql', {
      method: 'POST',
      headers: { ...basic('x', keys.bi!), 'content-type': 'application/json' },
      body: '{"query":"{organization{id}}"}',
    });
    expect(graphql.status).toBe(401);
  });

  it('is read-only (405 with Allow: GET, HEAD), answers 404 for unknown sets and finds sets case-insensitively', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await t.json('/v1/odata/Assets', {
        method,
        headers: { ...auth(keys.bi), 'content-type': 'application/json' },
        body: '{}',
      });
      expect([res.status, res.body.error.code, res.headers.get('allow')]).toEqual([405, 'METHOD_NOT_ALLOWED', 'GET, HEAD']);
    }
    const missing = await odata('Laptops');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'ENTITY_SET_NOT_FOUND']);
    expect(missing.body.error.message).toContain('Assets, Certificates, Products, EmissionFactors, SbtiTargets, MonthlyEmissions');
    const lower = await odata('assets', '$top=1');
    expect(lower.status).toBe(200);
    expect(lower.body['@odata.context']).toBe('http://localhost/v1/odata/$metadata#Assets');
    expect((await odata('Assets/brand')).status).toBe(501);
    expect((await odata('Nope/$count')).status).toBe(404);
  });

  it('serves the service document and $metadata', async () => {
    const doc = await get('/v1/odata');
    expect(doc.status).toBe(200);
    expect(doc.headers.get('odata-version')).toBe('4.0');
    expect(doc.body['@odata.context']).toBe('http://localhost/v1/odata/$metadata');
    expect(doc.body.value.map((s: { name: string }) => s.name)).toEqual([
      'Assets',
      'Certificates',
      'Products',
      'EmissionFactors',
      'SbtiTargets',
      'MonthlyEmissions',
      'PeriodEmissions',
    ]);
    expect(doc.body.value[0]).toEqual({ name: 'Assets', kind: 'EntitySet', url: 'Assets' });
    const metadata = await t.request('/v1/odata/$metadata', { headers: auth(keys.bi) });
    expect(metadata.headers.get('content-type')).toMatch(/^application\/xml/);
    // The document validated against the OASIS schemas in metadata.test.ts.
    expect(await metadata.text()).toBe(METADATA_XML);
  });
});

describe(`OData $filter on ${TEST_DATABASE_KIND}`, () => {
  it('compares with eq ne gt ge lt le on text, numbers, dates, date-times, GUIDs and enumerations', async () => {
    expect(await serials("brand eq 'Dell'")).toEqual(where((a) => a.brand === 'Dell'));
    expect(await serials("brand ne 'Dell'")).toEqual(where((a) => a.brand !== 'Dell'));
    expect(await serials("brand gt 'Lenovo'")).toEqual(where((a) => a.brand > 'Lenovo'));
    expect(await serials("brand lt 'Dell'")).toEqual(where((a) => a.brand < 'Dell'));
    expect(await serials('total_kg_co2e gt 310.5')).toEqual(where((a) => a.total_kg_co2e !== null && a.total_kg_co2e > 310.5));
    expect(await serials('total_kg_co2e ge 310.5')).toEqual(where((a) => a.total_kg_co2e !== null && a.total_kg_co2e >= 310.5));
    expect(await serials('total_kg_co2e lt 0')).toEqual(['S09']);
    expect(await serials('total_kg_co2e le 0')).toEqual(['S08', 'S09']);
    expect(await serials('total_kg_co2e eq -1.5')).toEqual(['S09']);
    expect(await serials('total_kg_co2e eq 1.2e3')).toEqual(['S05']);
    expect(await serials('purchase_date ge 2023-01-15')).toEqual(where((a) => a.purchase_date !== null && a.purchase_date >= '2023-01-15'));
    expect(await serials('purchase_date lt 2021-12-31')).toEqual(['S06', 'S08']);
    expect(await serials('created_at ge 2024-01-09T11:00:00+01:00')).toEqual(['S09', 'S10']);
    expect(await serials('created_at lt 2024-01-02T10:00:00.001Z')).toEqual(['S01', 'S02']);
    expect(await serials('created_at lt 2024-01-03')).toEqual(['S01', 'S02']);
    expect(await serials(`asset_id eq ${ids.S04}`)).toEqual(['S04']);
    expect(await serials(`asset_id eq '${ids.S04!.toUpperCase()}'`)).toEqual(['S04']);
    expect(await serials("status eq 'in_use'")).toEqual(where((a) => a.status === 'in_use'));
    expect(await serials("status eq Service.AssetStatus'recycled'")).toEqual(['S03']);
    // Enumerations compare in member order: in_stock, in_use, in_repair, refurbished, resold, recycled, disposed.
    expect(await serials("status ge 'resold'")).toEqual(['S03', 'S06', 'S07']);
    expect(await serials("not (status lt 'in_repair')")).toEqual(['S03', 'S05', 'S06', 'S07', 'S08']);
  });

  it('combines with and, or, not and parentheses, with and binding tighter than or', async () => {
    const dell = (a: AssetSeed) => a.brand === 'Dell';
    const de = (a: AssetSeed) => a.country === 'DE';
    const laptop = (a: AssetSeed) => a.category === 'laptop';
    expect(await serials("brand eq 'Dell' or country eq 'DE' and category eq 'laptop'")).toEqual(
      where((a) => dell(a) || (de(a) && laptop(a))),
    );
    expect(await serials("(brand eq 'Dell' or country eq 'DE') and category eq 'laptop'")).toEqual(
      where((a) => (dell(a) || de(a)) && laptop(a)),
    );
    expect(await serials("not brand eq 'Dell' and country eq 'DE'")).toEqual(where((a) => !dell(a) && de(a)));
    expect(await serials("not (brand eq 'Dell' or country eq 'DE')")).toEqual(where((a) => !(dell(a) || de(a))));
    expect(await serials("((((category eq 'laptop'))))")).toEqual(where(laptop));
    expect(await serials('true')).toHaveLength(SEED.length);
    expect(await serials('false or 1 eq 1')).toHaveLength(SEED.length);
    expect(await serials("not true or brand eq 'HP'")).toEqual(['S07']);
  });

  it('matches text with contains, startswith and endswith, case-sensitively, with quotes and LIKE wildcards taken literally', async () => {
    expect(await serials("contains(brand,'e')")).toEqual(where((a) => a.brand.includes('e')));
    expect(await serials("startswith(brand,'HP')")).toEqual(['S07']);
    expect(await serials("endswith(mpn,'840')")).toEqual(['S07']);
    expect(await serials("contains(brand,'O''Neil')")).toEqual(['S03']);
    expect(await serials("brand eq 'O''Neil'")).toEqual(['S03']);
    expect(await serials("mpn eq 'it''s'")).toEqual(['S10']);
    expect(await serials("contains(brand,'0%')")).toEqual(['S04']);
    expect(await serials("contains(mpn,'a_')")).toEqual(['S04']);
    expect(await serials("contains(brand,'k\\S')")).toEqual(['S06']);
    expect(await serials("mpn eq 'x\\y'")).toEqual(['S06']);
    expect(await serials("mpn eq 'OPT/7010#2?'")).toEqual(['S02']);
    expect(await serials("contains(mpn,'/7010#')")).toEqual(['S02']);
    expect(await serials("brand eq '100%25 Green'")).toEqual([]);
    expect(await serials("startswith(brand,'%')")).toEqual([]);
    expect(await serials("not contains(mpn,'b')")).toEqual(where((a) => !(a.mpn ?? '').includes('b') || a.mpn === null));
    expect(await serials('contains(mpn,null)')).toEqual([]);
  });

  it('treats null as OData does: eq/ne null test for null, comparisons with a null value are false, not of them true', async () => {
    expect(await serials('mpn eq null')).toEqual(['S03', 'S09']);
    expect(await serials('mpn ne null')).toHaveLength(8);
    expect(await serials('null eq mpn')).toEqual(['S03', 'S09']);
    expect(await serials("mpn ne 'axb'")).toEqual(where((a) => a.mpn !== 'axb'));
    expect(await serials('total_kg_co2e gt null')).toEqual([]);
    expect(await serials('not (total_kg_co2e gt 100)')).toEqual(where((a) => !(a.total_kg_co2e !== null && a.total_kg_co2e > 100)));
    expect(await serials('not (purchase_date eq 2023-01-15)')).toEqual(where((a) => a.purchase_date !== '2023-01-15'));
    expect(await serials('100 lt total_kg_co2e')).toEqual(where((a) => a.total_kg_co2e !== null && a.total_kg_co2e > 100));
  });

  it('refuses unknown properties (400 naming them), type mismatches and bad syntax (400 with the position)', async () => {
    const unknown = await odata('Assets', '$filter=colour eq 1');
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'UNKNOWN_PROPERTY']);
    expect(unknown.body.error.innererror.error).toBe("Unknown property 'colour'");
    expect(unknown.body.error.message).toMatch(/^\$filter: 'colour' is not a property of Assets; its properties are asset_id, brand,/);
    for (const [option, value] of [
      ['$select', 'brand,colour'],
      ['$orderby', 'colour desc'],
    ] as const) {
      const res = await odata('Assets', `${option}=${encodeURIComponent(value)}`);
      expect([res.status, res.body.error.code, res.body.error.message.startsWith(`${option}: 'colour'`)]).toEqual([
        400,
        'UNKNOWN_PROPERTY',
        true,
      ]);
    }
    const syntax = await odata('Assets', `$filter=${encodeURIComponent("brand eqq 'Dell'")}`);
    expect([syntax.status, syntax.body.error.code]).toEqual([400, 'ODATA_SYNTAX_ERROR']);
    expect(syntax.body.error.message).toBe('$filter: invalid syntax at character 6 (near "brand eqq \'Dell\'")');
    const unclosed = await odata('Assets', `$filter=${encodeURIComponent("brand eq 'Dell")}`);
    expect(unclosed.body.error.code).toBe('ODATA_SYNTAX_ERROR');
    const mismatch = await odata('Assets', `$filter=${encodeURIComponent("total_kg_co2e eq 'heavy'")}`);
    expect([mismatch.status, mismatch.body.error.code]).toEqual([400, 'ODATA_TYPE_MISMATCH']);
    expect((await odata('Assets', '$filter=purchase_date eq 2023-02-30')).body.error.message).toBe(
      '$filter: 2023-02-30 is not a calendar date',
    );
    expect((await odata('Assets', "$filter=status eq 'broken'")).body.error.message).toMatch(/status is one of in_stock, in_use/);
    expect((await odata('Assets', "$filter=contains(total_kg_co2e,'1')")).body.error.code).toBe('ODATA_TYPE_MISMATCH');
    const deep = await odata('Assets', `$filter=${'('.repeat(40)}true${')'.repeat(40)}`);
    expect([deep.status, deep.body.error.code]).toEqual([400, 'ODATA_SYNTAX_ERROR']);
    const long = await odata('Assets', `$filter=${encodeURIComponent(`brand eq '${'x'.repeat(2_100)}'`)}`);
    expect([long.status, long.body.error.code]).toEqual([400, 'INVALID_PARAMETER']);
  });

  it('answers 501 listing what is supported for valid OData it does not implement', async () => {
    const cases = [
      '$expand=product',
      '$apply=groupby((category))',
      '$search=dell',
      '$compute=total_kg_co2e mul 2 as double',
      `$filter=${encodeURIComponent('total_kg_co2e add 1 gt 2')}`,
      `$filter=${encodeURIComponent("certificates/any(c:c/country eq 'DE')")}`,
      `$filter=${encodeURIComponent("cast(brand,Edm.String) eq 'hp'")}`,
      `$filter=${encodeURIComponent('isof(brand,Edm.String)')}`,
      `$filter=${encodeURIComponent('length(brand) gt 3')}`,
      `$filter=${encodeURIComponent("product/brand eq 'HP'")}`,
      `$filter=${encodeURIComponent('brand eq mpn')}`,
      `$orderby=${encodeURIComponent('tolower(brand)')}`,
    ];
    for (const query of cases) {
      const res = await odata('Assets', query);
      expect([query, res.status, res.body.error.code]).toEqual([query, 501, 'ODATA_NOT_IMPLEMENTED']);
      expect(res.body.error.innererror.supported.query_options).toContain('$filter');
      expect(res.body.error.innererror.supported.functions).toEqual([
        'contains',
        'startswith',
        'endswith',
        'tolower',
        'toupper',
        'year',
        'month',
        'day',
      ]);
    }
  });
});

describe(`OData options and paging on ${TEST_DATABASE_KIND}`, () => {
  it('selects properties, sorts by several keys (null first ascending) with the key as tiebreak, and counts', async () => {
    const res = await odata('Assets', '$select=serial_number,total_kg_co2e&$orderby=total_kg_co2e desc,brand&$count=true');
    expect(res.status).toBe(200);
    expect(res.body['@odata.context']).toBe('http://localhost/v1/odata/$metadata#Assets(serial_number,total_kg_co2e)');
    expect(res.body['@odata.count']).toBe(10);
    expect(Object.keys(res.body.value[0])).toEqual(['serial_number', 'total_kg_co2e']);
    expect(res.body.value.map((r: any) => r.serial_number)).toEqual(['S05', 'S02', 'S06', 'S01', 'S04', 'S07', 'S10', 'S08', 'S09', 'S03']);
    const ascending = await odata('Assets', '$select=serial_number&$orderby=total_kg_co2e,asset_id desc');
    expect(ascending.body.value[0].serial_number).toBe('S03');
    const tied = [ids.S01!, ids.S06!].sort().reverse();
    expect(ascending.body.value.slice(6, 8).map((r: any) => ids[r.serial_number])).toEqual(tied);
    const full = await odata('Assets', `$filter=${encodeURIComponent("serial_number eq 'S04'")}`);
    expect(full.body.value).toEqual([
      {
        asset_id: ids.S04,
        brand: '100% Green',
        mpn: 'a_b',
        model: null,
        serial_number: 'S04',
        category: 'laptop',
        status: 'in_use',
        purchase_date: '2024-02-29',
        country: 'NL',
        product_id: null,
        active_calculation_id: null,
        total_kg_co2e: 150.25,
        production_kg: null,
        use_phase_kg: null,
        adpe_kg_sb_eq: null,
        pe_mj: null,
        source: 'api',
        external_ref: null,
        created_at: '2024-01-04T10:00:00.000Z',
        updated_at: '2024-01-04T10:00:00.000Z',
      },
    ]);
    expect(full.body['@odata.count']).toBeUndefined();
  });

  it('checks $top (at most 5000), $skip and $count, and refuses unknown or repeated options', async () => {
    const over = await odata('Assets', '$top=5001');
    expect([over.status, over.body.error.code, over.body.error.message]).toEqual([
      400,
      'INVALID_PARAMETER',
      "$top: must be an integer from 0 to 5000, got '5001'",
    ]);
    expect((await odata('Assets', '$top=-1')).status).toBe(400);
    expect((await odata('Assets', '$top=1.5')).status).toBe(400);
    expect((await odata('Assets', '$skip=x')).status).toBe(400);
    expect((await odata('Assets', '$count=yes')).status).toBe(400);
    expect((await odata('Assets', '$top=1&$top=2')).body.error.message).toBe('$top: is given more than once');
    const unknown = await odata('Assets', '$fliter=true');
    expect([unknown.status, unknown.body.error.code, unknown.body.error.message]).toEqual([
      400,
      'UNKNOWN_PARAMETER',
      "$fliter: unknown parameter, did you mean '$filter'?",
    ]);
    expect((await odata('Assets', '$top=5000')).body.value).toHaveLength(10);
    const page = await odata('Assets', '$select=serial_number&$orderby=serial_number&$top=3&$skip=2&$count=true');
    expect(page.body.value.map((r: any) => r.serial_number)).toEqual(['S03', 'S04', 'S05']);
    expect(page.body['@odata.count']).toBe(10);
    expect(page.body['@odata.nextLink']).toBeUndefined();
    expect((await odata('Assets', '$top=0')).body.value).toEqual([]);
    expect((await odata('Assets', 'custom=ignored&$top=1')).status).toBe(200);
    // A custom option named like a system option (OData 4.01 drops the $) is refused, not ignored.
    const dollarless = await odata('Assets', 'filter=false');
    expect([dollarless.status, dollarless.body.error.code, dollarless.body.error.message]).toEqual([
      400,
      'UNKNOWN_PARAMETER',
      "filter: unknown parameter, did you mean '$filter'?",
    ]);
  });

  it('pages by @odata.nextLink through every row exactly once, whatever the order, including ties and nulls', async () => {
    for (const orderby of [undefined, 'total_kg_co2e desc', 'purchase_date,brand desc', 'status', 'mpn desc']) {
      const seen: string[] = [];
      let link: string | undefined =
        `/v1/odata/Assets?$select=serial_number${orderby ? `&$orderby=${encodeURIComponent(orderby)}` : ''}&$count=true`;
      let pages = 0;
      while (link) {
        const res = await get(link.replace('http://localhost', ''), keys.bi, { prefer: 'odata.maxpagesize=3' });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.headers.get('preference-applied')).toBe('odata.maxpagesize=3');
        expect(res.body['@odata.count']).toBe(10);
        seen.push(...res.body.value.map((r: any) => r.serial_number));
        link = res.body['@odata.nextLink'];
        if (link) expect(link).toMatch(/^http:\/\/localhost\/v1\/odata\/Assets\?.*\$select=serial_number&.*\$skiptoken=[\w-]+$/);
        pages++;
      }
      expect(pages).toBe(4);
      expect([...seen].sort()).toEqual(SEED.map((a) => a.serial_number));
      const unpaged = await odata('Assets', `$select=serial_number${orderby ? `&$orderby=${encodeURIComponent(orderby)}` : ''}`);
      expect(seen).toEqual(unpaged.body.value.map((r: any) => r.serial_number));
    }
    // $top caps the total across pages.
    const first = await odata('Assets', '$select=serial_number&$orderby=serial_number&$top=5', keys.bi, { prefer: 'odata.maxpagesize=2' });
    const next = new URL(first.body['@odata.nextLink']);
    expect(next.searchParams.get('$top')).toBe('3');
    const second = await get(`${next.pathname}${next.search}`, keys.bi, { prefer: 'odata.maxpagesize=2' });
    const third = await get(new URL(second.body['@odata.nextLink']).href.replace('http://localhost', ''), keys.bi, {
      prefer: 'odata.maxpagesize=2',
    });
    expect([...first.body.value, ...second.body.value, ...third.body.value].map((r: any) => r.serial_number)).toEqual([
      'S01',
      'S02',
      'S03',
      'S04',
      'S05',
    ]);
    expect(third.body['@odata.nextLink']).toBeUndefined();
    const tampered = await odata('Assets', '$skiptoken=eyJ4IjoxfQ');
    expect([tampered.status, tampered.body.error.code]).toEqual([400, 'INVALID_PARAMETER']);
  });

  it("shows only the caller's organisation, and shared reference data to everyone", async () => {
    const mine = await odata('Assets', '$count=true&$top=0');
    const theirs = await odata('Assets', '$count=true&$select=serial_number', keys.other);
    expect([mine.body['@odata.count'], theirs.body['@odata.count']]).toEqual([10, 1]);
    expect(theirs.body.value).toEqual([{ serial_number: 'OTHER-1' }]);
    expect((await odata('Assets', `$filter=asset_id eq ${ids.S01}`, keys.other)).body.value).toEqual([]);
    const products = await odata('Products', `$filter=${encodeURIComponent("category eq 'laptop'")}&$count=true&$top=2`);
    expect(products.status).toBe(200);
    expect(products.body['@odata.count']).toBeGreaterThan(10);
    expect(Object.keys(products.body.value[0])).toContain('typical_consumption_kwh');
    const factors = await odata(
      'EmissionFactors',
      `$filter=${encodeURIComponent("region_code eq 'DE'")}&$select=region_code,value,unit,registry,valid_from`,
    );
    expect(factors.body.value.length).toBeGreaterThan(0);
    expect(factors.body.value[0]).toMatchObject({
      region_code: 'DE',
      valid_from: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      registry: expect.any(String),
    });
    // A property on a related row (the factor's registry) filters and sorts like any other.
    const registry = factors.body.value[0].registry as string;
    const byRegistry = await odata(
      'EmissionFactors',
      `$filter=${encodeURIComponent(`registry eq '${registry.replaceAll("'", "''")}' and region_code eq 'DE'`)}&$orderby=registry desc,valid_from desc&$count=true`,
    );
    expect(byRegistry.body['@odata.count']).toBe(factors.body.value.filter((f: any) => f.registry === registry).length);
    expect(byRegistry.body.value.every((f: any) => f.registry === registry)).toBe(true);
  });
});

describe(`OData proof headers on ${TEST_DATABASE_KIND}`, () => {
  it('records each query in the audit log (X-Service-Proof) with a hash of exactly the returned rows', async () => {
    const query = `$filter=${encodeURIComponent("country eq 'DE'")}&$select=serial_number,brand,total_kg_co2e&$orderby=serial_number&$count=true`;
    const first = await odata('Assets', query);
    const second = await odata('Assets', query);
    const proof = first.headers.get('x-service-proof')!;
    expect(proof).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.headers.get('x-service-proof')).not.toBe(proof);
    expect(first.headers.get('x-service-proof-hash')).toMatch(/^[0-9a-f]{64}$/);
    expect(second.headers.get('x-service-proof-hash')).toBe(first.headers.get('x-service-proof-hash'));
    expect(first.headers.get('x-service-data-freshness')).toBe('2024-01-10T10:00:00.000Z');

    const audit = await prisma().auditLog.findUniqueOrThrow({ where: { id: proof } });
    const keyId = (
      await prisma().apiKey.findFirstOrThrow({ where: { org_id: orgId, bi_enabled: true, org_context: true, environment: 'live' } })
    ).id;
    expect(audit).toMatchObject({
      org_id: orgId,
      event: ODATA_AUDIT_EVENT,
      actor_key_id: keyId,
      subject_type: 'odata_entity_set',
      subject_id: 'Assets',
    });
    expect(audit.data).toEqual({
      entity_set: 'Assets',
      query:
        "$filter=country eq 'DE'&$orderby=serial_number asc,asset_id asc&$select=serial_number,brand,total_kg_co2e&$skip=0&$count=true",
      page_size: 1000,
      row_count: 5,
      count: 5,
      proof_hash: first.headers.get('x-service-proof-hash'),
      data_freshness: '2024-01-10T10:00:00.000Z',
      more_rows: false,
    });

    // The hash does not depend on key order or spacing: verify-proof recomputes it from the saved response.
    const saved = path.join(workDir, 'response.json');
    const reordered = {
      value: first.body.value.map((r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).reverse())),
      '@odata.context': 'x',
    };
    await writeFile(saved, JSON.stringify(reordered, null, 2));
    const cli = await runCli(['odata', 'verify-proof', saved, '--hash', first.headers.get('x-service-proof-hash')!], {});
    expect([cli.code, cli.stdout.trim()]).toEqual([0, `hash ${first.headers.get('x-service-proof-hash')} over 5 rows: matches`]);
    const withHeaders = path.join(workDir, 'response.http');
    await writeFile(
      withHeaders,
      `HTTP/1.1 200 OK\r\nX-Service-Proof: ${proof}\r\nX-Service-Proof-Hash: ${'0'.repeat(64)}\r\n\r\n${JSON.stringify(first.body)}`,
    );
    const mismatch = await runCli(['odata', 'verify-proof', withHeaders], {});
    expect(mismatch.code).toBe(1);
    expect(mismatch.stdout).toContain('does NOT match');

    // A changed row changes the hash and the freshness.
    await prisma().asset.update({ where: { id: ids.S01 }, data: { brand: 'Dell Technologies' } });
    const changed = await odata('Assets', query);
    expect(changed.headers.get('x-service-proof-hash')).not.toBe(first.headers.get('x-service-proof-hash'));
    expect(new Date(changed.headers.get('x-service-data-freshness')!).getTime()).toBeGreaterThan(Date.parse('2024-01-10T10:00:00Z'));
    await prisma().asset.update({ where: { id: ids.S01 }, data: { brand: 'Dell' } });
  });
});

describe(`OData as clients use it, on ${TEST_DATABASE_KIND}`, () => {
  it('answers every error in the OData JSON error shape, the service body as innererror, so that clients show the message', async () => {
    const syntax = await odata('Assets', `$filter=${encodeURIComponent("brand eqq 'Dell'")}`);
    expect([syntax.status, syntax.headers.get('content-type')]).toEqual([400, 'application/json; charset=utf-8']);
    expect(syntax.body).toEqual({
      error: {
        code: 'ODATA_SYNTAX_ERROR',
        message: '$filter: invalid syntax at character 6 (near "brand eqq \'Dell\'")',
        details: [],
        innererror: {
          error: 'Invalid $filter',
          code: 'ODATA_SYNTAX_ERROR',
          details: '$filter: invalid syntax at character 6 (near "brand eqq \'Dell\'")',
        },
      },
    });
    // Errors of every layer before the OData router too: access control, the route table.
    expect((await odata('Assets', '', keys.noBi)).body.error).toMatchObject({
      code: 'BI_NOT_ENABLED',
      message: 'BI export is not enabled on this API key',
    });
    const route = await get('/v1/odata/Assets/brand/x');
    expect([route.status, route.body.error.code]).toEqual([404, 'ROUTE_NOT_FOUND']);
    const method = await t.json('/v1/odata/Assets', { method: 'DELETE', headers: auth(keys.bi) });
    expect([method.status, method.body.error.code, method.headers.get('allow')]).toEqual([405, 'METHOD_NOT_ALLOWED', 'GET, HEAD']);
    // Elsewhere the service's own error body stays.
    expect((await t.json('/v1/assets', { headers: auth('svc_live_wrongwrongwrongwrongwrongwrong00') })).body).toMatchObject({
      code: 'INVALID_API_KEY',
    });
  });

  it('answers a refused quota in the OData shape too, with the rate-limit body as innererror and Retry-After', async () => {
    const limited = await createTestApp({ QUOTA_LIMITS: 'minute.enterprise=1,day.enterprise=100' });
    try {
      const org = await limited.createOrg('enterprise', 'Limited Corp');
      const key = (await limited.createKey(org.id, { bi_enabled: true })).key;
      expect((await limited.request('/v1/odata/$metadata', { headers: auth(key) })).status).toBe(200);
      const refused = await limited.json('/v1/odata/Assets', { headers: auth(key) });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.body.error).toMatchObject({
        code: 'RATE_LIMITED_MINUTE',
        message: refused.body.error.innererror.message,
        details: [],
      });
      expect(refused.body.error.innererror).toMatchObject({ error: 'Rate limit exceeded', retry_after_seconds: expect.any(Number) });
    } finally {
      await limited.close();
    }
  });

  it('offers Bearer and Basic on every 401, a missing key, a wrong key and a wrong Basic password alike', async () => {
    const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`excel:${password}`).toString('base64')}` });
    for (const headers of [
      {},
      auth('svc_live_notAKeyOfThisService0000000000'),
      basic('svc_live_notAKeyOfThisService0000000000'),
      basic(''),
    ]) {
      const res = await t.json('/v1/odata/Assets', { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="v1", Basic realm="OData", charset="UTF-8"');
      expect(res.body.error.message.length).toBeGreaterThan(0);
    }
  });

  it('answers 406 for formats other than JSON (XML for $metadata), by Accept or $format', async () => {
    for (const accept of ['application/atom+xml', 'text/csv', 'application/xml', 'application/json;q=0']) {
      const res = await odata('Assets', '$top=1', keys.bi, { accept });
      expect([accept, res.status, res.body.error.code]).toEqual([accept, 406, 'NOT_ACCEPTABLE']);
    }
    expect((await odata('Assets', '$format=atom')).status).toBe(406);
    expect((await odata('Assets', '$format=xml')).status).toBe(406);
    for (const accept of [
      'application/json',
      'application/json;odata.metadata=minimal',
      'application/*',
      '*/*',
      'application/atom+xml;q=0.9, application/json;q=0.8',
    ]) {
      expect([accept, (await odata('Assets', '$top=1', keys.bi, { accept })).status]).toEqual([accept, 200]);
    }
    expect((await get('/v1/odata/$metadata', keys.bi, { accept: 'application/json' })).status).toBe(406);
    for (const accept of ['application/xml', 'text/xml', 'text/*', 'application/xml;q=0.9, application/json']) {
      expect([accept, (await t.request('/v1/odata/$metadata', { headers: { ...auth(keys.bi), accept } })).status]).toEqual([accept, 200]);
    }
    expect((await get('/v1/odata', keys.bi, { accept: 'text/csv' })).status).toBe(406);
  });

  it("answers one entity by its key, in every key form, scoped like the set: another organisation's key is as missing as an unknown one", async () => {
    for (const form of [ids.S04, `asset_id=${ids.S04}`, `'${ids.S04}'`, ids.S04!.toUpperCase()]) {
      const res = await get(`/v1/odata/Assets(${form})`);
      expect([form, res.status]).toEqual([form, 200]);
      expect(res.body).toMatchObject({
        '@odata.context': 'http://localhost/v1/odata/$metadata#Assets/$entity',
        asset_id: ids.S04,
        serial_number: 'S04',
        brand: '100% Green',
        purchase_date: '2024-02-29',
      });
      expect(res.body.value).toBeUndefined();
      expect(res.headers.get('x-service-proof')).toMatch(/^[0-9a-f-]{36}$/);
    }
    const selected = await get(`/v1/odata/Assets(${ids.S04})?$select=brand,serial_number`);
    expect(selected.body).toEqual({
      '@odata.context': 'http://localhost/v1/odata/$metadata#Assets(brand,serial_number)/$entity',
      brand: '100% Green',
      serial_number: 'S04',
    });

    const otherAsset = await prisma().asset.findFirstOrThrow({ where: { serial_number: 'OTHER-1' } });
    const unknownId = '00000000-0000-4000-8000-000000000000';
    const foreign = await get(`/v1/odata/Assets(${otherAsset.id})`);
    const missing = await get(`/v1/odata/Assets(${unknownId})`);
    expect([foreign.status, missing.status]).toEqual([404, 404]);
    expect(foreign.body.error.message.replace(otherAsset.id, 'KEY')).toBe(missing.body.error.message.replace(unknownId, 'KEY'));
    expect(foreign.body.error).toMatchObject({ code: 'ENTITY_NOT_FOUND', message: `Assets has no entity with the key ${otherAsset.id}` });
    expect((await get(`/v1/odata/Assets(${otherAsset.id})`, keys.other)).body.serial_number).toBe('OTHER-1');

    // Every set by its key.
    const product = (await odata('Products', '$top=1&$select=product_id,name')).body.value[0];
    expect((await get(`/v1/odata/Products(${product.product_id})`)).body).toMatchObject(product);
    const bad = await get('/v1/odata/Assets(42)');
    expect([bad.status, bad.body.error.code]).toEqual([400, 'INVALID_PARAMETER']);
    expect((await get(`/v1/odata/Assets(brand=${ids.S04})`)).status).toBe(400);
    expect((await get(`/v1/odata/Nope(${ids.S04})`)).status).toBe(404);
    expect((await get(`/v1/odata/Assets(${ids.S04})?$filter=true`)).body.error.message).toBe('$filter: does not apply to a single entity');
    expect((await get(`/v1/odata/Assets(${ids.S04})?$expand=product`)).status).toBe(501);
    expect((await get(`/v1/odata/Assets(${ids.S04})/brand`)).status).toBe(501);
  });

  it('answers /{Set}/$count as text/plain, filtered and scoped, recorded in the audit log', async () => {
    const count = await t.request('/v1/odata/Assets/$count', { headers: auth(keys.bi) });
    expect([count.status, count.headers.get('content-type'), await count.text()]).toEqual([
      200,
      'text/plain; charset=utf-8',
      String(SEED.length),
    ]);
    const proof = count.headers.get('x-service-proof')!;
    expect((await prisma().auditLog.findUniqueOrThrow({ where: { id: proof } })).data).toMatchObject({
      entity_set: 'Assets',
      count: SEED.length,
      row_count: 0,
    });
    const filtered = await t.request(`/v1/odata/Assets/$count?$filter=${encodeURIComponent("country eq 'DE'")}`, {
      headers: auth(keys.bi),
    });
    expect(await filtered.text()).toBe(String(where((a) => a.country === 'DE').length));
    expect(await (await t.request('/v1/odata/Assets/$count', { headers: auth(keys.other) })).text()).toBe('1');
    expect((await get('/v1/odata/Assets/$count?$top=1')).body.error.message).toBe('$top: does not apply to /$count');
    expect((await get('/v1/odata/Assets/$count', keys.bi, { accept: 'application/json' })).status).toBe(406);
  });

  it('reads the forms the SAP Cloud SDK and Power Query write: typed number suffixes, fn() eq true|false, not( and in', async () => {
    // Hand-written: the SAP Cloud SDK is not installable here; these are the URL forms it sends.
    expect(await serials('total_kg_co2e gt 300D')).toEqual(await serials('total_kg_co2e gt 300'));
    expect(await serials('total_kg_co2e gt 300D')).toEqual(where((a) => a.total_kg_co2e !== null && a.total_kg_co2e > 300));
    expect(await serials('total_kg_co2e le 1.5e2d and total_kg_co2e ge -2F')).toEqual(
      where((a) => a.total_kg_co2e !== null && a.total_kg_co2e <= 150 && a.total_kg_co2e >= -2),
    );
    expect(await serials('total_kg_co2e eq 88.125M')).toEqual(['S10']);
    expect(await serials("startswith(brand,'Dell') eq true")).toEqual(['S01', 'S02']);
    expect(await serials("startswith(brand,'Dell') eq false")).toEqual(where((a) => !a.brand.startsWith('Dell')));
    expect(await serials("contains(mpn,'book') ne true and country eq 'DE'")).toEqual(
      where((a) => !(a.mpn ?? '').includes('book') && a.country === 'DE'),
    );
    expect(await serials("endswith(brand,'o') eq true or brand eq 'HP'")).toEqual(where((a) => a.brand.endsWith('o') || a.brand === 'HP'));
    expect(await serials("not(brand eq 'Dell')")).toEqual(where((a) => a.brand !== 'Dell'));
    expect(await serials("not(startswith(brand,'Dell')) and not(country eq 'DE')")).toEqual(
      where((a) => !a.brand.startsWith('Dell') && a.country !== 'DE'),
    );
    expect(await serials("country in ('FR', 'NL','PL')")).toEqual(['S02', 'S04', 'S09']);
    expect(await serials("status in ('in_use','in_repair') and brand ne 'Lenovo'")).toEqual(['S01', 'S04', 'S05']);
    expect(await serials("not (country in ('DE'))")).toEqual(where((a) => a.country !== 'DE'));
    expect(await serials("mpn in ('a_b', null)")).toEqual(['S03', 'S04', 'S09']);
    expect(await serials("tolower(brand) in ('hp','dell')")).toEqual(['S01', 'S02', 'S07', 'S08']);
    // A list of properties is not OData; neither is an empty list.
    expect((await odata('Assets', `$filter=${encodeURIComponent('brand in (mpn)')}`)).status).toBe(400);
    expect((await odata('Assets', `$filter=${encodeURIComponent('brand in ()')}`)).status).toBe(400);
  });

  it('translates tolower() and toupper() into case-insensitive SQL, for comparisons and the text functions', async () => {
    expect(await serials("tolower(brand) eq 'hp'")).toEqual(['S07', 'S08']);
    expect(await serials("toupper(brand) eq 'HP'")).toEqual(['S07', 'S08']);
    expect(await serials("'hp' eq tolower(brand)")).toEqual(['S07', 'S08']);
    expect(await serials("tolower(brand) ne 'hp'")).toEqual(where((a) => a.brand.toLowerCase() !== 'hp'));
    expect(await serials("tolower(brand) eq 'HP'")).toEqual([]);
    expect(await serials("tolower(brand) ne 'HP'")).toHaveLength(SEED.length);
    expect(await serials("tolower(brand) ge 'l'")).toEqual(where((a) => a.brand.toLowerCase() >= 'l'));
    // LIKE wildcards stay literal under the case-insensitive comparison too.
    expect(await serials("tolower(brand) eq '100% green'")).toEqual(['S04']);
    expect(await serials("tolower(brand) eq '100_ green'")).toEqual([]);
    expect(await serials("contains(tolower(mpn),'elitebook')")).toEqual(['S07', 'S08']);
    expect(await serials("startswith(toupper(brand),'LEN')")).toEqual(['S09', 'S10']);
    expect(await serials("not contains(tolower(mpn),'elitebook')")).toEqual(
      where((a) => !(a.mpn ?? '').toLowerCase().includes('elitebook')),
    );
    expect(await serials('tolower(mpn) eq null')).toEqual(['S03', 'S09']);
    expect((await odata('Assets', `$filter=${encodeURIComponent("toupper(brand) gt 'H'")}`)).status).toBe(501);
    expect((await odata('Assets', `$filter=${encodeURIComponent("tolower(total_kg_co2e) eq '1'")}`)).body.error.code).toBe(
      'ODATA_TYPE_MISMATCH',
    );
  });

  it('translates year(), month() and day() of dates and date-times into ranges of the column', async () => {
    const date = (a: AssetSeed) => (a.purchase_date ? new Date(`${a.purchase_date}T00:00:00Z`) : null);
    const part = (fn: (d: Date) => number, test: (n: number) => boolean) => where((a) => date(a) !== null && test(fn(date(a)!)));
    const year = (d: Date) => d.getUTCFullYear();
    const month = (d: Date) => d.getUTCMonth() + 1;
    const day = (d: Date) => d.getUTCDate();
    expect(await serials('year(purchase_date) eq 2023')).toEqual(part(year, (n) => n === 2023));
    expect(await serials('year(purchase_date) gt 2022')).toEqual(part(year, (n) => n > 2022));
    expect(await serials('year(purchase_date) le 2021')).toEqual(part(year, (n) => n <= 2021));
    // ne, and not of a comparison, match the rows without a date (OData: null ne 2023 is true).
    expect(await serials('year(purchase_date) ne 2023')).toEqual(where((a) => date(a) === null || year(date(a)!) !== 2023));
    expect(await serials('not (year(purchase_date) lt 2023)')).toEqual(where((a) => date(a) === null || year(date(a)!) >= 2023));
    expect(await serials('month(purchase_date) eq 1')).toEqual(part(month, (n) => n === 1));
    expect(await serials('month(purchase_date) ge 6')).toEqual(part(month, (n) => n >= 6));
    expect(await serials('month(purchase_date) ne 1')).toEqual(where((a) => date(a) === null || month(date(a)!) !== 1));
    expect(await serials('day(purchase_date) eq 31')).toEqual(part(day, (n) => n === 31));
    expect(await serials('day(purchase_date) eq 29 and month(purchase_date) eq 2')).toEqual(['S04']);
    expect(await serials('day(purchase_date) lt 5')).toEqual(part(day, (n) => n < 5));
    expect(await serials('year(purchase_date) eq 2023 and month(purchase_date) eq 1 and day(purchase_date) eq 15')).toEqual(['S01', 'S07']);
    expect(await serials('year(purchase_date) in (2019, 2020)')).toEqual(['S06', 'S08']);
    expect(await serials('year(purchase_date) eq null')).toEqual(['S03', 'S10']);
    // Date-times by their UTC date.
    expect(await serials('year(created_at) eq 2024 and day(created_at) ge 9')).toEqual(['S09', 'S10']);
    expect(await serials('month(created_at) eq 2')).toEqual([]);
    expect((await odata('Assets', `$filter=${encodeURIComponent('year(brand) eq 2024')}`)).body.error.code).toBe('ODATA_TYPE_MISMATCH');
    expect((await odata('Assets', `$filter=${encodeURIComponent('month(purchase_date) eq 1.5')}`)).body.error.code).toBe(
      'ODATA_TYPE_MISMATCH',
    );
  });
});
