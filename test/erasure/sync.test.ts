import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { connectBlancco, syncBlancco } from '../../src/erasure/cli.ts';
import { startFakeBlancco, type FakeBlancco } from '../support/fake-blancco.ts';
import {
  corruptReport,
  desktopReport,
  laptopReport,
  missingFieldsReport,
  phoneReport,
  serverReport,
  unsuccessfulReport,
} from './fixtures.ts';

// POST /v1/blancco/sync against a fake Blancco Management Portal on 127.0.0.1 (docs/erasure-sync.md).
let t: TestApp;
let fake: FakeBlancco;

const REPORTS = [laptopReport, desktopReport, serverReport, phoneReport, missingFieldsReport, corruptReport, unsuccessfulReport];
const uuidOf = (report: any): string => report.blancco_data.description.document_id;

async function businessKey(plan = 'business') {
  const org = await t.createOrg(plan, `Erasure ${plan} ${Math.random()}`);
  const { key } = await t.createKey(org.id);
  return { org, key };
}

const call = (key: string | null, method: string, route: string, body?: unknown) =>
  t.json(`/v1${route}`, {
    method,
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const connect = (key: string, apiKey = fake.apiKey, extra: Record<string, unknown> = {}) =>
  call(key, 'PUT', '/blancco/connection', { base_url: fake.url, api_key: apiKey, ...extra });
const sync = (key: string, body: Record<string, unknown> = {}) => call(key, 'POST', '/blancco/sync', body);

beforeAll(async () => {
  t = await createTestApp({ ERASURE_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', BLANCCO_TIMEOUT_MS: '300' });
  fake = await startFakeBlancco({ reports: REPORTS, pageSize: 3 });
});

afterAll(async () => {
  await fake?.close();
  await t?.close();
});

describe('access and connection', () => {
  it('needs a key (401), organisation context (403) and the business plan (403), then a connection (409)', async () => {
    expect((await sync(null as never)).status).toBe(401);
    const org = await t.createOrg('business');
    const orgless = await t.createKey(org.id, { org_context: false });
    expect(await sync(orgless.key)).toMatchObject({ status: 403, body: { code: 'NO_ORGANIZATION_CONTEXT' } });
    const pro = await businessKey('pro');
    expect(await sync(pro.key)).toMatchObject({ status: 403, body: { code: 'PLAN_TOO_LOW' } });
    const { key } = await businessKey();
    expect(await sync(key)).toMatchObject({ status: 409, body: { code: 'ERASURE_NOT_CONFIGURED' } });
    expect(await call(key, 'GET', '/blancco/connection')).toMatchObject({ status: 404, body: { code: 'ERASURE_CONNECTION_NOT_FOUND' } });
  });

  it('stores the API key encrypted, never returns it and checks the fields', async () => {
    const { org, key } = await businessKey();
    const saved = await connect(key, 'bmp-key-0123456789-secret', { default_country: 'de' });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      provider: 'blancco',
      base_url: fake.url,
      api_key_hint: '…cret',
      default_country: 'DE',
      last_synced_at: null,
    });
    expect(JSON.stringify(saved.body)).not.toContain('bmp-key-0123456789');
    const shown = await call(key, 'GET', '/blancco/connection');
    expect(JSON.stringify(shown.body)).not.toContain('bmp-key-0123456789');
    // Not in the database in clear: every column of the row, as text.
    const [row] = await t.app.services.db.prisma.$queryRawUnsafe<{ row: string }[]>(
      `SELECT row_to_json(c)::text AS row FROM erasure_connections c WHERE org_id = $1::uuid`,
      org.id,
    );
    expect(row!.row).not.toContain('bmp-key-0123456789');
    expect(row!.row).toMatch(/"api_key_encrypted":"v1\.[\w-]+\.[\w-]+\.[\w-]+"/);
    const audit = await t.app.services.db.prisma.auditLog.findMany({
      where: { org_id: org.id, event: 'org.erasure.connection.configured' },
    });
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit[0]!.data)).not.toContain('bmp-key-0123456789');

    expect(await connect(key, 'short')).toMatchObject({
      status: 400,
      body: { code: 'INVALID_PARAMETER', details: expect.stringContaining('api_key') },
    });
    expect(await call(key, 'PUT', '/blancco/connection', { base_url: 'ftp://portal.example', api_key: 'long-enough-key' })).toMatchObject({
      status: 400,
      body: { details: expect.stringContaining('base_url') },
    });
    expect(await connect(key, fake.apiKey, { default_country: 'XX' })).toMatchObject({
      status: 400,
      body: { details: expect.stringContaining('default_country') },
    });
    expect(await call(key, 'DELETE', '/blancco/connection')).toMatchObject({ status: 200, body: { provider: 'blancco' } });
    expect(await call(key, 'DELETE', '/blancco/connection')).toMatchObject({ status: 404, body: { code: 'ERASURE_CONNECTION_NOT_FOUND' } });
  });
});

