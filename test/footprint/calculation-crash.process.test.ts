import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, startServerProcess } from '../support/process.ts';
import { openTestDatabase, TEST_DATABASE_KIND } from '../support/database.ts';
import { TEST_ADMIN_TOKEN, UNLIMITED } from '../support/test-app.ts';
import { ADMIN_BASE } from '../../src/admin/routes.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';

const COUNTRIES = ['DE', 'FR', 'US', 'PL', 'JP', 'NL', 'SE', 'IT'];
const MODELS = ['Latitude 5440', 'ThinkPad T14 Gen 4', 'EliteBook 840 G10', 'XPS 13'];

// A calculation_id answered to a client refers to a committed row, even when the server is killed
// (SIGKILL, no shutdown) in the middle of a load of keyed footprint requests.
describe(`calculation ids survive a killed server on ${TEST_DATABASE_KIND}`, () => {
  let dataDir: string;
  let db: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
  let reopened: Database | undefined;
  let server: Awaited<ReturnType<typeof startServerProcess>>;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-crash-'));
    if (TEST_DATABASE_KIND === 'postgres') db = await openTestDatabase();
    server = await startServerProcess({
      DATA_DIR: dataDir,
      DATABASE_URL: db?.url ?? '',
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      QUOTA_LIMITS: UNLIMITED,
      LOG_LEVEL: 'warn',
    });
  }, 60_000);
  afterAll(async () => {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
    await reopened?.close();
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

  it('finds every answered calculation_id in the database after SIGKILL', async () => {
    const org = await admin('/orgs', { name: 'Crash Org', plan: 'enterprise' });
    const { key } = await admin('/keys', { org_id: org.id });
    const answered: string[] = [];
    let killed = false;
    // Calculations are content-addressed: each request asks a calculation not stored yet (its own storage_gb), so rows are being written when the kill comes.
    let sent = 0;
    const client = async (n: number) => {
      for (let i = n; !killed; i++) {
        const query = new URLSearchParams({
          brand: 'Dell',
          model: MODELS[i % MODELS.length]!,
          category: 'laptop',
          country: COUNTRIES[i % COUNTRIES.length]!,
          storage_gb: String(1 + (sent++ % 2000)),
        });
        // Requests cut off by the kill fail; only answered ids count.
        const res = await fetch(`${server.url}/v1/footprint?${query}`, { headers: { authorization: `Bearer ${key}` } }).catch(
          () => undefined,
        );
        const body =
          res?.status === 200 ? ((await res.json().catch(() => undefined)) as { calculation_id: string } | undefined) : undefined;
        if (body) answered.push(body.calculation_id);
      }
    };
    const clients = Array.from({ length: 32 }, (_, n) => client(n));
    // Kill once the load is well under way, while rows are being written.
    while (answered.length < 150) await new Promise((r) => setTimeout(r, 10));
    server.child.kill('SIGKILL');
    killed = true;
    await exitOf(server.child);
    await Promise.all(clients);

    expect(answered.every((id) => typeof id === 'string')).toBe(true);
    const check = db ?? (reopened = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'pglite') }));
    const stored = await check.prisma.calculation.count({ where: { id: { in: answered } } });
    expect(stored).toBe(new Set(answered).size);
  }, 30_000);
});
