import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_ADMIN_TOKEN, UNLIMITED, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import type { CalculationRecord } from '../../src/footprint/calculation-writer.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (`name{label="value",...} number` lines). */
function parseExposition(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [, name, labels = '', value] = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)!;
      return {
        name: name!,
        labels: Object.fromEntries([...labels.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!])),
        value: Number(value),
      };
    });
}

// Free callers (anonymous, per IP) get 2 requests a day, to reach a 429 quickly; everyone else is unlimited.
let t: TestApp;
let auth: { authorization: string };
let orgId: string;
beforeAll(async () => {
  t = await createTestApp({ QUOTA_LIMITS: `${UNLIMITED},day.free=2` });
  const org = await t.createOrg('enterprise');
  orgId = org.id;
  auth = { authorization: `Bearer ${(await t.createKey(org.id)).key}` };
});
afterAll(() => t.close());

async function scrape(): Promise<{ text: string; value: (name: string, labels?: Record<string, string>) => number | undefined }> {
  const response = await t.request('/metrics', { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  const text = await response.text();
  const samples = parseExposition(text);
  const value = (name: string, labels: Record<string, string> = {}) =>
    samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
  return { text, value };
}

describe('GET /metrics', () => {
  it('answers 401 INVALID_ADMIN_TOKEN without the admin token or with another', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-the-admin-token-0123456789' }, auth]) {
      const response = await t.json('/metrics', { headers });
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('INVALID_ADMIN_TOKEN');
    }
  });

  it('counts requests by method, route pattern and status, never by raw path', async () => {
    const org = await t.createOrg('pro');
    for (let i = 0; i < 3; i++) expect((await t.request('/healthz')).status).toBe(200);
    expect((await t.json(`/admin/v1/orgs/${org.id}`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).status).toBe(200);
    const missingJob = randomUUID();
    expect((await t.json(`/v1/org/export/jobs/${missingJob}`, { headers: auth })).status).toBe(404);
    expect((await t.json(`/no/such/route/${missingJob}`)).status).toBe(404);
    // Over HTTP the second identical footprint is answered by the fast path, outside Yoga: counted all the same.
    const base = await t.listen();
    for (let i = 0; i < 2; i++) {
      expect(
        (await fetch(`${base}/v1/footprint?brand=Dell&model=Latitude%205440&category=laptop&country=DE`, { headers: auth })).status,
      ).toBe(200);
    }

    const { text, value } = await scrape();
    expect(value('lcf_http_requests_total', { method: 'GET', route: '/healthz', status: '200' })).toBe(3);
    expect(value('lcf_http_request_duration_seconds_count', { method: 'GET', route: '/healthz', status: '200' })).toBe(3);
    expect(value('lcf_http_request_duration_seconds_bucket', { route: '/healthz', status: '200', le: '+Inf' })).toBe(3);
    expect(value('lcf_http_requests_total', { method: 'GET', route: '/admin/v1/orgs/:id', status: '200' })).toBe(1);
    expect(value('lcf_http_requests_total', { method: 'GET', route: '/v1/org/export/jobs/:id', status: '404' })).toBe(1);
    expect(value('lcf_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(value('lcf_http_requests_total', { method: 'GET', route: '/v1/footprint', status: '200' })).toBe(2);
    expect(text).not.toContain(org.id);
    expect(text).not.toContain(missingJob);
  });

  it('labels every documented route by its pattern', async () => {
    const paths = Object.keys((await t.json('/v1/openapi.json')).body.paths).map((p) => p.replace(/\{(\w+)\}/g, ':$1'));
    expect(paths.length).toBeGreaterThan(20);
    // GET on each (405 where the route takes another method): only the label matters here.
    for (const path of paths) await t.request(path.replace(/:\w+/g, 'x'), { headers: auth });
    const { value } = await scrape();
    expect(paths.filter((route) => value('lcf_http_requests_total', { route }) === undefined)).toEqual([]);
  });

  it('counts quota refusals by plan and limit', async () => {
    const ip = '198.51.100.14';
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await t.request('/v1/reference/countries', { ip })).status);
    expect(statuses).toEqual([200, 200, 429]);
    const { value } = await scrape();
    expect(value('lcf_quota_refusals_total', { plan: 'free', limit: 'day' })).toBe(1);
    expect(value('lcf_http_requests_total', { route: '/v1/reference/countries', status: '429' })).toBe(1);
  });

  it('reports the calculation writer backlog and the records it could not store', async () => {
    const writer = t.app.services.calculations;
    const record = (org_id: string): CalculationRecord => ({
      org_id,
      api_key_id: null,
      kind: 'footprint',
      engine_version: 'test',
      country: 'DE',
      category: 'laptop',
      product_id: null,
      confidence: 'estimated_low',
      total_kg_co2e: 1,
      production_kg: 1,
      transport_kg: 0,
      use_phase_kg: 0,
      end_of_life_kg: 0,
      inputs: {},
      result: {},
      grid_factor_id: null,
      factors: [],
      created_at: new Date(),
    });
    const failuresBefore = writer.failures;
    // No such organisation: the database refuses the row.
    const stored = [writer.store(record(randomUUID())), writer.store(record(randomUUID()))];
    expect(writer.backlog).toBe(2);
    expect(await Promise.all(stored)).toEqual([null, null]);
    expect(writer.backlog).toBe(0);

    const { value } = await scrape();
    expect(value('lcf_calculation_writer_backlog')).toBe(0);
    expect(value('lcf_calculation_writer_failures_total')).toBe(failuresBefore + 2);
  });

  it('reports job queue depths, the database pool on PostgreSQL, and Node process metrics', async () => {
    const submitted = await t.json('/v1/org/export/jobs', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(submitted.status).toBe(202);
    // A sync caught mid-run (a finished one does not count).
    await t.app.services.db.prisma.erasureSyncRun.createMany({
      data: [
        { org_id: orgId, status: 'running', params: {} },
        { org_id: orgId, status: 'completed', params: {} },
      ],
    });
    const { value } = await scrape();
    // No worker runs in this test app: the job stays pending.
    expect(value('lcf_queue_depth', { queue: 'export_jobs', status: 'pending' })).toBe(1);
    expect(value('lcf_queue_depth', { queue: 'export_jobs', status: 'processing' })).toBe(0);
    expect(value('lcf_queue_depth', { queue: 'webhook_deliveries', status: 'pending' })).toBe(0);
    expect(value('lcf_queue_depth', { queue: 'erasure_sync_runs', status: 'running' })).toBe(1);
    if (TEST_DATABASE_KIND === 'postgres') {
      expect(value('lcf_db_pool_max_connections')).toBe(8);
      expect(value('lcf_db_pool_connections')).toBeGreaterThanOrEqual(1);
      expect(value('lcf_db_pool_waiting_queries')).toBe(0);
    } else {
      expect(value('lcf_db_pool_connections')).toBeUndefined();
    }
    expect(value('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(value('nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
  });
});