describe('sync', () => {
  it('syncs every kind of device over several pages, then skips them all; errors are items', async () => {
    const { org, key } = await businessKey();
    await connect(key);
    const before = fake.requests.length;
    const first = await sync(key);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ synced: 6, skipped: 0, errors: 1, has_more: false, continuation: null });
    // 7 reports in pages of 3: three requests, the cursor of each page sent with the next.
    const requests = fake.requests.slice(before);
    expect(requests).toHaveLength(3);
    expect((requests[0]!.body as any).cursor).toBeUndefined();
    expect((requests[1]!.body as any).cursor).toEqual(expect.any(String));
    expect(requests[0]!.headers['x-blancco-api-key']).toBe(fake.apiKey);

    const byUuid = new Map(first.body.details.map((d: any) => [d.uuid, d]));
    expect(first.body.details).toHaveLength(7);
    expect(byUuid.get(uuidOf(corruptReport))).toMatchObject({ status: 'error', error: expect.any(String), asset_id: null });
    for (const report of [laptopReport, desktopReport, serverReport, phoneReport, missingFieldsReport, unsuccessfulReport]) {
      expect(byUuid.get(uuidOf(report))).toMatchObject({
        status: 'synced',
        asset_id: expect.any(String),
        calculation_id: expect.any(String),
        total_kg_co2e: expect.any(Number),
        error: null,
      });
    }
    expect(byUuid.get(uuidOf(laptopReport))).toMatchObject({ category: 'laptop' });
    expect(byUuid.get(uuidOf(desktopReport))).toMatchObject({ category: 'desktop' });
    expect(byUuid.get(uuidOf(serverReport))).toMatchObject({ category: 'server' });
    expect(byUuid.get(uuidOf(phoneReport))).toMatchObject({ category: 'smartphone' });

    // Each synced report is an asset of the organisation, wiped and held (in_stock), with its footprint active.
    const prisma = t.app.services.db.prisma;
    const assets = await prisma.asset.findMany({ where: { org_id: org.id } });
    expect(assets).toHaveLength(6);
    const laptop = byUuid.get(uuidOf(laptopReport)) as any;
    const laptopAsset = assets.find((a) => a.id === laptop.asset_id)!;
    expect(laptopAsset).toMatchObject({
      serial_number: laptop.serial_number,
      status: 'in_stock',
      source: 'import:blancco',
      active_calculation_id: laptop.calculation_id,
      category: 'laptop',
    });
    expect(laptopAsset.specs).toMatchObject({ ram_gb: expect.any(Number), storage_gb: expect.any(Number) });
    const reports = await prisma.erasureReport.findMany({ where: { org_id: org.id } });
    expect(reports.map((r) => r.status).sort()).toEqual(['error', 'synced', 'synced', 'synced', 'synced', 'synced', 'synced']);
    const run = await prisma.erasureSyncRun.findUniqueOrThrow({ where: { id: first.body.sync_run_id } });
    expect(run).toMatchObject({ status: 'completed', synced: 6, skipped: 0, errors: 1, has_more: false, finished_at: expect.any(Date) });
    expect(await prisma.auditLog.count({ where: { org_id: org.id, event: 'org.erasure.sync.completed', subject_id: run.id } })).toBe(1);

    const second = await sync(key);
    expect(second.body).toMatchObject({ synced: 0, skipped: 6, errors: 1 });
    expect(await prisma.asset.count({ where: { org_id: org.id } })).toBe(6);
    const runs = await call(key, 'GET', '/blancco/sync/runs');
    expect(runs.body).toMatchObject({
      total: 2,
      runs: [
        { id: second.body.sync_run_id, skipped: 6 },
        { id: first.body.sync_run_id, synced: 6 },
      ],
    });
  });

  it('onlySuccessful asks the portal for successful erasures only; sinceDate filters by date', async () => {
    const { key } = await businessKey();
    await connect(key);
    const before = fake.requests.length;
    const result = await sync(key, { onlySuccessful: true, sinceDate: '2020-01-01', country: 'FR' });
    expect(result.status).toBe(200);
    expect(result.body.details.map((d: any) => d.uuid)).not.toContain(uuidOf(unsuccessfulReport));
    expect(result.body).toMatchObject({ synced: 5, errors: 1 });
    expect(fake.requests[before]!.body).toMatchObject({
      filter: { date: { gte: '2020-01-01T00:00:00.000Z' }, erasure_state: { eq: 'Successful' } },
      format: 'JSON',
    });
    expect(await sync(key, { sinceDate: '2020-13-01' })).toMatchObject({
      status: 400,
      body: { details: expect.stringContaining('sinceDate') },
    });
    expect(await sync(key, { country: 'Atlantis' })).toMatchObject({ status: 400, body: { details: expect.stringContaining('country') } });
    expect(await sync(key, { limit: 0 })).toMatchObject({ status: 400, body: { details: expect.stringContaining('limit') } });
  });

  it('re-checks both filters itself when the console ignores them', async () => {
    const { key } = await businessKey();
    await connect(key);
    fake.ignoreFilters = true;
    try {
      // Every report is dated 2026-11-20: none is on or after the 21st, whatever the console sends.
      const later = await sync(key, { sinceDate: '2026-11-21' });
      expect(later.body).toMatchObject({ synced: 0, skipped: 0 });
      expect(later.body.details.filter((d: any) => d.status !== 'error')).toEqual([]);
      const successful = await sync(key, { onlySuccessful: true, sinceDate: '2026-11-20' });
      expect(successful.body).toMatchObject({ synced: 5 });
      expect(successful.body.details.map((d: any) => d.uuid)).not.toContain(uuidOf(unsuccessfulReport));
    } finally {
      fake.ignoreFilters = false;
    }
  });

  it("asks for pages within the console's documented bounds: size 1 to 10, or none for its default page of up to 100", async () => {
    const { key } = await businessKey();
    await connect(key);
    let before = fake.requests.length;
    await sync(key, { limit: 5 });
    // Pages of 3 at the fake: 5 wanted, then the 2 left.
    expect(fake.requests.slice(before).map((r) => (r.body as any).size)).toEqual([5, 2]);
    before = fake.requests.length;
    await sync(key, { limit: 250 });
    expect(fake.requests.slice(before).map((r) => (r.body as any).size)).toEqual([undefined, undefined, undefined]);
    before = fake.requests.length;
    await sync(key, { limit: 40 });
    expect(fake.requests.slice(before).map((r) => (r.body as any).size)).toEqual([10, 10, 10]);
  });

  it('opens the breaker after 5 failed console requests, retries included, then answers 503 without calling it', async () => {
    // A console of its own: the breaker is per console origin.
    const failing = await startFakeBlancco({ reports: REPORTS });
    try {
      const { key } = await businessKey();
      await call(key, 'PUT', '/blancco/connection', { base_url: failing.url, api_key: failing.apiKey });
      failing.failNext(500, 10);
      // Three attempts (two retries) fail: 502; two more open the breaker within the second sync.
      expect(await sync(key)).toMatchObject({ status: 502, body: { code: 'ERASURE_CONSOLE_UNAVAILABLE' } });
      const opened = await sync(key);
      expect(opened).toMatchObject({ status: 503, body: { code: 'ERASURE_CONSOLE_UNAVAILABLE' } });
      expect(opened.headers.get('retry-after')).toBe('30');
      expect(failing.requests).toHaveLength(5);
      expect(await sync(key)).toMatchObject({ status: 503, body: { code: 'ERASURE_CONSOLE_UNAVAILABLE' } });
      expect(failing.requests).toHaveLength(5);
    } finally {
      await failing.close();
    }
  });

  it.each([['yes'], [1], ['true'], [[true]]])('refuses onlySuccessful %j with 400 before the connection is looked up', async (value) => {
    const { key } = await businessKey();
    // No connection: a 409 ERASURE_NOT_CONFIGURED would mean the value got past validation.
    const answer = await sync(key, { onlySuccessful: value });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('onlySuccessful');
  });

  it('takes at most `limit` reports and continues where it stopped; an interrupted sync re-run completes the rest', async () => {
    const { org, key } = await businessKey();
    await connect(key);
    const first = await sync(key, { limit: 3 });
    expect(first.body).toMatchObject({ synced: 3, has_more: true, continuation: first.body.sync_run_id });
    // The next batch fails at the portal (500 on every attempt): what the first batch synced stays.
    fake.failNext(500, 3);
    const failed = await sync(key, { continuation: first.body.continuation });
    expect(failed).toMatchObject({ status: 502, body: { code: 'ERASURE_CONSOLE_UNAVAILABLE' } });
    const prisma = t.app.services.db.prisma;
    expect(
      await prisma.erasureSyncRun.count({ where: { org_id: org.id, status: 'failed', error_code: 'ERASURE_CONSOLE_UNAVAILABLE' } }),
    ).toBe(1);
    expect(await prisma.asset.count({ where: { org_id: org.id } })).toBe(3);
    // A continuation keeps its filters; another organisation's run is unknown here.
    expect(await sync(key, { continuation: first.body.continuation, country: 'DE' })).toMatchObject({
      status: 400,
      body: { details: expect.stringContaining('country') },
    });
    const other = await businessKey();
    await connect(other.key);
    expect(await sync(other.key, { continuation: first.body.continuation })).toMatchObject({
      status: 400,
      body: { details: expect.stringContaining('continuation') },
    });

    const rerun = await sync(key);
    expect(rerun.body).toMatchObject({ synced: 3, skipped: 3, errors: 1, has_more: false });
    expect(await prisma.asset.count({ where: { org_id: org.id } })).toBe(6);
  });

  it('two concurrent syncs of one organisation import each report once', async () => {
    const { org, key } = await businessKey();
    await connect(key);
    const results = await Promise.all([sync(key), sync(key), sync(key)]);
    const ok = results.filter((r) => r.status === 200);
    for (const r of results.filter((r) => r.status !== 200)) {
      expect(r).toMatchObject({ status: 429, body: { error: 'Rate limit exceeded', retry_after_seconds: expect.any(Number) } });
      expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    expect(ok.reduce((n, r) => n + r.body.synced, 0)).toBe(6);
    const prisma = t.app.services.db.prisma;
    expect(await prisma.erasureReport.count({ where: { org_id: org.id } })).toBe(7);
    expect(await prisma.asset.count({ where: { org_id: org.id } })).toBe(6);
  });

  it('takes over from a run whose process died (lease run out)', async () => {
    const { org, key } = await businessKey();
    await connect(key);
    const prisma = t.app.services.db.prisma;
    const stale = await prisma.erasureSyncRun.create({
      data: { org_id: org.id, params: {}, lease_expires_at: new Date(Date.now() - 1000) },
    });
    const result = await sync(key);
    expect(result.body).toMatchObject({ synced: 6 });
    expect(await prisma.erasureSyncRun.findUniqueOrThrow({ where: { id: stale.id } })).toMatchObject({
      status: 'interrupted',
      error_code: 'ERASURE_SYNC_INTERRUPTED',
    });
  });

  it('answers the portal failures with codes: retried 500, persistent 500, timeout, bad key', async () => {
    const { key } = await businessKey();
    await connect(key);
    let before = fake.requests.length;
    fake.failNext(500, 1);
    expect((await sync(key, { limit: 1 })).status).toBe(200);
    expect(fake.requests.length - before).toBe(2);

    fake.stallNext(2_000, 3);
    expect(await sync(key)).toMatchObject({ status: 502, body: { code: 'ERASURE_CONSOLE_TIMEOUT' } });

    await connect(key, 'not-the-portal-key');
    before = fake.requests.length;
    expect(await sync(key)).toMatchObject({ status: 409, body: { code: 'ERASURE_CREDENTIALS_REJECTED' } });
    // A refused key is not retried.
    expect(fake.requests.length - before).toBe(1);
  });

  it('queues the org.erasure.sync.completed webhook and works over GraphQL', async () => {
    const { org, key } = await businessKey();
    await connect(key);
    const endpoint = await call(key, 'POST', '/webhooks/endpoints', {
      url: 'https://hooks.example.com/erasure',
      events: ['org.erasure.sync.completed'],
    });
    expect(endpoint.status).toBe(201);
    const result = await t.graphql(
      'mutation { syncErasureReports(limit: 2) { synced skipped errors has_more continuation sync_run_id details { uuid status brand model } } }',
      {},
      key,
    );
    expect(result.body.data.syncErasureReports).toMatchObject({ synced: 2, has_more: true });
    const deliveries = await t.app.services.db.prisma.webhookDelivery.findMany({ where: { org_id: org.id } });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.payload).toMatchObject({
      type: 'org.erasure.sync.completed',
      data: { sync_run_id: result.body.data.syncErasureReports.sync_run_id, synced: 2, has_more: true },
    });
  });

  it('a test key syncs into its sandbox, never the organisation', async () => {
    const { org } = await businessKey();
    const test = await t.createKey(org.id, { environment: 'test' });
    await connect(test.key);
    expect((await sync(test.key, { limit: 1 })).body).toMatchObject({ synced: 1 });
    const prisma = t.app.services.db.prisma;
    expect(await prisma.erasureConnection.count({ where: { org_id: org.id } })).toBe(0);
    expect(await prisma.erasureReport.count({ where: { org_id: org.id } })).toBe(0);
  });
});

describe('lcf blancco', () => {
  it('connects and syncs batch after batch, following continuations to the end', async () => {
    const { org, key } = await businessKey();
    const target = { baseUrl: await t.listen(), key };
    const connection = await connectBlancco(target, { baseUrl: fake.url, apiKey: fake.apiKey, country: 'BE' });
    expect(connection).toMatchObject({ base_url: fake.url, default_country: 'BE' });
    const batches: number[] = [];
    const totals = await syncBlancco(target, { limit: 3 }, (so) => batches.push(so.synced));
    expect(totals).toMatchObject({ synced: 6, skipped: 0, errors: 1, batches: 3 });
    expect(batches).toEqual([3, 5, 6]);
    expect(totals.errors_detail).toEqual([expect.objectContaining({ uuid: uuidOf(corruptReport), error: expect.any(String) })]);
    // The country came from the connection's default.
    const assets = await t.app.services.db.prisma.asset.findMany({ where: { org_id: org.id }, select: { country: true } });
    expect(new Set(assets.map((a) => a.country))).toEqual(new Set(['BE']));
    await expect(syncBlancco({ ...target, key: `svc_live_${'x'.repeat(32)}` }, {})).rejects.toThrow(/^401 INVALID_API_KEY/);
  });
});
