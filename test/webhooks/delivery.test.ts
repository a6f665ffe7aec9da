import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { enqueueWebhookEvent, type WebhookEvent } from '../../src/webhooks/events.ts';
import { USER_AGENT, WebhookDispatcher, type WebhookDispatcherOptions } from '../../src/webhooks/dispatcher.ts';
import { auth, registerEndpoint, sleep, startReceiver, type Behaviour, type Receiver } from './support.ts';

// Delivery to a receiver on 127.0.0.1, which needs WEBHOOK_ALLOW_PRIVATE_URLS; the receiver checks
// every request with standardwebhooks' own verifier, as a customer would.
let t: TestApp;
let receiver: Receiver;
let org: { id: string };
let key: string;

const prisma = () => t.app.services.db.prisma;
const dispatcher = (options: Partial<WebhookDispatcherOptions> = {}, client = prisma()) =>
  new WebhookDispatcher(client, t.app.services.log, { allowPrivateUrls: true, retryDelaysMs: [], timeoutMs: 2_000, ...options });
const attemptsOf = (endpointId: string) =>
  prisma().webhookDelivery.findMany({ where: { endpoint_id: endpointId }, orderBy: { attempt: 'asc' } });

/** Runs the dispatcher until no attempt is pending anywhere (retries included); returns how many attempts it made. */
async function drain(d: WebhookDispatcher, deadlineMs = 10_000): Promise<number> {
  const deadline = Date.now() + deadlineMs;
  let made = 0;
  while (Date.now() < deadline) {
    made += await d.runOnce();
    if ((await prisma().webhookDelivery.count({ where: { status: 'pending' } })) === 0) return made;
    await sleep(10);
  }
  throw new Error('attempts still pending after the deadline');
}

