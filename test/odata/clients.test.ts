import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchClient, type FetchClientError } from '@odata2ts/http-client-fetch';
import { OData } from '@odata/client';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';

/**
 * Real OData client libraries against the service over HTTP: a typed client that odata2ts generates
 * from the server's live $metadata (into a temporary folder beside this file, so that the generated
 * code finds @odata2ts in node_modules; removed afterwards), and @odata/client. The SAP Cloud SDK is
 * not installable here: its URL forms are in odata-api.test.ts, written by hand.
 */
let t: TestApp;
let base: string;
let key: string;
let generatedDir: string;
const ids: Record<string, string> = {};
const ODATA2TS_CLI = createRequire(import.meta.url).resolve('@odata2ts/odata2ts/lib/run-cli.js');
const ROOT = path.resolve(import.meta.dirname, '../..');
const UNKNOWN_KEY = `svc_live_${'0'.repeat(32)}`;

const SEED = [
  {
    serial_number: 'C1',
    brand: 'Dell',
    category: 'laptop',
    country: 'DE',
    status: 'in_use',
    purchase_date: '2023-01-15',
    total_kg_co2e: 310.5,
  },
  {
    serial_number: 'C2',
    brand: 'HP',
    category: 'laptop',
    country: 'FR',
    status: 'in_stock',
    purchase_date: '2022-06-30',
    total_kg_co2e: 95,
  },
  { serial_number: 'C3', brand: 'hp', category: 'monitor', country: 'DE', status: 'recycled', purchase_date: null, total_kg_co2e: null },
  {
    serial_number: 'C4',
    brand: 'Lenovo',
    category: 'server',
    country: 'NL',
    status: 'in_use',
    purchase_date: '2024-02-29',
    total_kg_co2e: 1200,
  },
] as const;

beforeAll(async () => {
  t = await createTestApp();
  const org = await t.createOrg('enterprise', 'Client Corp');
  key = (await t.createKey(org.id, { bi_enabled: true })).key;
  const other = await t.createOrg('enterprise', 'Other Corp');
  ids.other = (
    await t.app.services.db.prisma.asset.create({
      data: { org_id: other.id, brand: 'Dell', category: 'laptop', country: 'DE', serial_number: 'OTHER' },
    })
  ).id;
  for (const a of SEED) {
    const row = await t.app.services.db.prisma.asset.create({
      data: { org_id: org.id, ...a, purchase_date: a.purchase_date ? new Date(`${a.purchase_date}T00:00:00Z`) : null },
    });
    ids[a.serial_number] = row.id;
  }
  base = `${await t.listen()}/v1/odata`;

  // The typed client, generated from what the running server publishes.
  generatedDir = await mkdtemp(path.join(import.meta.dirname, '.odata2ts-'));
  const metadata = await fetch(`${base}/$metadata`, { headers: { authorization: `Bearer ${key}` } });
  expect(metadata.status).toBe(200);
  await writeFile(path.join(generatedDir, 'metadata.xml'), await metadata.text());
  await promisify(execFile)(
    process.execPath,
    [
      ODATA2TS_CLI,
      '--source',
      path.join(generatedDir, 'metadata.xml'),
      '--output',
      generatedDir,
      '--mode',
      'service',
      '--emit-mode',
      'ts',
      '--service-name',
      'CarbonService',
    ],
    { cwd: ROOT },
  );
}, 120_000);
afterAll(async () => {
  await t?.close();
  if (generatedDir) await rm(generatedDir, { recursive: true, force: true });
});

