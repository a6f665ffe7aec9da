import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, startServerProcess } from '../support/process.ts';
import { openTestDatabase, TEST_DATABASE_KIND } from '../support/database.ts';
import { TEST_ADMIN_TOKEN } from '../support/test-app.ts';
import { ADMIN_BASE } from '../../src/admin/routes.ts';
import { FLUSH_EVERY_MS } from '../../src/auth/quota/index.ts';

const DAY = 1_000;

// The server as users run it: the day's remaining requests survive a restart, and after a crash
// (SIGKILL) a key never has fewer left than it truly has (on the embedded database, at most the
// requests of the last flush interval are forgotten: docs/quotas.md).
describe(`the day's quota across a restart and a crash, on ${TEST_DATABASE_KIND}`, () => {
  let dataDir: string;
  let db: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
  let server: Awaited<ReturnType<typeof startServerProcess>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-quota-restart-'));
    if (TEST_DATABASE_KIND === 'postgres') db = await openTestDatabase();
    env = {
      DATA_DIR: dataDir,
      DATABASE_URL: db?.url ?? '',
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      QUOTA_LIMITS: `day.pro=${DAY},minute.pro=100000`,
      LOG_LEVEL: 'warn',
    };
    server = await startServerProcess(env);
  }, 60_000);
  afterAll(async () => {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
    await db?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const admin = async (p: string, body: unknown) => {
    const res = await fetch(`${server.url}${ADMIN_BASE}${p}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; key: string };
  };
  /** `n` keyed requests one after another; the last one's remaining. */
  const spend = async (key: string, n: number) => {
    let remaining = Number.NaN;
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${server.url}/v1/reference/categories`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      remaining = Number(res.headers.get('x-ratelimit-remaining'));
    }
    return remaining;
  };

  it('continues the day after a clean restart and never over-counts after SIGKILL', async () => {
    const org = await admin('/orgs', { name: 'Restart Org', plan: 'pro' });
    const { key } = await admin('/keys', { org_id: org.id });
    expect(await spend(key, 20)).toBe(DAY - 20);

    // A clean stop (SIGTERM: drain, then the counts are written) and a start on the same data.
    server.child.kill('SIGTERM');
    expect(await exitOf(server.child)).toBe(0);
    server = await startServerProcess(env);
    expect(await spend(key, 1)).toBe(DAY - 21);

    // Ten more, then longer than a flush interval: these are written. Fifteen more, then the process is killed.
    await spend(key, 10);
    await new Promise((r) => setTimeout(r, FLUSH_EVERY_MS * 2));
    await spend(key, 15);
    server.child.kill('SIGKILL');
    await exitOf(server.child);
    server = await startServerProcess(env);
    const remaining = await spend(key, 1);
    const used = 20 + 1 + 10 + 15 + 1;
    console.log(`quota after SIGKILL (${TEST_DATABASE_KIND}): ${DAY - used} truly left, ${remaining} answered`);
    // Never fewer left than truly are; at most the requests since the last flush forgotten.
    expect(remaining).toBeGreaterThanOrEqual(DAY - used);
    expect(remaining).toBeLessThanOrEqual(DAY - (20 + 1 + 10 + 1));
  }, 120_000);
});
