// npm run bench:erasure — erasure-report sync throughput: BENCH_ERASURE_REPORTS reports (default 5 000)
// served by the fake Blancco portal (test/support/fake-blancco.ts, pages of 100) are synced through
// POST /v1/blancco/sync, continuation after continuation, into a fresh organisation on PostgreSQL: the
// lookup chain, the engine, the calculations and the assets included. Then the same again (every
// report skipped). Reports per second of each pass; target >= 200/s on PostgreSQL.
// BENCH_DATABASE_URL (or TEST_DATABASE_URL) names the PostgreSQL server; a fresh database is made and dropped.
// BENCH_ERASURE_DB=pglite runs the same on the embedded database instead.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminJson, freshPostgres, startService } from './support.ts';
import { startFakeBlancco } from '../test/support/fake-blancco.ts';
import { generateReports } from '../test/erasure/fixtures.ts';

const N = Number(process.env.BENCH_ERASURE_REPORTS ?? 5_000);
const onPglite = process.env.BENCH_ERASURE_DB === 'pglite';
const QUOTA_LIMITS = 'day.business=100000000,minute.business=100000000';

const fake = await startFakeBlancco({ reports: generateReports(N, 20_261_123), pageSize: 100 });
const db = onPglite ? undefined : await freshPostgres();
const dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-bench-erasure-'));
const service = await startService({
  ...(db ? { DATABASE_URL: db.url } : {}),
  DATA_DIR: dataDir,
  QUOTA_LIMITS,
  ERASURE_ALLOW_PRIVATE_URLS: 'true',
});
try {
  const org = await adminJson(service.url, '/orgs', { name: 'Bench erasure', plan: 'business' });
  const { key } = await adminJson(service.url, '/keys', { org_id: org.id });
  const call = async (method: string, route: string, body: unknown) => {
    const res = await fetch(`${service.url}/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, any>;
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  await call('PUT', '/blancco/connection', { base_url: fake.url, api_key: fake.apiKey });

  const pass = async (label: string) => {
    const totals = { synced: 0, skipped: 0, errors: 0, requests: 0 };
    const started = performance.now();
    let continuation: string | null = null;
    do {
      const result: Record<string, any> = await call('POST', '/blancco/sync', continuation ? { continuation } : {});
      totals.synced += result.synced;
      totals.skipped += result.skipped;
      totals.errors += result.errors;
      totals.requests++;
      continuation = result.continuation;
    } while (continuation);
    const seconds = (performance.now() - started) / 1000;
    const reports = totals.synced + totals.skipped + totals.errors;
    console.log(
      `${label}: ${reports} reports in ${seconds.toFixed(1)} s = ${Math.round(reports / seconds)} reports/s ` +
        `(${totals.synced} synced, ${totals.skipped} skipped, ${totals.errors} errors; ${totals.requests} sync requests)`,
    );
    return totals;
  };
  console.log(`erasure sync bench: ${N} reports, ${onPglite ? 'PGlite' : 'PostgreSQL'}`);
  await pass('first sync (all new)');
  await pass('second sync (all already synced)');
} finally {
  await service.stop();
  await fake.close();
  await db?.drop();
  await rm(dataDir, { recursive: true, force: true });
}
