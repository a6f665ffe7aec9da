import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { sandboxOrgId } from '../../src/sandbox/sandbox.ts';
import { enqueueWebhookEvent, WEBHOOK_EVENTS } from '../../src/webhooks/events.ts';
import { auth, registerEndpoint } from './support.ts';

// The endpoints API on an app WITHOUT WEBHOOK_ALLOW_PRIVATE_URLS: internal addresses are refused.
// Public IP literals are used for accepted URLs, so nothing here needs DNS; nothing is delivered.
let t: TestApp;
let orgA: { id: string };
let keyA: string;
let keyB: string;
let testKeyA: string;

const prisma = () => t.app.services.db.prisma;
const list = (key: string) => t.json('/v1/webhooks/endpoints', { headers: auth(key) });
const remove = (key: string, id: string) => t.json(`/v1/webhooks/endpoints/${id}`, { method: 'DELETE', headers: auth(key) });
const deliveries = (key: string, query = '') => t.json(`/v1/webhooks/deliveries${query}`, { headers: auth(key) });
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ENDPOINT_KEYS = ['active', 'created_at', 'deleted_at', 'description', 'events', 'id', 'url'];

beforeAll(async () => {
  t = await createTestApp();
  orgA = await t.createOrg('pro', 'Webhook Org A');
  keyA = (await t.createKey(orgA.id)).key;
  testKeyA = (await t.createKey(orgA.id, { environment: 'test' })).key;
  keyB = (await t.createKey((await t.createOrg('pro', 'Webhook Org B')).id)).key;
});
afterAll(() => t.close());

