import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { buffer as readAll } from 'node:stream/consumers';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { writeExportArchive, type ArchiveProgress, type ExportArchiveResult } from '../../src/exports/archive.ts';
import { EXPORT_TABLES, ownerColumn, REDACTED_COLUMNS, resolveExportScope, type ExportTable } from '../../src/exports/tables.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { ASSET_STATUS_VALUES } from '../../src/assets/status.ts';

let t: TestApp;
let dir: string;
const prisma = () => t.app.services.db.prisma;
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const GENERATED_AT = new Date('2026-03-04T05:06:07.089Z');

interface Org {
  id: string;
  key: string;
  secret: string;
  sessionHash: string;
}
let a: Org;
let b: Org;

/** Imports assets through the API (calculations, factors, events, imports) and adds rows to most other tables directly. */
async function seedOrg(name: string, serials: string[]): Promise<Org> {
  const org = await t.createOrg('business', name);
  const { key } = await t.createKey(org.id);
  await t.createKey(org.id, { environment: 'live', bi_enabled: true });
  const res = await t.json('/v1/assets', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({
      assets: serials.map((serial_number, i) => ({
        brand: i % 2 ? 'Dell' : 'HP',
        model: i % 2 ? 'Latitude 5440' : 'EliteBook 840 G10',
        serial_number,
        country: ['DE', 'FR', 'NL'][i % 3],
        purchase_date: `2024-02-0${i + 1}`,
        status: ASSET_STATUS_VALUES[i % ASSET_STATUS_VALUES.length],
        ram_gb: 16,
      })),
    }),
  });
  expect(res.status).toBe(200);
  expect(res.body.created).toBe(serials.length);
  const p = prisma();
  const id = org.id;
  const calc = await p.calculation.findFirstOrThrow({ where: { org_id: id } });
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const sessionHash = randomBytes(32).toString('hex');
  await p.profile.createMany({
    data: [
      { org_id: id, email: `one@${name}.test`, display_name: 'One' },
      { org_id: id, email: `two@${name}.test` },
    ],
  });
  const endpoint = await p.webhookEndpoint.create({
    data: { org_id: id, url: `https://${name}.test/hook`, secret, events: ['org.export.completed'] },
  });
  await p.webhookDelivery.createMany({
    data: [1, 2, 3].map((attempt) => ({
      org_id: id,
      endpoint_id: endpoint.id,
      message_id: `msg_${name}`,
      event: 'org.export.completed',
      payload: { n: attempt, nested: { ok: true } },
      attempt,
    })),
  });
  await p.consoleSession.create({ data: { org_id: id, token_hash: sessionHash, expires_at: new Date(Date.now() + 3_600_000) } });
  await p.auditLog.createMany({
    data: [
      { org_id: id, event: 'org.export.job.downloaded', data: { n: 1 } },
      { org_id: id, event: 'scenario.simulate_refurbish' },
    ],
  });
  await p.erasureConnection.create({
    data: { org_id: id, base_url: `https://erasure.${name}.test`, api_key_encrypted: 'v1.sealed.value.here', api_key_hint: 'abcd' },
  });
  const run = await p.erasureSyncRun.create({
    data: { org_id: id, status: 'completed', params: { since: '2026-01-01' }, synced: 1, finished_at: new Date() },
  });
  await p.erasureReport.create({
    data: {
      org_id: id,
      sync_run_id: run.id,
      external_uuid: `ext-${name}`,
      status: 'synced',
      serial_number: serials[0],
      report: { wiped: true },
    },
  });
  await p.sbtiTarget.create({
    data: {
      org_id: id,
      name: 'Net zero',
      scope: 'scope3',
      base_year: 2020,
      base_year_kg_co2e: 1000.5,
      target_year: 2030,
      reduction_pct: 42,
    },
  });
  // monthly_emissions: kept by the database from the assets (a trigger), nothing to add.
  await p.scenarioRun.create({
    data: { org_id: id, kind: 'simulate_refurbish', asset_ids: [calc.asset_id!], result: { delta_kg_co2e: -10.25 } },
  });
  await p.report.create({
    data: {
      org_id: id,
      type: 'inventory',
      date_from: new Date('2026-01-01'),
      date_to: new Date('2026-01-31'),
      pages: 3,
      bytes: 1234,
      sha256: 'ab'.repeat(32),
    },
  });
  await p.exportJob.create({
    data: { org_id: id, status: 'completed', scope: { include: null, exclude: null }, total_rows: 9_000_000_000n, bytes: 123n },
  });
  await p.certificate.create({
    data: {
      org_id: id,
      calculation_id: calc.id,
      asset_id: calc.asset_id,
      certificate_number: `CERT-${name}`,
      content_sha256: 'cd'.repeat(32),
      payload: { total: 1 },
      signature: 'sig',
      key_id: 'kid',
    },
  });
  await p.usageCounter.createMany({
    data: [
      { bucket: `day:2026-03-04:org:${id}`, org_id: id, window: 'day', window_start: new Date('2026-03-04T00:00:00Z'), count: 5 },
      {
        bucket: `minute:2026-03-04T05:06:org:${id}`,
        org_id: id,
        window: 'minute',
        window_start: new Date('2026-03-04T05:06:00Z'),
        count: 2,
      },
    ],
  });
  await p.contractualInstrument.createMany({
    data: [
      {
        org_id: id,
        kind: 'supplier_specific',
        country: 'DE',
        valid_from: new Date('2025-01-01'),
        valid_to: new Date('2025-12-31'),
        emission_factor_kg_per_kwh: 0.321,
      },
      {
        org_id: id,
        kind: 'energy_attribute_certificate',
        country: 'FR',
        valid_from: new Date('2025-07-01'),
        valid_to: new Date('2025-12-31'),
        coverage_share: 0.5,
        label: `${name} guarantees of origin`,
      },
    ],
  });
  return { id, key, secret, sessionHash };
}

