import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Fetch, LcfError, unwrap } from '../../sdk/index.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { awayFromMinuteEnd } from '../support/minute.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

type Answer = { status: number; headers?: Record<string, string>; body: unknown };

/** A server on 127.0.0.1 answering its scripted answers in turn (the last one again when they run out), recording each request. */
async function scriptedServer(answers: Answer[]) {
  const requests: { method: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers[Math.min(requests.length, answers.length) - 1]!;
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}
const servers: ReturnType<typeof createServer>[] = [];
afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

const rateLimited = (seconds: number, header = true): Answer => ({
  status: 429,
  headers: header ? { 'retry-after': String(seconds) } : {},
  body: { error: 'Too many requests', code: 'RATE_LIMITED', message: 'slow down', retry_after_seconds: seconds },
});
const CERTIFICATE = {
  id: 'c',
  certificate_number: 'LCF-AAAAAAAAAA',
  issued_at: '2026-01-01T00:00:00Z',
  download_url: '/d',
  verify_url: '/v',
};

/** A client whose waits are recorded instead of slept. */
const clientOf = (base: string, retry: { attempts?: number; maxDelayMs?: number } = {}) => {
  const waits: number[] = [];
  const client = createClient({ baseUrl: base, apiKey: 'svc_live_test', retry: { ...retry, sleep: async (ms) => void waits.push(ms) } });
  return { client, waits };
};

describe('retries on 429 and 503', () => {
  it('waits as Retry-After says and sends the same Idempotency-Key again', async () => {
    const fake = await scriptedServer([rateLimited(2), { status: 200, body: CERTIFICATE }]);
    const { client, waits } = clientOf(fake.base);
    const { data } = await client.POST('/certificate', { body: { calculation_id: 'calc' } });
    expect(data).toEqual(CERTIFICATE);
    expect(waits).toEqual([2_000]);
    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests;
    expect(first!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    expect(second!.body).toBe(first!.body);
    expect(second!.headers.authorization).toBe('Bearer svc_live_test');

    // The next call is another logical call: another key.
    await client.POST('/certificate', { body: { calculation_id: 'calc' } });
    expect(fake.requests[2]!.headers['idempotency-key']).not.toBe(first!.headers['idempotency-key']);
  });

  it("reads the rate-limit body's retry_after_seconds when there is no Retry-After, and sends no key with a GET", async () => {
    const fake = await scriptedServer([
      { ...rateLimited(3, false), status: 503 },
      { status: 200, body: { countries: [] } },
    ]);
    const { client, waits } = clientOf(fake.base);
    expect((await client.GET('/reference/countries')).response.status).toBe(200);
    expect(waits).toEqual([3_000]);
    expect(fake.requests.map((request) => request.headers['idempotency-key'])).toEqual([undefined, undefined]);
  });

  it('stops after the attempts allowed, or at once when the wait asked is longer than maxDelayMs, answering the refusal', async () => {
    const fake = await scriptedServer([rateLimited(1)]);
    const { client, waits } = clientOf(fake.base, { attempts: 3 });
    const refused = await client.POST('/certificate', { body: { calculation_id: 'calc' } });
    expect(refused.response.status).toBe(429);
    expect(refused.error).toMatchObject({ code: 'RATE_LIMITED' });
    expect(waits).toEqual([1_000, 1_000]);
    expect(fake.requests).toHaveLength(3);
    await expect(unwrap(refused)).rejects.toEqual(expect.objectContaining({ status: 429, code: 'RATE_LIMITED' }));
    await expect(unwrap(refused)).rejects.toBeInstanceOf(LcfError);

    const patient = clientOf(fake.base, { maxDelayMs: 500 });
    expect((await patient.client.POST('/certificate', { body: { calculation_id: 'calc' } })).response.status).toBe(429);
    expect(patient.waits).toEqual([]);
    expect(fake.requests).toHaveLength(4);
  });
});

describe('the key', () => {
  it("goes to baseUrl's origin only, not to another host a URL names", async () => {
    const service = await scriptedServer([{ status: 200, body: {} }]);
    const elsewhere = await scriptedServer([{ status: 200, body: {} }]);
    const { client } = clientOf(service.base);
    await client.fetch('/v1/odata/Assets');
    await client.fetch(`${elsewhere.base}/signed-download`);
    expect(service.requests[0]!.headers.authorization).toBe('Bearer svc_live_test');
    expect(elsewhere.requests[0]!.headers.authorization).toBeUndefined();
  });
});

describe(`retries against the service's minute quota on ${TEST_DATABASE_KIND}`, () => {
  let t: TestApp;
  let base: string;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ QUOTA_LIMITS: 'minute.pro=2,day.pro=1000' });
    base = await t.listen();
    key = (await t.createKey((await t.createOrg('pro', 'SDK Quota')).id)).key;
  });
  afterAll(() => t?.close());

  it("waits the Retry-After of the quota's 429 before sending again", async () => {
    const sent: Response[] = [];
    const waits: number[] = [];
    // Keeps a copy of each answer, as a logging fetch may: the retry must not wait for the copy's unread body.
    const recording: Fetch = async (input, init) => {
      const response = await fetch(input, init);
      sent.push(response.clone());
      return response;
    };
    const client = createClient({
      baseUrl: base,
      apiKey: key,
      fetch: recording,
      retry: { attempts: 2, sleep: async (ms) => void waits.push(ms) },
    });
    await awayFromMinuteEnd();
    const query = { brand: 'Dell', model: 'Latitude 5400', country: 'DE' };
    for (let i = 0; i < 2; i++) expect((await client.GET('/footprint', { params: { query } })).response.status).toBe(200);
    // The waits are recorded, not slept: the retry comes within the same minute and is refused again.
    const refused = await client.GET('/footprint', { params: { query } });
    expect(refused.response.status).toBe(429);
    expect(sent.map((response) => response.status)).toEqual([200, 200, 429, 429]);
    const retryAfter = Number(sent[2]!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(waits).toEqual([retryAfter * 1000]);
  });
});
