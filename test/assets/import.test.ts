import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { runCli } from '../support/process.ts';

let t: TestApp;
let orgId: string;
let key: string;
let product: { brand: string; mpn: string; id: string; category: string };
const prisma = () => t.app.services.db.prisma;

beforeAll(async () => {
  t = await createTestApp();
  const org = await t.createOrg('pro', 'Importer');
  orgId = org.id;
  key = (await t.createKey(org.id)).key;
  product = await prisma().product.findFirstOrThrow({
    where: { category: 'laptop', pcf_total_kg: null },
    select: { brand: true, mpn: true, id: true, category: true },
  });
});
afterAll(() => t?.close());

const post = (p: string, body: unknown, k: string | null = key) =>
  t.json(p, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(k ? { authorization: `Bearer ${k}` } : {}) },
    body: JSON.stringify(body),
  });

describe(`POST /v1/assets on ${TEST_DATABASE_KIND}`, () => {
  it('imports good items, reports bad ones by index and field, and writes each asset with its active calculation', async () => {
    const res = await post('/v1/assets', {
      assets: [
        { brand: product.brand, mpn: product.mpn, serial_number: 'J-1', country: 'DE', purchase_date: '2023-04-01', status: 'in_use' },
        {
          brand: 'Dell',
          model: 'Custom Tower',
          category: 'desktop',
          serial_number: 'J-2',
          country: 'fr',
          ram_gb: 32,
          storage_gb: 1000,
          storage_type: 'ssd',
        },
        { brand: 'HP', model: 'EliteBook', serial_number: 'J-3', country: 'XX' },
        { brand: 'HP', model: 'EliteBook', serial_number: 'J-4', country: 'NL', status: 'broken', purchase_date: '2023-02-30' },
        { brand: 'Lenovo', mpn: '20XW', country: 'PL', weight_kg: -1 },
        { brand: 'Apple', model: 'MacBook Air', serial_number: 'J-6', country: 'US-CA', status: 'in stock' },
      ],
    });
    expect(res.status).toBe(200);
    const r = res.body;
    expect(r).toMatchObject({ source: 'json', total_rows: 6, created: 3, updated: 0, failed: 3 });
    expect(r.assets.map((a: any) => [a.index, a.serial_number, a.action])).toEqual([
      [0, 'J-1', 'created'],
      [1, 'J-2', 'created'],
      [5, 'J-6', 'created'],
    ]);
    const errs = r.errors.map((e: any) => `${e.index} ${e.field}`);
    expect(errs).toEqual(['2 country', '3 status', '3 purchase_date', '4 serial_number', '4 weight_kg']);
    for (const e of r.errors) expect(e.row).toBeNull();
    expect(r.errors.find((e: any) => e.field === 'country').reason).toMatch(/^unknown region code 'XX'; closest valid codes: /);
    expect(r.errors.find((e: any) => e.field === 'status').reason).toMatch(
      /in_stock, in_use, in_repair, refurbished, resold, recycled, disposed/,
    );

    const rows = await prisma().asset.findMany({
      where: { org_id: orgId },
      include: { active_calculation: true },
      orderBy: { serial_number: 'asc' },
    });
    expect(rows.map((a) => a.serial_number)).toEqual(['J-1', 'J-2', 'J-6']);
    for (const a of rows) {
      const c = a.active_calculation!;
      expect(c.id).toBe(r.assets.find((x: any) => x.id === a.id).calculation_id);
      expect(c.asset_id).toBe(a.id);
      expect(c.org_id).toBe(orgId);
      expect([a.total_kg_co2e, a.production_kg, a.use_phase_kg]).toEqual([c.total_kg_co2e, c.production_kg, c.use_phase_kg]);
      expect(a.product_id).toBe(c.product_id);
      expect(a.source).toBe('import:json');
    }
    const [j1, j2, j6] = rows;
    expect(j1!.product_id).toBe(product.id);
    expect(j1!.category).toBe(product.category);
    expect(j1!.purchase_date!.toISOString().slice(0, 10)).toBe('2023-04-01');
    expect(j2!.country).toBe('FR');
    expect(j2!.category).toBe('desktop');
    expect(j2!.specs).toEqual({ ram_gb: 32, storage_gb: 1000, storage_type: 'ssd' });
    expect(j6!.status).toBe('in_stock');
    expect(j6!.country).toBe('US-CA');

    const imp = await prisma().assetImport.findUniqueOrThrow({ where: { id: r.import_id } });
    expect(imp).toMatchObject({ org_id: orgId, source: 'json', total_rows: 6, created: 3, updated: 0, failed: 3 });
    expect((imp.errors as any[]).length).toBe(5);
    expect(await prisma().assetEvent.count({ where: { org_id: orgId, event: 'asset.created' } })).toBe(3);
  });

  it('updates on re-import of the same serial numbers instead of duplicating', async () => {
    const before = await prisma().asset.findFirstOrThrow({ where: { org_id: orgId, serial_number: 'J-1' } });
    const res = await post('/v1/assets', {
      assets: [
        { brand: product.brand, mpn: product.mpn, serial_number: 'J-1', country: 'SE', status: 'in_repair', purchase_date: '2023-04-01' },
        { brand: 'HP', model: 'EliteBook 840', serial_number: 'J-7', country: 'NL' },
      ],
    });
    expect(res.body).toMatchObject({ total_rows: 2, created: 1, updated: 1, failed: 0, errors: [] });
    expect(await prisma().asset.count({ where: { org_id: orgId } })).toBe(4);
    const after = await prisma().asset.findFirstOrThrow({ where: { org_id: orgId, serial_number: 'J-1' } });
    expect(after.id).toBe(before.id);
    expect(after.status).toBe('in_repair');
    expect(after.country).toBe('SE');
    expect(after.active_calculation_id).not.toBe(before.active_calculation_id);
    // Sweden's grid is cleaner than Germany's: the current total follows the new calculation.
    expect(after.use_phase_kg!).toBeLessThan(before.use_phase_kg!);
    // The earlier calculation stays as history of the asset.
    expect(await prisma().calculation.count({ where: { asset_id: before.id } })).toBe(2);
    const event = await prisma().assetEvent.findFirstOrThrow({ where: { asset_id: before.id, event: 'asset.status_changed' } });
    expect([event.from_value, event.to_value]).toEqual(['in_use', 'in_repair']);
  });

  it('reports a serial number repeated within one request on the later item', async () => {
    const res = await post('/v1/assets', {
      assets: [
        { brand: 'HP', model: 'ProBook 450', serial_number: 'D-1', country: 'DE' },
        { brand: 'HP', model: 'ProBook 455', serial_number: 'D-1', country: 'DE' },
      ],
    });
    expect(res.body).toMatchObject({ created: 1, failed: 1 });
    expect(res.body.errors).toEqual([
      {
        index: 1,
        row: null,
        serial_number: 'D-1',
        field: 'serial_number',
        reason: expect.stringMatching(/appears more than once .*index 0/),
      },
    ]);
  });

  it('reports an item with a wrongly typed or unknown field by index and field, and imports the others', async () => {
    const res = await post('/v1/assets', {
      assets: [
        { brand: 'HP', model: 'ProBook 450', serial_number: 'T-1', country: 'DE', ram_gb: 'lots', modle: 'x' },
        { brand: 'HP', model: 'ProBook 450', serial_number: 'T-2', country: 'DE', ram_gb: 16 },
        7,
      ],
    });
    expect(res.body).toMatchObject({ total_rows: 3, created: 1, failed: 2 });
    expect(res.status).toBe(200);
    expect(res.body.assets.map((a: any) => [a.index, a.serial_number])).toEqual([[1, 'T-2']]);
    expect(res.body.errors).toEqual([
      { index: 0, row: null, serial_number: null, field: 'ram_gb', reason: "must be a number, got 'lots'" },
      { index: 0, row: null, serial_number: null, field: 'modle', reason: "unknown field; did you mean 'model'?" },
      { index: 2, row: null, serial_number: null, field: 'row', reason: 'must be an object' },
    ]);
  });

  it('writes nothing for a row whose calculation was not stored, and reports it', async () => {
    const writer = t.app.services.calculations;
    const original = writer.store.bind(writer);
    // As if the database had refused this row's calculation (the writer answers null for it).
    writer.store = (record) => ((record.inputs as { model?: string }).model === 'Lost' ? Promise.resolve(null) : original(record));
    try {
      const res = await post('/v1/assets', {
        assets: [
          { brand: 'HP', model: 'Lost', serial_number: 'L-1', country: 'DE' },
          { brand: 'HP', model: 'Found', serial_number: 'L-2', country: 'DE' },
        ],
      });
      expect(res.body).toMatchObject({
        created: 1,
        failed: 1,
        errors: [{ index: 0, field: 'row', reason: expect.stringMatching(/could not be stored; nothing was written/) }],
      });
      expect(await prisma().asset.findFirst({ where: { org_id: orgId, serial_number: 'L-1' } })).toBeNull();
      expect(await prisma().asset.findFirst({ where: { org_id: orgId, serial_number: 'L-2' } })).not.toBeNull();
    } finally {
      writer.store = original;
    }
  });

  it('refuses more than 1000 items, an empty list, anonymous callers and keys without organisation context', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => ({ brand: 'HP', model: 'X', serial_number: `M-${i}`, country: 'DE' }));
    const tooMany = await post('/v1/assets', { assets: many });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({
      code: 'TOO_MANY_ROWS',
      details: expect.stringMatching(/^assets: at most 1000 assets per request, got 1001/),
    });
    expect((await post('/v1/assets', { assets: [] })).body.code).toBe('INVALID_PARAMETER');
    expect((await post('/v1/assets', { assets: [{ brand: 'HP' }] }, null)).status).toBe(401);
    const noCtx = await t.createKey(orgId, { org_context: false });
    const refused = await post('/v1/assets', { assets: [{ brand: 'HP' }] }, noCtx.key);
    expect([refused.status, refused.body.code]).toEqual([403, 'NO_ORGANIZATION_CONTEXT']);
    expect(await prisma().asset.count({ where: { serial_number: { startsWith: 'M-' } } })).toBe(0);
  });
});