describe(`webhook endpoints on ${TEST_DATABASE_KIND}`, () => {
  it('registers an endpoint: 201, all events by default, the secret shown once and never listed', async () => {
    const res = await registerEndpoint(t, keyA, { url: 'http://8.8.8.8/hooks/lcf?source=carbon', description: 'Finance ERP' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...ENDPOINT_KEYS, 'secret'].sort());
    expect(res.body).toMatchObject({
      url: 'http://8.8.8.8/hooks/lcf?source=carbon',
      events: ['org.export.job.completed', 'org.export.job.failed', 'org.erasure.sync.completed'],
      description: 'Finance ERP',
      active: true,
      deleted_at: null,
    });
    expect(res.body.secret).toMatch(SECRET);
    expect(Buffer.from(res.body.secret.slice(6), 'base64')).toHaveLength(32);
    expect(() => new Webhook(res.body.secret)).not.toThrow();

    const stored = await prisma().webhookEndpoint.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(stored).toMatchObject({ org_id: orgA.id, secret: res.body.secret });
    const audit = await prisma().auditLog.findMany({ where: { subject_id: res.body.id } });
    expect(audit).toEqual([
      expect.objectContaining({ event: 'webhook.endpoint.created', org_id: orgA.id, data: { url: res.body.url, events: res.body.events } }),
    ]);

    const listed = await list(keyA);
    expect(listed.status).toBe(200);
    const mine = listed.body.find((e: { id: string }) => e.id === res.body.id);
    expect(Object.keys(mine).sort()).toEqual(ENDPOINT_KEYS);
    const { secret: _secret, ...withoutSecret } = res.body;
    expect(mine).toEqual(withoutSecret);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
  });

  it('rotates the secret: a new one, shown in that answer only', async () => {
    const created = (await registerEndpoint(t, keyA, { url: 'https://8.8.4.4/rotate' })).body;
    const rotated = await t.json(`/v1/webhooks/endpoints/${created.id}/rotate-secret`, { method: 'POST', headers: auth(keyA) });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(SECRET);
    expect(rotated.body.secret).not.toBe(created.secret);
    expect((await prisma().webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } })).secret).toBe(rotated.body.secret);
    expect(await prisma().auditLog.count({ where: { subject_id: created.id, event: 'webhook.endpoint.secret_rotated' } })).toBe(1);
  });

  it('works over GraphQL for plans with ad-hoc queries; the listed type has no secret field', async () => {
    const org = await t.createOrg('business', 'GraphQL Org');
    const key = (await t.createKey(org.id)).key;
    const created = await t.graphql(
      'mutation ($url: String!) { createWebhookEndpoint(url: $url, events: ["org.export.job.failed"]) { id url events active secret } }',
      { url: 'https://1.1.1.1/graphql-hook' },
      key,
    );
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createWebhookEndpoint).toMatchObject({
      url: 'https://1.1.1.1/graphql-hook',
      events: ['org.export.job.failed'],
      active: true,
    });
    expect(created.body.data.createWebhookEndpoint.secret).toMatch(SECRET);

    const listed = await t.graphql('{ webhookEndpoints { id events } }', {}, key);
    expect(listed.body.data.webhookEndpoints).toEqual([
      { id: created.body.data.createWebhookEndpoint.id, events: ['org.export.job.failed'] },
    ]);
    const secretAsked = await t.graphql('{ webhookEndpoints { id secret } }', {}, key);
    expect(secretAsked.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(secretAsked.body.errors[0].message).toMatch(/Cannot query field "secret" on type "WebhookEndpoint"/);
  });

  it('deletes an endpoint: soft, unlisted, waiting attempts closed, nothing queued any more, a second delete is 404', async () => {
    const created = (await registerEndpoint(t, keyA, { url: 'http://8.8.8.8/to-delete' })).body;
    expect(await enqueueWebhookEvent(prisma(), orgA.id, 'org.export.job.failed', { job_id: randomUUID() })).toBeGreaterThanOrEqual(1);
    const res = await remove(keyA, created.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, active: false, deleted_at: expect.any(String) });
    expect(res.body.secret).toBeUndefined();
    expect((await list(keyA)).body.map((e: { id: string }) => e.id)).not.toContain(created.id);
    expect(await prisma().webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } })).toMatchObject({
      active: false,
      deleted_at: expect.any(Date),
    });
    expect(await prisma().webhookDelivery.findMany({ where: { endpoint_id: created.id }, select: { status: true, error: true } })).toEqual([
      { status: 'failed', error: 'endpoint deleted' },
    ]);

    await enqueueWebhookEvent(prisma(), orgA.id, 'org.export.job.failed', { job_id: randomUUID() });
    expect(await prisma().webhookDelivery.count({ where: { endpoint_id: created.id } })).toBe(1);
    const again = await remove(keyA, created.id);
    expect(again.status).toBe(404);
    expect(await prisma().auditLog.count({ where: { subject_id: created.id, event: 'webhook.endpoint.deleted' } })).toBe(1);
  });

  it("answers another organisation's endpoint id exactly like an unknown one (404), and a malformed id with 400", async () => {
    const foreign = (await registerEndpoint(t, keyB, { url: 'http://8.8.8.8/org-b' })).body;
    const unknown = randomUUID();
    const foreignDelete = await remove(keyA, foreign.id);
    const unknownDelete = await remove(keyA, unknown);
    expect(foreignDelete.status).toBe(404);
    expect(foreignDelete.body).toEqual({ ...unknownDelete.body, details: unknownDelete.body.details.replace(unknown, foreign.id) });
    expect(foreignDelete.body).toEqual({
      error: 'Webhook endpoint not found',
      code: 'NOT_FOUND',
      details: `id: no webhook endpoint ${foreign.id} in this organisation`,
    });
    const rotate = await t.json(`/v1/webhooks/endpoints/${foreign.id}/rotate-secret`, { method: 'POST', headers: auth(keyA) });
    expect(rotate.status).toBe(404);
    expect((await prisma().webhookEndpoint.findUniqueOrThrow({ where: { id: foreign.id } })).active).toBe(true);
    expect((await list(keyA)).body.map((e: { id: string }) => e.id)).not.toContain(foreign.id);

    const malformed = await remove(keyA, 'not-a-uuid');
    expect(malformed.status).toBe(400);
    expect(malformed.body.details).toMatch(/^id: must be a UUID/);
  });

  it('keeps test keys in their sandbox: endpoints and events of the real organisation and the sandbox never mix', async () => {
    const sandboxEndpoint = await registerEndpoint(t, testKeyA, { url: 'http://8.8.8.8/sandbox' });
    expect(sandboxEndpoint.status).toBe(201);
    expect((await prisma().webhookEndpoint.findUniqueOrThrow({ where: { id: sandboxEndpoint.body.id } })).org_id).toBe(
      sandboxOrgId(orgA.id),
    );
    expect((await list(keyA)).body.map((e: { id: string }) => e.id)).not.toContain(sandboxEndpoint.body.id);
    const sandboxList = (await list(testKeyA)).body;
    expect(sandboxList.map((e: { id: string }) => e.id)).toEqual([sandboxEndpoint.body.id]);

    // An event of the real organisation is not queued for the sandbox's endpoint, and the other way round.
    await enqueueWebhookEvent(prisma(), orgA.id, 'org.export.job.completed', { job_id: randomUUID() });
    expect(await prisma().webhookDelivery.count({ where: { endpoint_id: sandboxEndpoint.body.id } })).toBe(0);
    expect(await enqueueWebhookEvent(prisma(), sandboxOrgId(orgA.id), 'org.export.job.completed', { job_id: randomUUID() })).toBe(1);
    expect((await deliveries(keyA, `?endpoint_id=${sandboxEndpoint.body.id}`)).body.total).toBe(0);
    expect((await deliveries(testKeyA)).body.total).toBe(1);
    expect((await remove(keyA, sandboxEndpoint.body.id)).status).toBe(404);
  });

  it('needs a key with organisation context; the read-only demo sandbox cannot register', async () => {
    const anonymous = await t.json('/v1/webhooks/endpoints', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://8.8.8.8/' }),
    });
    expect(anonymous.status).toBe(401);
    const noContext = (await t.createKey(orgA.id, { org_context: false })).key;
    expect((await list(noContext)).body).toMatchObject({ code: 'NO_ORGANIZATION_CONTEXT' });
    const demo = (await t.createKey(orgA.id, { environment: 'test', org_context: false })).key;
    const refused = await registerEndpoint(t, demo, { url: 'http://8.8.8.8/demo' });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('SANDBOX_READ_ONLY');
    expect((await list(demo)).body).toEqual([]);
  });

  it('refuses unknown event names naming events[i], and an empty list', async () => {
    const unknown = await registerEndpoint(t, keyA, {
      url: 'http://8.8.8.8/x',
      events: ['org.export.job.failed', 'org.export.job.exploded'],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      error: "Invalid parameter 'events[1]'",
      code: 'INVALID_PARAMETER',
      details: `events[1]: unknown event 'org.export.job.exploded'; known events: ${WEBHOOK_EVENTS.join(', ')}`,
    });
    const empty = await registerEndpoint(t, keyA, { url: 'http://8.8.8.8/x', events: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.details).toMatch(/^events: must name at least one event/);
  });

  it.each([
    ['ftp://8.8.8.8/hook', "url: scheme must be http or https, got 'ftp:'"],
    ['javascript:alert(1)', "url: scheme must be http or https, got 'javascript:'"],
    ['file:///etc/passwd', "url: scheme must be http or https, got 'file:'"],
    ['8.8.8.8/hook', 'url: must be an absolute http or https URL'],
    ['http://user:secret@8.8.8.8/hook', 'url: must not contain a user name or password'],
    ['http://8.8.8.8/hook#part', 'url: must not contain a fragment (#…)'],
  ])('refuses %s with 400 INVALID_PARAMETER', async (url, details) => {
    const res = await registerEndpoint(t, keyA, { url });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "Invalid parameter 'url'", code: 'INVALID_PARAMETER', details });
  });

  it('refuses a URL over 2048 characters and a description over 500', async () => {
    const long = await registerEndpoint(t, keyA, { url: `http://8.8.8.8/${'a'.repeat(2040)}` });
    expect(long.status).toBe(400);
    expect(long.body.details).toBe('url: must be at most 2048 characters, got 2055');
    const description = await registerEndpoint(t, keyA, { url: 'http://8.8.8.8/', description: 'd'.repeat(501) });
    expect(description.body.details).toBe('description: must be at most 500 characters, got 501');
  });

  it.each([
    ['http://127.0.0.1:8080/hook', 'loopback'],
    ['http://localhost/hook', 'loopback'],
    ['http://2130706433/hook', 'loopback'],
    ['http://10.0.0.1/hook', 'private'],
    ['http://192.168.1.20/hook', 'private'],
    ['http://100.64.0.1/hook', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['http://[::1]/hook', 'loopback'],
    ['http://[fc00::1]/hook', 'private'],
    ['http://[fe80::1]/hook', 'link-local'],
    ['http://[::ffff:127.0.0.1]/hook', 'loopback'],
    ['http://[::ffff:10.1.2.3]/hook', 'private'],
    ['http://0.0.0.0/hook', 'non-public address (unspecified)'],
    ['http://224.0.0.1/hook', 'non-public address (multicast)'],
    ['http://255.255.255.255/hook', 'non-public address (broadcast)'],
  ])('refuses %s (SSRF): 400 WEBHOOK_URL_NOT_ALLOWED, %s', async (url, kind) => {
    const before = await prisma().webhookEndpoint.count();
    const res = await registerEndpoint(t, keyA, { url });
    expect(res.status).toBe(400);
    const reason = kind.startsWith('non-public') ? kind : `${kind} address`;
    expect(res.body).toEqual({
      error: "Invalid parameter 'url'",
      code: 'WEBHOOK_URL_NOT_ALLOWED',
      details: `url: resolves to a ${reason} (webhook URLs must resolve to public addresses)`,
    });
    // The resolved address is not echoed (localhost's 127.0.0.1 stays unsaid).
    expect(res.body.details).not.toMatch(/127\.0\.0\.1|::1/);
    expect(await prisma().webhookEndpoint.count()).toBe(before);
  });

  it(`holds an organisation to 10 active endpoints, also under concurrent registrations`, async () => {
    const org = await t.createOrg('free', 'Busy Org');
    const key = (await t.createKey(org.id)).key;
    const answers = await Promise.all(Array.from({ length: 13 }, (_, i) => registerEndpoint(t, key, { url: `http://8.8.8.8/busy/${i}` })));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(10).fill(201), 409, 409, 409]);
    expect(answers.find((a) => a.status === 409)!.body).toEqual({
      error: 'Too many webhook endpoints',
      code: 'WEBHOOK_ENDPOINT_LIMIT',
      details: 'An organisation may have at most 10 active webhook endpoints; delete one first',
    });
    expect(await prisma().webhookEndpoint.count({ where: { org_id: org.id } })).toBe(10);
    expect((await remove(key, answers.find((a) => a.status === 201)!.body.id)).status).toBe(200);
    expect((await registerEndpoint(t, key, { url: 'http://8.8.8.8/busy/again' })).status).toBe(201);
  });

  it('lists every attempt, most recent first, with total, filters and bounded pages', async () => {
    const org = await t.createOrg('pro', 'Log Org');
    const key = (await t.createKey(org.id)).key;
    const failedOnly = (await registerEndpoint(t, key, { url: 'http://8.8.8.8/log/failed', events: ['org.export.job.failed'] })).body;
    const all = (await registerEndpoint(t, key, { url: 'http://8.8.8.8/log/all' })).body;
    // Through an interactive transaction, as the export worker queues its events (outbox).
    const queued = await prisma().$transaction(async (tx) => [
      await enqueueWebhookEvent(tx, org.id, 'org.export.job.completed', {
        job_id: 'j1',
        bytes: 123n,
        completed_at: new Date('2026-01-02T03:04:05Z'),
      }),
      await enqueueWebhookEvent(tx, org.id, 'org.export.job.failed', { job_id: 'j2' }),
    ]);
    expect(queued).toEqual([1, 2]);
    const completed = await prisma().webhookDelivery.findFirstOrThrow({
      where: { endpoint_id: all.id, event: 'org.export.job.completed' },
    });
    expect(completed.payload).toEqual({
      type: 'org.export.job.completed',
      timestamp: expect.any(String),
      data: { job_id: 'j1', bytes: 123, completed_at: '2026-01-02T03:04:05.000Z' },
    });
    expect(completed.message_id).toMatch(/^msg_[0-9a-f-]{36}$/);
    // A finished attempt, as the dispatcher leaves it.
    await prisma().webhookDelivery.update({
      where: { id: completed.id },
      data: {
        status: 'succeeded',
        response_status: 204,
        duration_ms: 12,
        delivered_at: new Date(),
        created_at: new Date(Date.now() - 60_000),
      },
    });

    const page = await deliveries(key, '?limit=2');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(page.body.deliveries).toHaveLength(2);
    const first = page.body.deliveries[0];
    expect(Object.keys(first).sort()).toEqual(
      [
        'attempt',
        'created_at',
        'delivered_at',
        'duration_ms',
        'endpoint_id',
        'error',
        'event',
        'id',
        'message_id',
        'next_attempt_at',
        'response_status',
        'status',
      ].sort(),
    );
    expect(first).toMatchObject({
      event: 'org.export.job.failed',
      attempt: 1,
      status: 'pending',
      response_status: null,
      delivered_at: null,
      next_attempt_at: expect.any(String),
    });
    const rest = await deliveries(key, '?limit=2&offset=2');
    expect(rest.body.deliveries).toEqual([
      expect.objectContaining({
        id: completed.id,
        status: 'succeeded',
        response_status: 204,
        duration_ms: 12,
        next_attempt_at: null,
        delivered_at: expect.any(String),
      }),
    ]);
    expect((await deliveries(key, `?endpoint_id=${failedOnly.id}`)).body.total).toBe(1);
    expect((await deliveries(key, '?event=org.export.job.completed')).body.deliveries.map((d: { id: string }) => d.id)).toEqual([
      completed.id,
    ]);
    expect((await deliveries(keyB)).body.deliveries.map((d: { endpoint_id: string }) => d.endpoint_id)).not.toContain(all.id);

    for (const [query, details] of [
      ['?limit=0', 'limit: must be between 1 and 100, got 0'],
      ['?limit=101', 'limit: must be between 1 and 100, got 101'],
      ['?offset=-1', 'offset: must be 0 or more, got -1'],
      ['?event=org.export.job.exploded', `event: unknown event 'org.export.job.exploded'; known events: ${WEBHOOK_EVENTS.join(', ')}`],
      ['?endpoint_id=42', "endpoint_id: must be a UUID, got '42'"],
    ]) {
      const res = await deliveries(key, query);
      expect(res.status, query).toBe(400);
      expect(res.body.details).toBe(details);
    }
  });
});