/** Registers an endpoint on the receiver under `path`, answering as `behaviour` says. */
async function endpointAt(path: string, behaviour?: Behaviour, events?: WebhookEvent[]) {
  const res = await registerEndpoint(t, key, { url: `${receiver.base}${path}`, ...(events ? { events } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  receiver.route(path, res.body.secret, behaviour);
  return res.body as { id: string; secret: string; url: string };
}

const completedData = (jobId: string) => ({
  job_id: jobId,
  status: 'completed',
  bytes: 1_234_567n,
  sha256: 'ab'.repeat(32),
  total_rows: 4_321n,
  completed_at: '2026-03-01T10:00:00.000Z',
  expires_at: '2026-03-04T10:00:00.000Z',
  poll_url: `/v1/org/export/jobs/${jobId}`,
  download_url: `/v1/org/export/jobs/${jobId}/download`,
});

/** Queues an event the way the export worker does: through the organisation's scoped client, inside its transaction. */
const emit = (type: WebhookEvent, data: object) =>
  t.app.services.scopes.for(org.id).$transaction((tx) => enqueueWebhookEvent(tx, org.id, type, data));

beforeAll(async () => {
  t = await createTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  receiver = await startReceiver();
});
// An organisation per test: an event goes to every endpoint of its organisation.
beforeEach(async () => {
  org = await t.createOrg('pro', 'Delivery Org');
  key = (await t.createKey(org.id)).key;
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

describe(`webhook delivery on ${TEST_DATABASE_KIND}`, () => {
  it('accepts loopback, private and link-local URLs when WEBHOOK_ALLOW_PRIVATE_URLS is set, but still only http(s)', async () => {
    for (const url of [
      'http://127.0.0.1/h',
      'http://localhost/h',
      'http://10.0.0.1/h',
      'http://169.254.169.254/h',
      'http://[::1]/h',
      'http://[fc00::1]/h',
      'http://[::ffff:127.0.0.1]/h',
    ]) {
      const res = await registerEndpoint(t, key, { url });
      expect(res.status, url).toBe(201);
    }
    const ftp = await registerEndpoint(t, key, { url: 'ftp://127.0.0.1/h' });
    expect(ftp.status).toBe(400);
    expect(ftp.body.details).toBe("url: scheme must be http or https, got 'ftp:'");
  });

  it('delivers a queued event as a Standard Webhooks message the receiver verifies', async () => {
    const endpoint = await endpointAt('/ok');
    const failedOnly = await endpointAt('/failed-only', undefined, ['org.export.job.failed']);
    const jobId = randomUUID();
    expect(await emit('org.export.job.completed', completedData(jobId))).toBe(1);

    expect(await dispatcher().runOnce()).toBe(1);
    const [request] = receiver.on('/ok');
    expect(receiver.on('/ok')).toHaveLength(1);
    expect(receiver.on('/failed-only')).toHaveLength(0);
    expect(request!.verified).toEqual({
      payload: {
        type: 'org.export.job.completed',
        timestamp: expect.any(String),
        data: { ...completedData(jobId), bytes: 1_234_567, total_rows: 4_321 },
      },
    });
    const [row] = await attemptsOf(endpoint.id);
    expect(request!.headers).toMatchObject({ 'webhook-id': row!.message_id, 'content-type': 'application/json', 'user-agent': USER_AGENT });
    expect(Number(request!.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -1);
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    // The signature is the endpoint's: another secret does not verify it.
    expect(() => new Webhook(failedOnly.secret).verify(request!.body, request!.headers as Record<string, string>)).toThrow(
      'No matching signature found',
    );

    expect(row).toMatchObject({
      attempt: 1,
      status: 'succeeded',
      response_status: 200,
      error: null,
      delivered_at: expect.any(Date),
      duration_ms: expect.any(Number),
    });
    expect(await dispatcher().runOnce()).toBe(0);
  });

  it('delivers to a host name through the address it resolved and checked (pinned connection)', async () => {
    const res = await registerEndpoint(t, key, { url: `${receiver.base.replace('127.0.0.1', 'localhost')}/by-name` });
    receiver.route('/by-name', res.body.secret);
    await emit('org.export.job.failed', { job_id: randomUUID() });
    expect(await dispatcher().runOnce()).toBe(1);
    expect(receiver.on('/by-name').map((r) => [r.headers.host, 'payload' in r.verified])).toEqual([[new URL(res.body.url).host, true]]);
  });

  it('retries with backoff: 500, 500, then 200 makes three attempt rows with one message id', async () => {
    const endpoint = await endpointAt('/flaky', (previous) => (previous < 2 ? 500 : 200));
    await emit('org.export.job.failed', {
      job_id: randomUUID(),
      status: 'failed',
      error_code: 'EXPORT_FAILED',
      error_message: 'disk full',
    });
    const started = Date.now();
    expect(await drain(dispatcher({ retryDelaysMs: [150, 150, 150] }))).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);

    const rows = await attemptsOf(endpoint.id);
    expect(rows.map((r) => [r.attempt, r.status, r.response_status])).toEqual([
      [1, 'failed', 500],
      [2, 'failed', 500],
      [3, 'succeeded', 200],
    ]);
    expect(new Set(rows.map((r) => r.message_id)).size).toBe(1);
    // The second attempt was due 150 ms after the first was made.
    expect(rows[1]!.delivered_at!.getTime() - rows[0]!.delivered_at!.getTime()).toBeGreaterThanOrEqual(140);
    // A short, printable excerpt of the answer, not the body.
    expect(rows[0]!.error).toMatch(/^HTTP 500: receiver says no x+…$/);
    expect(rows[0]!.error).toHaveLength(200);
    const hits = receiver.on('/flaky');
    expect(hits.map((h) => 'payload' in h.verified)).toEqual([true, true, true]);
    expect(new Set(hits.map((h) => h.headers['webhook-id']))).toEqual(new Set([rows[0]!.message_id]));

    // The delivery log shows every attempt.
    const log = await t.json(`/v1/webhooks/deliveries?endpoint_id=${endpoint.id}`, { headers: auth(key) });
    expect(log.body.total).toBe(3);
    expect(
      log.body.deliveries.map((d: { attempt: number; status: string; message_id: string }) => [d.attempt, d.status, d.message_id]),
    ).toEqual([
      [3, 'succeeded', rows[0]!.message_id],
      [2, 'failed', rows[0]!.message_id],
      [1, 'failed', rows[0]!.message_id],
    ]);
  });

  it('gives up when the schedule is exhausted: the last attempt is a final failure', async () => {
    const endpoint = await endpointAt('/down', () => 503);
    await emit('org.export.job.failed', { job_id: randomUUID() });
    expect(await drain(dispatcher({ retryDelaysMs: [20, 20] }))).toBe(3);
    const rows = await attemptsOf(endpoint.id);
    expect(rows.map((r) => [r.attempt, r.status, r.response_status])).toEqual([
      [1, 'failed', 503],
      [2, 'failed', 503],
      [3, 'failed', 503],
    ]);
    expect(receiver.on('/down')).toHaveLength(3);
  });

  it('fails an attempt that times out, and one that redirects (redirects are not followed)', async () => {
    const slow = await endpointAt('/hang', () => 'hang');
    const moved = await endpointAt('/moved', () => 302);
    await emit('org.export.job.failed', { job_id: randomUUID() });
    const started = Date.now();
    expect(await dispatcher({ timeoutMs: 300 }).runOnce()).toBe(2);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await attemptsOf(slow.id)).toEqual([
      expect.objectContaining({ status: 'failed', response_status: null, error: 'timed out after 300 ms' }),
    ]);
    expect(await attemptsOf(moved.id)).toEqual([
      expect.objectContaining({ status: 'failed', response_status: 302, error: 'HTTP 302 (redirects are not followed)' }),
    ]);
    expect(receiver.on('/redirected')).toHaveLength(0);
  });

  it('checks the address again at delivery: without the flag a loopback endpoint gets nothing', async () => {
    const endpoint = await endpointAt('/guarded');
    await emit('org.export.job.completed', completedData(randomUUID()));
    expect(await dispatcher({ allowPrivateUrls: false, retryDelaysMs: [60_000] }).runOnce()).toBe(1);
    expect(receiver.on('/guarded')).toHaveLength(0);
    const rows = await attemptsOf(endpoint.id);
    expect(rows.map((r) => [r.attempt, r.status, r.response_status, r.error])).toEqual([
      [1, 'failed', null, 'URL not allowed: resolves to a loopback address'],
      [2, 'pending', null, null],
    ]);
    // Deleting the endpoint closes the retry still waiting.
    expect((await t.json(`/v1/webhooks/endpoints/${endpoint.id}`, { method: 'DELETE', headers: auth(key) })).status).toBe(200);
    expect((await attemptsOf(endpoint.id)).map((r) => [r.status, r.error])).toEqual([
      ['failed', 'URL not allowed: resolves to a loopback address'],
      ['failed', 'endpoint deleted'],
    ]);
  });

  it('does not deliver to an endpoint deleted after the event was queued', async () => {
    const endpoint = await endpointAt('/gone');
    await emit('org.export.job.failed', { job_id: randomUUID() });
    // Deleted behind the API's back, so the attempt is still pending when the dispatcher claims it.
    await prisma().webhookEndpoint.update({ where: { id: endpoint.id }, data: { deleted_at: new Date(), active: false } });
    expect(await dispatcher({ retryDelaysMs: [10] }).runOnce()).toBe(1);
    expect(await attemptsOf(endpoint.id)).toEqual([
      expect.objectContaining({ status: 'failed', error: 'endpoint deleted', delivered_at: null, response_status: null }),
    ]);
    expect(receiver.on('/gone')).toHaveLength(0);
  });

  it('signs with the rotated secret from then on', async () => {
    const endpoint = await endpointAt('/rotated');
    const rotated = await t.json(`/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`, { method: 'POST', headers: auth(key) });
    await emit('org.export.job.failed', { job_id: randomUUID() });
    await drain(dispatcher());
    const [hit] = receiver.on('/rotated');
    expect(() => new Webhook(endpoint.secret).verify(hit!.body, hit!.headers as Record<string, string>)).toThrow();
    expect(new Webhook(rotated.body.secret).verify(hit!.body, hit!.headers as Record<string, string>)).toMatchObject({
      type: 'org.export.job.failed',
    });
  });

  it('running: a hanging endpoint does not hold up another, and stop() waits for the attempt in flight', async () => {
    const hanging = await endpointAt('/stuck', () => 'hang');
    const quick = await endpointAt('/quick');
    const running = dispatcher({ timeoutMs: 1_500, pollIntervalMs: 20 });
    running.start();
    await emit('org.export.job.failed', { job_id: randomUUID() });
    const started = Date.now();
    while ((await attemptsOf(quick.id))[0]?.status !== 'succeeded') {
      expect(Date.now() - started).toBeLessThan(1_000);
      await sleep(10);
    }
    expect((await attemptsOf(hanging.id))[0]!.status).toBe('pending');
    await running.stop();
    expect(await attemptsOf(hanging.id)).toEqual([expect.objectContaining({ status: 'failed', error: 'timed out after 1500 ms' })]);
  });

  it('dispatchers working side by side make each attempt exactly once (FOR UPDATE SKIP LOCKED)', async () => {
    const res = await registerEndpoint(t, key, { url: `${receiver.base}/many` });
    receiver.route('/many', res.body.secret);
    for (let i = 0; i < 60; i++) await emit('org.export.job.failed', { job_id: `job-${i}` });

    // On PostgreSQL half of them use a connection pool of their own, as another process would.
    const url = (t.app.services.db as Database & { url?: string }).url;
    const other = url ? await openDatabase({ kind: 'postgres', url, poolSize: 4 }) : undefined;
    try {
      const dispatchers = [0, 1, 2, 3].map((i) => dispatcher({ batchSize: 3 }, i % 2 && other ? other.prisma : prisma()));
      let made = 0;
      // Rounds in which all claim at the same moment, the race SKIP LOCKED settles.
      while ((await prisma().webhookDelivery.count({ where: { status: 'pending' } })) > 0) {
        made += (await Promise.all(dispatchers.map((d) => d.runOnce()))).reduce((sum, n) => sum + n, 0);
      }
      expect(made).toBe(60);
    } finally {
      await other?.close();
    }
    const hits = receiver.on('/many');
    expect(hits).toHaveLength(60);
    expect(new Set(hits.map((h) => h.headers['webhook-id'])).size).toBe(60);
    expect(hits.every((h) => 'payload' in h.verified)).toBe(true);
    expect(await prisma().webhookDelivery.count({ where: { endpoint_id: res.body.id, status: 'succeeded', attempt: 1 } })).toBe(60);
    expect(await prisma().webhookDelivery.count({ where: { endpoint_id: res.body.id } })).toBe(60);
  });
});