describe(`OData through odata2ts (a client generated from $metadata) on ${TEST_DATABASE_KIND}`, () => {
  // The generated module's types exist only once it is generated: the test reads it as untyped.
  const service = async (headers: Record<string, string> = { Authorization: `Bearer ${key}` }) => {
    const { CarbonServiceService } = await import(path.join(generatedDir, 'CarbonServiceService.ts'));
    return new CarbonServiceService(new FetchClient({ headers }), base);
  };
  const serialsOf = (rows: { serial_number: string }[]) => rows.map((r) => r.serial_number);

  it('queries entity sets with filters the builder writes: comparisons, in, text functions, tolower, year()', async () => {
    const s = await service();
    const dell = await s
      .Assets()
      .query((b: any, q: any) =>
        b.select('serial_number', 'brand', 'total_kg_co2e').filter(q.brand.eq('Dell')).orderBy(q.serial_number.asc()),
      );
    expect(dell.status).toBe(200);
    expect(dell.data.value).toEqual([{ serial_number: 'C1', brand: 'Dell', total_kg_co2e: 310.5 }]);
    const query = async (filter: (q: any) => unknown) =>
      serialsOf(
        (await s.Assets().query((b: any, q: any) => b.select('serial_number').filter(filter(q)).orderBy(q.serial_number.asc()))).data.value,
      );
    expect(await query((q) => q.total_kg_co2e.gt(100))).toEqual(['C1', 'C4']);
    expect(await query((q) => q.status.in('in_use', 'in_stock'))).toEqual(['C1', 'C2', 'C4']);
    expect(await query((q) => q.brand.toLower().eq('hp'))).toEqual(['C2', 'C3']);
    expect(await query((q) => q.brand.startsWith('Len'))).toEqual(['C4']);
    expect(await query((q) => q.purchase_date.year().eq(2023))).toEqual(['C1']);
    expect(await query((q) => q.purchase_date.month().eq(2).and(q.purchase_date.day().eq(29)))).toEqual(['C4']);
    expect(await query((q) => q.purchase_date.isNull().or(q.country.eq('NL')))).toEqual(['C3', 'C4']);
    const counted = await s.Assets().query((b: any) => b.count().top(1));
    expect([counted.data['@odata.count'], counted.data.value.length]).toEqual([SEED.length, 1]);
  });

  it("reads one entity by its key, and another organisation's key is a 404 with the OData error message", async () => {
    const s = await service();
    const one = await s.Assets(ids.C4).query((b: any) => b.select('serial_number', 'brand'));
    expect(one.data).toMatchObject({ serial_number: 'C4', brand: 'Lenovo' });
    const refused = await s
      .Assets(ids.other)
      .query()
      .catch((e: FetchClientError) => e);
    expect(refused.status).toBe(404);
    // What the client shows: the server's message, not "No error message!".
    expect(refused.message).toContain(`Assets has no entity with the key ${ids.other}`);
    const unauthorised = await (await service({ Authorization: `Bearer ${UNKNOWN_KEY}` }))
      .Assets()
      .query()
      .catch((e: FetchClientError) => e);
    expect([unauthorised.status, unauthorised.message]).toEqual([401, expect.stringContaining('API key is not known')]);
  });

  it('returns one page per request: a client follows @odata.nextLink itself', async () => {
    const s = await service({ Authorization: `Bearer ${key}`, Prefer: 'odata.maxpagesize=3' });
    const first = await s.Assets().query((b: any, q: any) => b.select('serial_number').orderBy(q.serial_number.asc()));
    expect(serialsOf(first.data.value)).toEqual(['C1', 'C2', 'C3']);
    const next = first.data['@odata.nextLink'];
    expect(next).toMatch(/\$skiptoken=/);
    const rest = await fetch(next, { headers: { authorization: `Bearer ${key}` } });
    expect(serialsOf((await rest.json()).value)).toEqual(['C4']);
  });
});

describe(`OData through @odata/client on ${TEST_DATABASE_KIND}`, () => {
  // HTTP Basic with the key as the password, as BI tools send it.
  const client = (password = key) => OData.New4({ serviceEndpoint: `${base}/`, credential: { username: 'sdk', password } });

  it('queries, counts and retrieves by key with Basic credentials', async () => {
    const assets = client().getEntitySet<{ serial_number: string; brand: string; total_kg_co2e: number | null }>('Assets');
    const laptops = await assets.query(
      client()
        .newParam()
        .filter(client().newFilter().field('category').eq('laptop'))
        .select(['serial_number', 'brand'])
        .orderby('serial_number', 'asc'),
    );
    expect(laptops.map((r) => r.serial_number)).toEqual(['C1', 'C2']);
    expect(await assets.count(client().newFilter().field('country').eq('DE'))).toBe(2);
    expect(await assets.retrieve(ids.C1!)).toMatchObject({ serial_number: 'C1', brand: 'Dell' });
  });

  it('returns one page per call: the caller follows @odata.nextLink', async () => {
    const paged = OData.New4({
      serviceEndpoint: `${base}/`,
      credential: { username: 'sdk', password: key },
      commonHeaders: { Prefer: 'odata.maxpagesize=3' },
    });
    const rows = await paged
      .getEntitySet<{ serial_number: string }>('Assets')
      .query(paged.newParam().select(['serial_number']).orderby('serial_number', 'asc'));
    expect(rows.map((r) => r.serial_number)).toEqual(['C1', 'C2', 'C3']);
  });

  it("shows the server's message when a request is refused", async () => {
    const assets = client().getEntitySet('Assets');
    const foreign = await assets.retrieve(ids.other!).catch((e: unknown) => e);
    expect((foreign as Error).constructor.name).toBe('ODataServerError');
    expect((foreign as Error).message).toBe(`Assets has no entity with the key ${ids.other}`);
    const notImplemented = await assets.query(client().newParam().expand('product')).catch((e: unknown) => e);
    expect((notImplemented as Error).message).toMatch(/^The query option \$expand is not supported/);
    const wrongKey = await client(UNKNOWN_KEY)
      .getEntitySet('Assets')
      .query()
      .catch((e: unknown) => e);
    expect((wrongKey as Error).message).toBe('API key is not known');
  });
});