async function unzip(data: Buffer): Promise<Map<string, Buffer>> {
  const zip = await yauzl.fromBufferPromise(data, { lazyEntries: true });
  const files = new Map<string, Buffer>();
  for await (const entry of zip.eachEntry()) files.set(entry.fileName, await readAll(await zip.openReadStreamPromise(entry)));
  return files;
}

async function exportTo(
  file: string,
  orgId: string,
  tables: readonly ExportTable[] = EXPORT_TABLES,
  extra: { onProgress?: (p: ArchiveProgress) => Promise<void>; pageSize?: number; progressEveryRows?: number } = {},
): Promise<{ result: ExportArchiveResult; zip: Buffer; files: Map<string, Buffer> }> {
  const result = await writeExportArchive({
    db: t.app.services.db,
    orgId,
    tables,
    output: createWriteStream(file),
    softwareVersion: '1.2.3-test',
    generatedAt: GENERATED_AT,
    ...extra,
  });
  const zip = await readFile(file);
  return { result, zip, files: await unzip(zip) };
}

const countRows = async (table: ExportTable, orgId: string) =>
  (
    await prisma().$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM "${table}" WHERE "${ownerColumn(table)}" = $1::uuid`,
      orgId,
    )
  )[0]!.n;

const linesOf = (data: Buffer) => (data.length === 0 ? [] : data.toString('utf8').replace(/\n$/, '').split('\n'));

beforeAll(async () => {
  t = await createTestApp();
  dir = await mkdtemp(path.join(tmpdir(), 'lcf-export-archive-'));
  a = await seedOrg('alpha', ['A-1', 'A-2', 'A-3', 'A-4', 'A-5']);
  b = await seedOrg('beta', ['B-1', 'B-2', 'B-3']);
  // An anonymous caller's counter: no organisation, never exported.
  await prisma().usageCounter.create({
    data: {
      bucket: 'day:2026-03-04:ip:203.0.113.7',
      org_id: null,
      window: 'day',
      window_start: new Date('2026-03-04T00:00:00Z'),
      count: 9,
    },
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe(`organisation export archive on ${TEST_DATABASE_KIND}`, () => {
  it("holds every row of the organisation in 23 JSON Lines files (the spec's 22 and contractual_instruments) with README, hashes and counts, paging 2 rows at a time", async () => {
    const progress: ArchiveProgress[] = [];
    const { result, zip, files } = await exportTo(path.join(dir, 'full.zip'), a.id, EXPORT_TABLES, {
      pageSize: 2,
      progressEveryRows: 3,
      // A request between pages: the embedded database must stay free while the export runs.
      onProgress: async (p) => {
        progress.push(p);
        await prisma().asset.count({ where: { org_id: a.id } });
      },
    });

    const names = [...files.keys()];
    expect(names).toEqual(['README.md', ...EXPORT_TABLES.map((table) => `${table}.jsonl`), 'manifest.json']);
    expect(result.bytes).toBe(zip.length);
    expect(result.sha256).toBe(sha256(zip));

    const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8'));
    expect(manifest).toEqual(result.manifest);
    expect(manifest).toMatchObject({
      schema_version: '1.0',
      generated_at: '2026-03-04T05:06:07.089Z',
      org_id: a.id,
      software_version: '1.2.3-test',
    });
    expect(Object.keys(manifest.file_hashes).sort()).toEqual(names.filter((n) => n !== 'manifest.json').sort());
    for (const [name, hash] of Object.entries(manifest.file_hashes)) expect(hash, name).toBe(sha256(files.get(name)!));
    expect(manifest.notes.join('\n')).toMatch(/api_keys\.key .*webhook_endpoints\.secret .*console_sessions\.token_hash/s);

    let total = 0;
    for (const table of EXPORT_TABLES) {
      const lines = linesOf(files.get(`${table}.jsonl`)!);
      const expected = await countRows(table, a.id);
      expect(manifest.record_counts[table], table).toBe(expected);
      expect(lines.length, table).toBe(expected);
      total += expected;
      for (const line of lines) expect(JSON.parse(line)[ownerColumn(table)], table).toBe(a.id);
    }
    expect(result.totalRows).toBe(total);
    // Several tables span pages of 2 (usage_counters also counts the requests above, unless counters live in Redis).
    expect(manifest.record_counts).toMatchObject({
      organizations: 1,
      assets: 5,
      calculations: 5,
      calculation_factors: 5,
      webhook_deliveries: 3,
      contractual_instruments: 2,
    });
    const certificates = linesOf(files.get('contractual_instruments.jsonl')!).map((l) => JSON.parse(l));
    expect(certificates.find((r) => r.kind === 'energy_attribute_certificate')).toMatchObject({
      country: 'FR',
      valid_from: '2025-07-01',
      valid_to: '2025-12-31',
      emission_factor_kg_per_kwh: null,
      coverage_share: 0.5,
      label: 'alpha guarantees of origin',
    });
    expect(manifest.record_counts.usage_counters).toBeGreaterThanOrEqual(2);

    // Each row exactly once across pages of 2 (primary keys, incl. the composite one of calculation_factors).
    const assetIds = linesOf(files.get('assets.jsonl')!).map((l) => JSON.parse(l).id);
    expect(new Set(assetIds).size).toBe(5);
    expect(assetIds.sort()).toEqual(
      (await prisma().asset.findMany({ where: { org_id: a.id }, select: { id: true } })).map((r) => r.id).sort(),
    );
    const factorKeys = linesOf(files.get('calculation_factors.jsonl')!).map((l) => `${JSON.parse(l).calculation_id}/${JSON.parse(l).role}`);
    expect(new Set(factorKeys).size).toBe(5);

    // Progress: after every table, and within a table once 3 rows are unreported (pages of 2: every second page).
    expect(progress.filter((p) => p.current_table === null)).toHaveLength(23);
    const inAssets = progress.filter((p) => p.current_table === 'assets').map((p) => p.rows_written);
    const beforeAssets = progress.find((p) => p.tables_done === 3 && p.current_table === null)!.rows_written;
    expect(inAssets.map((n) => n - beforeAssets)).toEqual([4]);
    expect(progress.at(-1)).toEqual({ tables_done: 23, total_tables: 23, rows_written: total, current_table: null });
    expect(progress.find((p) => p.current_table === 'assets')).toMatchObject({ tables_done: 3, total_tables: 23 });
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.rows_written).toBeGreaterThanOrEqual(progress[i - 1]!.rows_written);
  });

  it('shows types as stored: ISO UTC timestamps, dates, nested JSON, arrays, big integers; columns named as in the database', async () => {
    const tricky = 'Zoë "Z" \\ O\'Brien\n\ttab, comma; 😀 \u0001 \\N';
    await prisma().profile.updateMany({ where: { org_id: a.id, email: 'one@alpha.test' }, data: { display_name: tricky } });
    await prisma().auditLog.create({ data: { org_id: a.id, event: 'tricky', data: { text: tricky, list: [tricky] } } });
    const { files } = await exportTo(path.join(dir, 'types.zip'), a.id);
    const rows = (table: ExportTable) => linesOf(files.get(`${table}.jsonl`)!).map((l) => JSON.parse(l));
    // Every character survives, one row per line.
    expect(rows('profiles').find((r) => r.email === 'one@alpha.test').display_name).toBe(tricky);
    expect(rows('audit_log').find((r) => r.event === 'tricky').data).toEqual({ text: tricky, list: [tricky] });
    const asset = rows('assets').find((r) => r.serial_number === 'A-1');
    const stored = await prisma().asset.findFirstOrThrow({ where: { org_id: a.id, serial_number: 'A-1' } });
    expect(Object.keys(asset)).toEqual([
      'id',
      'org_id',
      'brand',
      'mpn',
      'model',
      'serial_number',
      'category',
      'status',
      'purchase_date',
      'country',
      'specs',
      'product_id',
      'active_calculation_id',
      'total_kg_co2e',
      'production_kg',
      'use_phase_kg',
      'source',
      'external_ref',
      'created_at',
      'updated_at',
      // added for the period inventory (migration inventory_period_figures): new columns come last
      'annual_kwh',
      'calculated_at',
      'end_of_life_kg',
      'lifetime_years',
      'transport_kg',
      'uncertainty_pct',
      // the whole-life ADPe and PE of the active calculation (migration asset_impact_totals)
      'adpe_kg_sb_eq',
      'pe_mj',
    ]);
    expect(asset).toMatchObject({
      status: 'in_stock',
      purchase_date: '2024-02-01',
      specs: { ram_gb: 16 },
      total_kg_co2e: stored.total_kg_co2e,
      active_calculation_id: stored.active_calculation_id,
    });
    expect(asset.created_at).toMatch(ISO_UTC);
    expect(asset.created_at).toBe(stored.created_at.toISOString());
    const calc = rows('calculations').find((r) => r.id === stored.active_calculation_id);
    expect(calc).toMatchObject({
      asset_id: stored.id,
      total_kg_co2e: stored.total_kg_co2e,
      production_kg: stored.production_kg,
      use_phase_kg: stored.use_phase_kg,
    });
    expect(typeof calc.result).toBe('object');
    // GWP, ADPe and PE per phase in the calculation's result; the whole-life ADPe and PE also on the asset row.
    expect(Object.keys(calc.result.impacts)).toEqual(expect.arrayContaining(['gwp', 'adpe', 'pe']));
    expect(calc.result.impacts.adpe.total).toBeGreaterThan(0);
    expect(asset).toMatchObject({ adpe_kg_sb_eq: calc.result.impacts.adpe.total, pe_mj: calc.result.impacts.pe.total });
    // The calculation row has them per phase as columns too (migration monthly_emissions_impacts).
    expect(calc).toMatchObject({
      adpe_production_kg_sb_eq: calc.result.impacts.adpe.phases.production,
      adpe_use_phase_kg_sb_eq: calc.result.impacts.adpe.phases.use,
      pe_end_of_life_mj: calc.result.impacts.pe.phases.end_of_life,
      pe_mj: calc.result.impacts.pe.total,
    });
    expect(rows('export_jobs')[0]).toMatchObject({
      total_rows: 9_000_000_000,
      bytes: 123,
      scope: { include: null, exclude: null },
      completed_at: null,
    });
    expect(rows('webhook_endpoints')[0].events).toEqual(['org.export.completed']);
    const months = rows('monthly_emissions');
    expect(months.length).toBeGreaterThan(0);
    for (const m of months) expect([typeof m.total_kg_co2e, m.month]).toEqual(['number', expect.stringMatching(/^2024-02-01$/)]);
    const sum = (values: number[]) => values.reduce((x, y) => x + y, 0);
    expect(sum(months.map((m) => m.total_kg_co2e))).toBeCloseTo(sum(rows('assets').map((r) => r.total_kg_co2e)), 4);
    // ADPe and PE beside kg CO2e, over the assets that have them.
    expect(sum(months.map((m) => m.impacts_asset_count))).toBe(rows('assets').filter((r) => r.pe_mj !== null).length);
    expect(sum(months.map((m) => m.pe_mj ?? 0))).toBeCloseTo(sum(rows('assets').map((r) => r.pe_mj ?? 0)), 6);
    expect(sum(months.map((m) => m.adpe_kg_sb_eq ?? 0)) / sum(rows('assets').map((r) => r.adpe_kg_sb_eq ?? 0))).toBeCloseTo(1, 9);
    expect(
      rows('usage_counters')
        .filter((r) => r.bucket.includes(':org:'))
        .map((r) => r.window_start)
        .sort(),
    ).toEqual(['2026-03-04T00:00:00.000Z', '2026-03-04T05:06:00.000Z']);
  });

  it('contains nothing of another organisation and no credential: key hashes, webhook secrets and session hashes are null', async () => {
    const { zip, files } = await exportTo(path.join(dir, 'isolation.zip'), a.id);
    const content = Buffer.concat([...files.values()]).toString('utf8');

    // Every primary-key value of every row of organisation B (ids are UUIDs, unique across tables).
    const foreign = [b.id];
    for (const table of EXPORT_TABLES) {
      const key = table === 'usage_counters' ? 'bucket' : table === 'calculation_factors' ? 'calculation_id' : 'id';
      const ids = await prisma().$queryRawUnsafe<{ k: string }[]>(
        `SELECT "${key}"::text AS k FROM "${table}" WHERE "${ownerColumn(table)}" = $1::uuid`,
        b.id,
      );
      foreign.push(...ids.map((r) => r.k));
    }
    expect(foreign.length).toBeGreaterThan(30);
    for (const id of foreign) expect(content.includes(id), id).toBe(false);
    expect(content).not.toContain('203.0.113.7');

    const keyHashes = (await prisma().apiKey.findMany({ where: { org_id: a.id }, select: { key: true } })).map((k) => k.key);
    expect(keyHashes).toHaveLength(2);
    const secrets = [...keyHashes, a.secret, a.sessionHash, a.key, a.key.slice(-20)];
    for (const secret of secrets) {
      expect(content.includes(secret)).toBe(false);
      expect(zip.includes(Buffer.from(secret))).toBe(false);
    }
    const rows = (table: ExportTable) => linesOf(files.get(`${table}.jsonl`)!).map((l) => JSON.parse(l));
    for (const [table, columns] of Object.entries(REDACTED_COLUMNS) as [ExportTable, Record<string, string>][]) {
      expect(rows(table).length, table).toBeGreaterThan(0);
      for (const row of rows(table))
        for (const column of Object.keys(columns)) expect(row, `${table}.${column}`).toHaveProperty(column, null);
    }
    expect(
      rows('api_keys')
        .map((r) => r.prefix)
        .every((p: string) => p.startsWith('svc_')),
    ).toBe(true);
    expect(rows('erasure_connections')[0].api_key_hint).toBe('abcd');
  });

  it('writes a README explaining the asset inventory, statuses, totals and verification', async () => {
    const { files } = await exportTo(path.join(dir, 'readme.zip'), a.id, ['organizations', 'assets', 'calculations']);
    const readme = files.get('README.md')!.toString('utf8');
    expect(readme).toContain('**A row is one physical device**');
    for (const status of ASSET_STATUS_VALUES) expect(readme).toContain(`| \`${status}\` |`);
    expect(readme).toContain('`active_calculation_id`');
    expect(readme).toMatch(/not an inventory for a reporting period/);
    expect(readme).toMatch(/sha256sum -c -/);
    expect(readme).toContain("Not included (excluded by the export's scope): `profiles`, `api_keys`");
    expect(readme).toContain('No selected table holds a credential');
  });

  it('writes only the tables of the scope; record_counts and file_hashes follow it', async () => {
    const tables = resolveExportScope({ include: ['calculations', 'assets', 'api_keys', 'assets'], exclude: ['api_keys'] });
    expect(tables).toEqual(['assets', 'calculations']);
    const { result, files } = await exportTo(path.join(dir, 'scope.zip'), a.id, tables);
    expect([...files.keys()]).toEqual(['README.md', 'assets.jsonl', 'calculations.jsonl', 'manifest.json']);
    expect(result.manifest.record_counts).toEqual({ assets: 5, calculations: 5 });
    expect(Object.keys(result.manifest.file_hashes)).toEqual(['README.md', 'assets.jsonl', 'calculations.jsonl']);
    expect(result.manifest.notes.join('\n')).toContain('Tables: 2 of 23; excluded by scope: organizations, profiles, api_keys');
  });

  it('writes empty files for tables without rows', async () => {
    const org = await t.createOrg('free', 'Empty');
    const { result, files } = await exportTo(path.join(dir, 'empty.zip'), org.id);
    expect(files.size).toBe(25);
    expect(result.totalRows).toBe(1);
    expect(files.get('assets.jsonl')!.length).toBe(0);
    expect(result.manifest.file_hashes['assets.jsonl']).toBe(sha256(Buffer.alloc(0)));
    expect(JSON.parse(files.get('organizations.jsonl')!.toString('utf8'))).toMatchObject({ id: org.id, name: 'Empty', plan: 'free' });
  });

  it('abandons the archive when onProgress throws: rejects with that error, destroys the output, leaves the database usable', async () => {
    const stop = new Error('lease lost');
    let calls = 0;
    const output = createWriteStream(path.join(dir, 'aborted.zip'));
    const started = Date.now();
    await expect(
      writeExportArchive({
        db: t.app.services.db,
        orgId: a.id,
        tables: EXPORT_TABLES,
        output,
        softwareVersion: 'x',
        generatedAt: GENERATED_AT,
        pageSize: 1,
        progressEveryRows: 1,
        // Reports: organizations 1 row + end, profiles 2 + end, api_keys 2 + end, then the first row of assets.
        onProgress: async (p) => {
          calls += 1;
          if (p.current_table === 'assets') throw stop;
        },
      }),
    ).rejects.toBe(stop);
    expect(calls).toBe(9);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(output.destroyed).toBe(true);
    expect(await prisma().asset.count({ where: { org_id: a.id } })).toBe(5);
    // And the next export runs normally.
    const { result } = await exportTo(path.join(dir, 'after-abort.zip'), a.id, ['assets']);
    expect(result.manifest.record_counts).toEqual({ assets: 5 });
  });

  it('stops a table read in the middle (more rows than the connection buffers) and frees the connection', async () => {
    const org = await t.createOrg('business', 'Large');
    const filler = 'x'.repeat(2_000);
    await prisma().auditLog.createMany({
      data: Array.from({ length: 3_000 }, (_, i) => ({ org_id: org.id, event: 'bulk', data: { i, filler } })),
    });
    const stop = new Error('cancelled');
    const started = Date.now();
    await expect(
      writeExportArchive({
        db: t.app.services.db,
        orgId: org.id,
        tables: ['audit_log'],
        output: createWriteStream(path.join(dir, 'cancelled.zip')),
        softwareVersion: 'x',
        generatedAt: GENERATED_AT,
        pageSize: 100,
        progressEveryRows: 100,
        onProgress: async () => {
          throw stop;
        },
      }),
    ).rejects.toBe(stop);
    expect(Date.now() - started).toBeLessThan(5_000);
    if (TEST_DATABASE_KIND === 'postgres') {
      // The export's own connection (its COPY was still sending) is gone.
      const copying = () =>
        prisma().$queryRawUnsafe<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'COPY (%'`,
        );
      for (let i = 0; i < 50 && (await copying())[0]!.n > 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect((await copying())[0]!.n).toBe(0);
    }
    const { result } = await exportTo(path.join(dir, 'large.zip'), org.id, ['audit_log']);
    expect(result.manifest.record_counts).toEqual({ audit_log: 3_000 });
  });

  it('rejects with the storage error when the output fails', async () => {
    const broken = new Error('upload failed');
    let received = 0;
    const output = new Writable({
      write(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        done(received > 2_000 ? broken : null);
      },
    });
    await expect(
      writeExportArchive({
        db: t.app.services.db,
        orgId: a.id,
        tables: EXPORT_TABLES,
        output,
        softwareVersion: 'x',
        generatedAt: GENERATED_AT,
        pageSize: 1,
      }),
    ).rejects.toBe(broken);
    expect(await prisma().asset.count({ where: { org_id: a.id } })).toBe(5);
  });

  it.skipIf(TEST_DATABASE_KIND !== 'postgres')(
    'reads all tables from one snapshot on PostgreSQL (rows written meanwhile are not in the archive)',
    async () => {
      let inserted = false;
      const { result, files } = await exportTo(path.join(dir, 'snapshot.zip'), a.id, ['organizations', 'assets', 'audit_log'], {
        onProgress: async () => {
          if (inserted) return;
          inserted = true;
          await prisma().auditLog.create({ data: { org_id: a.id, event: 'written.during.export' } });
        },
      });
      expect(inserted).toBe(true);
      expect(files.get('audit_log.jsonl')!.toString('utf8')).not.toContain('written.during.export');
      expect(result.manifest.record_counts.audit_log).toBe((await countRows('audit_log', a.id)) - 1);
      expect(result.manifest.notes).toContain(
        'All tables were read from one database snapshot: the files agree with each other as of one moment.',
      );
    },
  );
});

describe('export scope and tables', () => {
  it('resolves include (whitelist) then exclude (blacklist), in the order of the 23 tables', () => {
    expect(resolveExportScope(undefined)).toEqual([...EXPORT_TABLES]);
    expect(resolveExportScope({ include: null, exclude: null })).toEqual([...EXPORT_TABLES]);
    expect(resolveExportScope({ exclude: ['audit_log', 'usage_counters'] })).toHaveLength(21);
    expect(resolveExportScope({ include: ['audit_log', 'organizations', 'assets'] })).toEqual(['organizations', 'assets', 'audit_log']);
  });

  it('answers 400 naming an unknown table with its index, and a scope that selects nothing', () => {
    const failure = (scope: Parameters<typeof resolveExportScope>[0]) => {
      try {
        resolveExportScope(scope);
      } catch (error) {
        return error as ApiError;
      }
      throw new Error('no error');
    };
    const unknown = failure({ include: ['assets', 'profiles', 'foo'] });
    expect(unknown).toBeInstanceOf(ApiError);
    expect(unknown.toBody()).toEqual({
      error: "Invalid parameter 'scope.include[2]'",
      code: 'INVALID_PARAMETER',
      details: `scope.include[2]: unknown table "foo"; the tables are: ${EXPORT_TABLES.join(', ')}`,
    });
    expect(unknown.status).toBe(400);
    expect(failure({ exclude: ['Assets'] }).details).toMatch(/^scope\.exclude\[0\]: unknown table "Assets"/);
    const nothing = failure({ include: ['assets'], exclude: ['assets'] });
    expect([nothing.status, nothing.code, nothing.message]).toEqual([400, 'INVALID_PARAMETER', "Invalid parameter 'scope'"]);
    expect(failure({ include: [] }).details).toMatch(/^scope: selects no table/);
  });

  it('covers every table that has an owner column, and every credential-like column is reviewed', async () => {
    const columns = await prisma().$queryRawUnsafe<{ table_name: string; column_name: string }[]>(
      `SELECT table_name::text, column_name::text FROM information_schema.columns WHERE table_schema = current_schema()`,
    );
    const owned = new Set(columns.filter((c) => c.column_name === 'org_id').map((c) => c.table_name));
    expect([...owned, 'organizations'].sort()).toEqual([...EXPORT_TABLES].sort());
    // A new column whose name suggests a credential fails here until it is redacted or listed as harmless.
    const credentialLike = columns
      .filter((c) => (EXPORT_TABLES as readonly string[]).includes(c.table_name))
      .filter((c) => /key|secret|token|hash|password|credential/.test(c.column_name) && !c.column_name.endsWith('_id'))
      .map((c) => `${c.table_name}.${c.column_name}`)
      .sort();
    const redacted = Object.entries(REDACTED_COLUMNS).flatMap(([table, cols]) => Object.keys(cols!).map((c) => `${table}.${c}`));
    const harmless = [
      'erasure_connections.api_key_hint',
      'erasure_connections.configured_by_key',
      'export_jobs.idempotency_key',
      'export_jobs.requested_by_key',
    ];
    expect(credentialLike).toEqual([...redacted, ...harmless].sort());
  });
});