describe(`POST /v1/assets/csv on ${TEST_DATABASE_KIND}`, () => {
  it('imports CSV rows with the same semantics; errors name the 1-based data row', async () => {
    const csv = [
      'Brand,MPN,Model,Serial_Number,Category,Purchase_Date,Country,Status,weight_kg,tdp,ram_gb,battery_wh,screen_size_inch,screen_type,storage_gb,storage_type',
      `${product.brand},${product.mpn},,C-1,,2022-01-15,DE,in_use,,,,,,,,`,
      'Lenovo,,"ThinkCentre M70q, Gen 4",C-2,mini_pc,2024-06-30,AT,in_stock,1.3,35,16,,,,512,nvme',
      '',
      'Acme,,Widget,C-3,toaster,2024-01-01,DE,in_use,,,,,,,,',
      'Dell,,Latitude 5440,C-4,,2024-01-01,DE,in_use,heavy,,,,,,,',
      'Dell,,Latitude 5440,C-5,,2030-01-01,DE,in_use,,,,,,,,',
    ].join('\r\n');
    const res = await post('/v1/assets/csv', { csv });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ source: 'csv', total_rows: 5, created: 2, failed: 3 });
    expect(res.body.assets.map((a: any) => [a.row, a.index, a.serial_number])).toEqual([
      [1, null, 'C-1'],
      [2, null, 'C-2'],
    ]);
    expect(res.body.errors.map((e: any) => `${e.row} ${e.field}`)).toEqual(['3 category', '4 weight_kg', '5 purchase_date']);
    expect(res.body.errors[0].reason).toMatch(/unknown category 'toaster'/);
    const c2 = await prisma().asset.findFirstOrThrow({ where: { org_id: orgId, serial_number: 'C-2' } });
    expect(c2).toMatchObject({
      model: 'ThinkCentre M70q, Gen 4',
      category: 'mini_pc',
      country: 'AT',
      status: 'in_stock',
      source: 'import:csv',
    });
    expect(c2.specs).toEqual({ weight_kg: 1.3, tdp: 35, ram_gb: 16, storage_gb: 512, storage_type: 'nvme' });
    expect((await prisma().assetImport.findUniqueOrThrow({ where: { id: res.body.import_id } })).source).toBe('csv');
  });

  it('rejects a file whose header is wrong as a whole', async () => {
    const unknown = await post('/v1/assets/csv', { csv: 'brand,model,serial,country\nHP,X,1,DE' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toMatch(/^csv: unknown column 'serial'; allowed: brand, mpn, model, serial_number/);
    const missing = await post('/v1/assets/csv', { csv: 'brand,serial_number,country\nHP,1,DE' });
    expect(missing.body.details).toBe('csv: missing column: mpn or model');
    const empty = await post('/v1/assets/csv', { csv: '' });
    expect(empty.body.code).toBe('INVALID_PARAMETER');
  });
});

