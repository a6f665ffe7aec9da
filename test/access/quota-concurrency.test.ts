import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';

// The embedded database belongs to one process, whose counters are in its memory (docs/quotas.md): two
// instances share a budget through Redis or PostgreSQL.
const shared = Boolean(process.env.TEST_REDIS_URL) || TEST_DATABASE_KIND === 'postgres';
const store = process.env.TEST_REDIS_URL ? 'Redis' : shared ? 'the database (postgres)' : 'memory (pglite, one process)';

// One API instance over HTTP, 200 concurrent requests against a daily budget of 100: exactly 100 are admitted.
describe(`exact quotas under concurrency, one instance, counters in ${store}`, () => {
  const budget = 100;
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await createTestApp({ QUOTA_LIMITS: `day.pro=${budget},minute.pro=100000` });
    url = await t.listen();
  });
  afterAll(() => t?.close());

  it('admits exactly the budget of 200 concurrent requests, and counts for the day what it admitted', async () => {
    const org = await t.createOrg('pro');
    const { id, key } = await t.createKey(org.id);
    const statuses = await Promise.all(
      Array.from({ length: 2 * budget }, () =>
        fetch(`${url}/v1/reference/categories`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }),
      ),
    );
    console.log(
      `quota concurrency (${store}): one instance, 200 requests, budget ${budget}: admitted ${statuses.filter((s) => s === 200).length}`,
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(budget);
    expect(statuses.filter((s) => s === 429)).toHaveLength(budget);
    expect(await t.app.services.quota.usageToday([{ keyId: id, orgId: org.id, plan: 'pro' }])).toEqual([{ used: budget, limit: budget }]);
  });
});

// Two API instances (two HTTP servers on different ports, one database, one counter store) and
// 200 concurrent requests against a daily budget of 100: exactly 100 are admitted.
describe.skipIf(!shared)(`exact quotas under concurrency, two instances, counters in ${store}`, () => {
  const budget = 100;
  const env = { QUOTA_LIMITS: `day.pro=${budget},minute.pro=100000`, REDIS_PREFIX: `lcf-test:${randomUUID()}:` };
  let first: TestApp;
  let second: TestApp;
  const servers: Server[] = [];
  const urls: string[] = [];

  beforeAll(async () => {
    first = await createTestApp(env);
    second = await createTestApp(env, { database: first.app.services.db });
    for (const t of [first, second]) {
      const server = createServer(t.app.handle);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    await second.close();
    await first.close();
  });

  it('admits exactly the budget of 200 concurrent requests split over both instances', async () => {
    const { key } = await first.createKey((await first.createOrg('pro')).id);
    const statuses = await Promise.all(
      Array.from({ length: 2 * budget }, (_, i) =>
        fetch(`${urls[i % 2]}/v1/reference/categories`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status),
      ),
    );
    const admitted = statuses.filter((s) => s === 200).length;
    const perInstance = [0, 1].map((n) => statuses.filter((s, i) => s === 200 && i % 2 === n).length);
    console.log(
      `quota concurrency (${store}): 200 requests, budget ${budget}: admitted ${admitted} (instance 1: ${perInstance[0]}, instance 2: ${perInstance[1]})`,
    );
    expect(admitted).toBe(budget);
    expect(statuses.filter((s) => s === 429)).toHaveLength(budget);
    const next = await fetch(`${urls[1]}/v1/reference/categories`, { headers: { authorization: `Bearer ${key}` } });
    expect(next.status).toBe(429);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('0');
  });
});
