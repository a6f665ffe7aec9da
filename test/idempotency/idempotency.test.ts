import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { startFakeBlancco, type FakeBlancco } from '../support/fake-blancco.ts';
import { laptopReport, desktopReport } from '../erasure/fixtures.ts';
import { storedCalculation } from '../certificates/support.ts';
import { REPORT_OPENAPI } from '../../src/reports/routes.ts';

// Idempotency-Key on every POST that creates or spends (docs/api.md, "Retries and Idempotency-Key"):
// a repeat replays the first answer without doing the work or spending quota, another request under
// the key is 422, parallel repeats do the work once, keys expire after 24 hours and are per API key.

let t: TestApp;
let blancco: FakeBlancco;

const IDEMPOTENT_OPERATIONS = [
  'POST /v1/assets',
  'POST /v1/assets/csv',
  'POST /v1/blancco/sync',
  'POST /v1/certificate',
  'POST /v1/certificate/revoke',
  'POST /v1/footprint/batch',
  'POST /v1/inventory/instruments',
  'POST /v1/org/export/jobs',
  'POST /v1/report',
  'POST /v1/webhooks/endpoints',
  'POST /v1/webhooks/endpoints/{id}/rotate-secret',
];

interface Answer {
  status: number;
  headers: Headers;
  bytes: Buffer;
  body: any;
}