describe(`importAssets through GraphQL on ${TEST_DATABASE_KIND}`, () => {
  it('has the same semantics as the REST route', async () => {
    const org = await t.createOrg('business', 'GraphQL importer');
    const gqlKey = (await t.createKey(org.id)).key;
    const mutation = `mutation Import($assets: [AssetInput!]!) {
      importAssets(assets: $assets) { import_id source total_rows created updated failed errors { index row field reason } assets { index id action } }
    }`;
    const res = await t.graphql(
      mutation,
      {
        assets: [
          { brand: 'HP', model: 'EliteBook 840 G9', serial_number: 'G-1', country: 'DE' },
          { brand: 'HP', serial_number: 'G-2', country: 'DE' },
        ],
      },
      gqlKey,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.importAssets).toMatchObject({
      source: 'json',
      total_rows: 2,
      created: 1,
      failed: 1,
      errors: [{ index: 1, row: null, field: 'mpn' }],
    });
    const again = await t.graphql(
      mutation,
      { assets: [{ brand: 'HP', model: 'EliteBook 840 G9', serial_number: 'G-1', country: 'DE', status: 'resold' }] },
      gqlKey,
    );
    expect(again.body.data.importAssets).toMatchObject({ created: 0, updated: 1 });
    const asset = await t.graphql(
      `query A($id: ID!) { asset(id: $id) { status serial_number active_calculation { id } } }`,
      { id: again.body.data.importAssets.assets[0].id },
      gqlKey,
    );
    expect(asset.body.data.asset).toMatchObject({ status: 'resold', serial_number: 'G-1' });
    const csv = await t.graphql(
      `mutation Csv($csv: String!) { importAssetsCsv(csv: $csv) { created updated errors { row field } } }`,
      { csv: 'brand,model,serial_number,country\nHP,EliteBook 840 G9,G-3,DE' },
      gqlKey,
    );
    expect(csv.body.data.importAssetsCsv).toEqual({ created: 1, updated: 0, errors: [] });
    expect(await prisma().asset.count({ where: { org_id: org.id } })).toBe(2);
  });
});

describe(`lcf assets import on ${TEST_DATABASE_KIND}`, () => {
  let url: string;
  let dir: string;
  beforeAll(async () => {
    url = await t.listen();
    dir = await mkdtemp(path.join(tmpdir(), 'lcf-import-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('sends a file larger than one request in chunks and reports bad rows with their file row numbers', async () => {
    const org = await t.createOrg('free', 'CLI importer');
    const cliKey = (await t.createKey(org.id)).key;
    const lines = ['brand,model,serial_number,country,category,status'];
    for (let i = 1; i <= 1203; i++) lines.push(`HP,EliteDesk 800 G${(i % 4) + 5},CLI-${i},${i === 1102 ? 'Narnia' : 'DE'},desktop,in_use`);
    const file = path.join(dir, 'inventory.csv');
    await writeFile(file, lines.join('\n'));
    const run = await runCli(['assets', 'import', file, '--key', cliKey], { LCF_URL: url });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const [summary, ...errors] = run.stdout.trim().split('\n');
    expect(summary).toBe('imported inventory.csv: 1203 rows, 1202 created, 0 updated, 1 failed');
    expect(errors).toEqual([expect.stringMatching(/^ {2}row 1102 \(CLI-1102\): country: unknown region code 'Narnia'/)]);
    expect(await prisma().asset.count({ where: { org_id: org.id } })).toBe(1202);
    expect(await prisma().assetImport.count({ where: { org_id: org.id } })).toBe(2);

    // Again, fixed: everything is an update, exit 0; --json for scripts.
    lines[1102] = lines[1102]!.replace('Narnia', 'BE');
    await writeFile(file, lines.join('\n'));
    const rerun = await runCli(['assets', 'import', file, '--key', cliKey, '--json'], { LCF_URL: url });
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ total_rows: 1203, created: 1, updated: 1202, failed: 0, errors: [] });
    expect(await prisma().asset.count({ where: { org_id: org.id } })).toBe(1203);
  });

  it('fails with one line and exit 2 on bad arguments, exit 1 when the server refuses', async () => {
    const noKey = await runCli(['assets', 'import', 'x.csv'], { LCF_URL: url, LCF_API_KEY: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr.trim()).toBe('lcf: --key KEY (or LCF_API_KEY) is required (lcf --help for usage)');
    const missing = await runCli(['assets', 'import', path.join(dir, 'none.csv'), '--key', key], { LCF_URL: url });
    expect([missing.code, missing.stderr.trim()]).toEqual([1, `lcf: cannot read ${path.join(dir, 'none.csv')}: ENOENT`]);
    const file = path.join(dir, 'bad-header.csv');
    await writeFile(file, 'brand,model,serial,country\nHP,X,1,DE\n');
    const refused = await runCli(['assets', 'import', file, '--key', key], { LCF_URL: url });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(
      /^lcf: 400 INVALID_PARAMETER: csv: unknown column 'serial'.*; stopped before importing anything$/,
    );
  });
});