async function post(key: string | null, path: string, body: unknown, idempotencyKey?: string): Promise<Answer> {
  const response = await t.request(`/v1${path}`, {
    method: path === '/blancco/connection' ? 'PUT' : 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const json = response.headers.get('content-type')?.includes('json');
  return {
    status: response.status,
    headers: response.headers,
    bytes,
    body: json && bytes.length ? JSON.parse(bytes.toString('utf8')) : undefined,
  };
}

async function newKey(plan = 'enterprise', options: Parameters<TestApp['createKey']>[1] = {}) {
  const org = await t.createOrg(plan, `Idempotency ${plan} ${randomUUID().slice(0, 8)}`);
  const { key, id } = await t.createKey(org.id, options);
  return { orgId: org.id, key, keyId: id };
}

const db = () => t.app.services.db.prisma;
const remaining = (a: Answer) => Number(a.headers.get('x-ratelimit-remaining'));
const webhook = () => ({ url: `http://127.0.0.1:9/hook/${randomUUID()}` });

beforeAll(async () => {
  t = await createTestApp({ ERASURE_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', BLANCCO_TIMEOUT_MS: '300' });
  blancco = await startFakeBlancco({ reports: [laptopReport, desktopReport], pageSize: 10 });
}, 120_000);
afterAll(async () => {
  await blancco?.close();
  await t?.close();
});

describe(`Idempotency-Key on ${TEST_DATABASE_KIND}`, () => {
  /** Each creating route: a fresh organisation, what to send, and how much work it has done so far. */
  const routes: {
    name: string;
    plan?: string;
    setup?: (key: string, orgId: string) => Promise<unknown>;
    path: (ctx: any) => string;
    body: (ctx: any) => unknown;
    work: (orgId: string, ctx: any) => Promise<number>;
  }[] = [
    {
      name: 'POST /v1/assets',
      path: () => '/assets',
      body: () => ({ assets: [{ brand: 'HP', model: 'ProBook 450', serial_number: 'I-1', country: 'DE' }] }),
      work: (orgId) => db().asset.count({ where: { org_id: orgId } }),
    },
    {
      name: 'POST /v1/assets/csv',
      path: () => '/assets/csv',
      body: () => ({ csv: 'brand,model,serial_number,country\nHP,ProBook 450,C-1,DE\nDell,Latitude 5440,C-2,NL\n' }),
      work: (orgId) => db().asset.count({ where: { org_id: orgId } }),
    },
    {
      name: 'POST /v1/footprint/batch',
      path: () => '/footprint/batch',
      body: () => ({ products: [{ brand: 'Dell', model: 'Latitude 5440', country: 'DE' }] }),
      work: (orgId) => db().calculation.count({ where: { org_id: orgId } }),
    },
    {
      name: 'POST /v1/certificate',
      setup: async (key) => ({ calculationId: await storedCalculation(t, key) }),
      path: () => '/certificate',
      body: (ctx) => ({ calculation_id: ctx.calculationId }),
      work: (orgId) => db().certificate.count({ where: { org_id: orgId } }),
    },
    {
      name: 'POST /v1/certificate/revoke',
      setup: async (key) => ({ certificate: (await post(key, '/certificate', { calculation_id: await storedCalculation(t, key) })).body }),
      path: () => '/certificate/revoke',
      body: (ctx) => ({ id: ctx.certificate.id }),
      work: (orgId) => db().auditLog.count({ where: { org_id: orgId, event: { contains: 'revoked' } } }),
    },
    {
      name: 'POST /v1/inventory/instruments',
      path: () => '/inventory/instruments',
      body: () => ({
        kind: 'energy_attribute_certificate',
        country: 'DE',
        valid_from: '2025-01-01',
        valid_to: '2025-12-31',
        coverage_share: 0.5,
      }),
      work: (orgId) => db().contractualInstrument.count({ where: { org_id: orgId } }),
    },
    {
      name: 'POST /v1/webhooks/endpoints',
      setup: async () => ({ endpoint: webhook() }),
      path: () => '/webhooks/endpoints',
      body: (ctx) => ctx.endpoint,
      work: (orgId) => db().webhookEndpoint.count({ where: { org_id: orgId } }),
    },
    {
      name: 'POST /v1/webhooks/endpoints/:id/rotate-secret',
      setup: async (key) => ({ endpoint: (await post(key, '/webhooks/endpoints', webhook())).body }),
      path: (ctx) => `/webhooks/endpoints/${ctx.endpoint.id}/rotate-secret`,
      body: () => ({}),
      work: (orgId) => db().auditLog.count({ where: { org_id: orgId, event: { contains: 'rotated' } } }),
    },
    {
      name: 'POST /v1/report',
      path: () => '/report',
      body: () => ({ type: 'sustainability_summary' }),
      work: (orgId) => db().report.count({ where: { org_id: orgId } }),
    },
    {
      name: 'POST /v1/blancco/sync',
      setup: (key) => post(key, '/blancco/connection', { base_url: blancco.url, api_key: blancco.apiKey }),
      path: () => '/blancco/sync',
      body: () => ({}),
      work: async () => blancco.requests.length,
    },
    {
      name: 'POST /v1/org/export/jobs',
      path: () => '/org/export/jobs',
      body: () => ({}),
      work: (orgId) => db().exportJob.count({ where: { org_id: orgId } }),
    },
  ];

  it.each(routes)('$name: a repeat replays the first answer, marked, without the work or the quota; another body is 422', async (route) => {
    const { key, orgId } = await newKey();
    const ctx = await route.setup?.(key, orgId);
    const idem = `retry-${randomUUID()}`;
    const before = await route.work(orgId, ctx);
    const first = await post(key, route.path(ctx), route.body(ctx), idem);
    expect(first.status, first.bytes.toString()).toBeLessThan(300);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const done = await route.work(orgId, ctx);
    expect(done).toBeGreaterThan(before);

    const repeat = await post(key, route.path(ctx), route.body(ctx), idem);
    expect(repeat.status).toBe(first.status);
    expect(repeat.bytes.equals(first.bytes)).toBe(true);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(repeat.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    for (const name of ['content-disposition', 'x-report-remaining', 'location', 'cache-control'])
      expect(repeat.headers.get(name), name).toBe(first.headers.get(name));
    expect(await route.work(orgId, ctx)).toBe(done);
    // The replay spent no request: the budget is where the first answer left it.
    expect(remaining(repeat)).toBe(remaining(first));

    // The same key for another request: 422, and nothing done.
    const other = await post(key, route.path(ctx), JSON.stringify(route.body(ctx)).replace(/}$/, ' }'), idem);
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(other.body.details).toContain('Idempotency-Key');
    expect(await route.work(orgId, ctx)).toBe(done);
  });

  it('without the header every request does the work; the same key on another path is 422', async () => {
    const { key, orgId } = await newKey();
    expect((await post(key, '/webhooks/endpoints', webhook())).status).toBe(201);
    const body = webhook();
    expect((await post(key, '/webhooks/endpoints', body)).status).toBe(201);
    expect((await post(key, '/webhooks/endpoints', body)).status).toBe(201);
    expect(await db().webhookEndpoint.count({ where: { org_id: orgId } })).toBe(3);
    const idem = randomUUID();
    expect(
      (await post(key, '/assets', { assets: [{ brand: 'HP', model: 'ProBook 450', serial_number: 'P-1', country: 'DE' }] }, idem)).status,
    ).toBe(200);
    const elsewhere = await post(key, '/footprint/batch', { products: [{ brand: 'Dell', model: 'Latitude 5440', country: 'DE' }] }, idem);
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('a key with a control character, an empty or an over-long key is 400 naming Idempotency-Key, before any work', async () => {
    const { key, orgId } = await newKey();
    for (const bad of ['abc\u0001def', ' ', 'k'.repeat(256)]) {
      const answer = await post(key, '/webhooks/endpoints', webhook(), bad);
      expect(answer.status, JSON.stringify(bad)).toBe(400);
      expect(answer.body.code).toBe('INVALID_PARAMETER');
      expect(answer.body.details).toMatch(/^Idempotency-Key/);
    }
    expect(await db().webhookEndpoint.count({ where: { org_id: orgId } })).toBe(0);
    expect((await post(key, '/webhooks/endpoints', webhook(), 'k'.repeat(255))).status).toBe(201);
  });

  it('8 parallel requests with one key: the work is done once, every one answers the same', async () => {
    const { key, orgId } = await newKey();
    const body = webhook();
    const idem = randomUUID();
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(key, '/webhooks/endpoints', body, idem)));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((a) => a.bytes.toString())).size).toBe(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(7);
    expect(await db().webhookEndpoint.count({ where: { org_id: orgId } })).toBe(1);
  });

  it('a repeat while the first request still runs waits, then answers 409 IDEMPOTENCY_KEY_IN_USE with Retry-After', async () => {
    const { key, orgId } = await newKey();
    const body = webhook();
    const idem = randomUUID();
    // The first request's reservation, as a request in flight leaves it: reserved, no answer yet, its lease running.
    const first = await post(key, '/webhooks/endpoints', body, idem);
    await db().$executeRawUnsafe(
      `UPDATE idempotency_records SET status = NULL, headers = NULL, body = NULL, locked_until = now() + interval '1 minute' WHERE key = $1`,
      idem,
    );
    const started = Date.now();
    const busy = await post(key, '/webhooks/endpoints', body, idem);
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
    // A first request whose process died: once its lease ends, a repeat takes the key over and does the work.
    await db().$executeRawUnsafe(`UPDATE idempotency_records SET locked_until = now() - interval '1 second' WHERE key = $1`, idem);
    const takeover = await post(key, '/webhooks/endpoints', body, idem);
    expect(takeover.status).toBe(201);
    expect(takeover.headers.get('idempotent-replayed')).toBeNull();
    expect(takeover.body.id).not.toBe(first.body.id);
    expect(await db().webhookEndpoint.count({ where: { org_id: orgId } })).toBe(2);
  }, 30_000);

  it('a key expires 24 hours after its first use: the repeat then does the work again', async () => {
    const { key, orgId } = await newKey();
    const body = webhook();
    const idem = randomUUID();
    const first = await post(key, '/webhooks/endpoints', body, idem);
    await db().$executeRawUnsafe(`UPDATE idempotency_records SET expires_at = now() - interval '1 second' WHERE key = $1`, idem);
    const later = await post(key, '/webhooks/endpoints', body, idem);
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);
    expect(await db().webhookEndpoint.count({ where: { org_id: orgId } })).toBe(2);
    const [row] = await db().$queryRawUnsafe<{ hours: number }[]>(
      `SELECT extract(epoch FROM expires_at - created_at)::int / 3600 AS hours FROM idempotency_records WHERE key = $1`,
      idem,
    );
    expect(Number(row!.hours)).toBe(24);
  });

  it('keys are per API key: another organisation, another key and a test key of the same organisation each do their own work', async () => {
    const a = await newKey();
    const b = await newKey();
    const idem = 'shared-key-1';
    const body = webhook();
    const answers = [
      await post(a.key, '/webhooks/endpoints', body, idem),
      await post(b.key, '/webhooks/endpoints', body, idem),
      await post((await t.createKey(a.orgId)).key, '/webhooks/endpoints', body, idem),
      await post((await t.createKey(a.orgId, { environment: 'test' })).key, '/webhooks/endpoints', body, idem),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(201);
      expect(answer.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(new Set(answers.map((x) => x.body.id)).size).toBe(4);
  });

  it('a final 4xx is replayed; a 5xx, 409 or 429 is not kept, so a retry with the key can succeed', async () => {
    const { key } = await newKey();
    const idem = randomUUID();
    const body = { calculation_id: randomUUID() };
    const missing = await post(key, '/certificate', body, idem);
    expect(missing.status).toBe(404);
    const replayed = await post(key, '/certificate', body, idem);
    expect(replayed.status).toBe(404);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.bytes.equals(missing.bytes)).toBe(true);

    const business = await newKey('business');
    expect((await post(business.key, '/blancco/connection', { base_url: blancco.url, api_key: blancco.apiKey })).status).toBe(200);
    // Every attempt of the console client (two retries) fails: 502, not kept.
    blancco.failNext(500, 3);
    const syncKey = randomUUID();
    const failed = await post(business.key, '/blancco/sync', {}, syncKey);
    expect(failed.status).toBe(502);
    const retried = await post(business.key, '/blancco/sync', {}, syncKey);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect((await post(business.key, '/blancco/sync', {}, syncKey)).headers.get('idempotent-replayed')).toBe('true');
  });

  it('callers without an API key: the header is checked, and the request runs as without it', async () => {
    const body = { products: [{ brand: 'Dell', model: 'Latitude 5440', country: 'DE' }] };
    const first = await post(null, '/footprint/batch', body, 'anon-1');
    const second = await post(null, '/footprint/batch', body, 'anon-1');
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect((await post(null, '/footprint/batch', body, 'bad\u0001')).status).toBe(400);
  });

  it('the OpenAPI document declares Idempotency-Key, 409 and 422 on exactly the idempotent operations', async () => {
    const doc = await t.json('/v1/openapi.json');
    const declared: string[] = [];
    for (const [path, operations] of Object.entries<any>(doc.body.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        const parameter = operation.parameters?.find((p: any) => p.name === 'Idempotency-Key');
        if (!parameter) continue;
        declared.push(`${method.toUpperCase()} ${path}`);
        expect(parameter).toMatchObject({ in: 'header', required: false, schema: { type: 'string', maxLength: 255 } });
        expect(operation.responses['409'].description).toContain('IDEMPOTENCY_KEY_IN_USE');
        expect(operation.responses['422'].description).toContain('IDEMPOTENCY_KEY_REUSED');
        expect(operation.responses['422'].content['application/json'].schema.$ref).toBe('#/components/schemas/ApiError');
        const success = Object.entries<any>(operation.responses).find(([status]) => status.startsWith('2'))![1];
        expect(success.headers['Idempotent-Replayed']).toBeDefined();
      }
    }
    expect(declared.sort()).toEqual(IDEMPOTENT_OPERATIONS);
    // Added to what a route declares itself, never instead of it.
    const create = doc.body.paths['/v1/webhooks/endpoints'].post;
    expect(create.responses['409'].description).toMatch(/WEBHOOK_ENDPOINT_LIMIT.*IDEMPOTENCY_KEY_IN_USE/);
    expect(create.responses['409'].headers['Retry-After']).toBeDefined();
    expect(doc.body.paths['/v1/certificate'].post.responses['422'].description).toMatch(
      /CALCULATION_NOT_CERTIFIABLE.*IDEMPOTENCY_KEY_REUSED/,
    );
    expect(create.responses['400'].description).toContain('Idempotency-Key');
    // Once each, and the hand-written routes' constant documents are left as they are (every app in a process serves them).
    for (const operations of Object.values<any>(doc.body.paths))
      for (const operation of Object.values<any>(operations))
        expect(operation.parameters?.filter((p: any) => p.name === 'Idempotency-Key').length ?? 0).toBeLessThanOrEqual(1);
    expect(JSON.stringify(REPORT_OPENAPI)).not.toContain('Idempotency-Key');
  });
});
