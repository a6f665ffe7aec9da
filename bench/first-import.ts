// npm run bench:first-import — issue 39: what the first import batches of a new server process cost.
// Starts the service (BENCH_ONLY=embedded, the default, on a new data directory, or BENCH_ONLY=postgres
// on a fresh database with Redis), waits FIRST_IMPORT_WAIT_MS (default 3000: the background warm-up
// a second after listening), then posts FIRST_IMPORT_BATCHES (default 3) batches of 1 000 assets
// (bench:import's rows) one after the other. For each batch: its wall time, the service's CPU time
// (all its threads; on a busy machine the figure to compare), the longest and p99 event-loop delay
// the service measured itself during it (nodejs_eventloop_lag_*_seconds on /metrics, whose histogram
// each scrape restarts) and the RSS after it. BENCH_COMPILED=1 runs the build, as npm start does.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { adminJson, BENCH_ADMIN_TOKEN, cpuSeconds, freshPostgres, importBatch, rssMb, startService } from './support.ts';

const WAIT_MS = Number(process.env.FIRST_IMPORT_WAIT_MS ?? 3000);
const BATCHES = Number(process.env.FIRST_IMPORT_BATCHES ?? 3);
const onPostgres = process.env.BENCH_ONLY === 'postgres';

/** The service's own event-loop delay since the previous scrape: max and p99, in ms. */
async function eventLoopDelay(url: string): Promise<{ max: number; p99: number }> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` } })).text();
  const ms = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]) * 1000;
  return { max: ms('nodejs_eventloop_lag_max_seconds'), p99: ms('nodejs_eventloop_lag_p99_seconds') };
}

const db = onPostgres ? await freshPostgres() : undefined;
const dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-bench-first-import-'));
const service = await startService({
  DATABASE_URL: db?.url ?? '',
  DATA_DIR: dataDir,
  ...(db ? { REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379' } : {}),
  QUOTA_LIMITS: 'day.enterprise=100000000,minute.enterprise=100000000',
});
const pid = service.child.pid!;
try {
  console.log(
    `${onPostgres ? 'PostgreSQL + Redis' : 'embedded (PGlite)'}; load average ${loadavg()[0]!.toFixed(2)}; RSS ready ${Math.round(rssMb(pid)!)} MB`,
  );
  const org = await adminJson(service.url, '/orgs', { name: 'Bench first import', plan: 'enterprise' });
  const { key } = await adminJson(service.url, '/keys', { org_id: org.id });
  await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
  console.log(`RSS before the first batch ${Math.round(rssMb(pid)!)} MB`);
  await eventLoopDelay(service.url);
  for (let b = 0; b < BATCHES; b++) {
    const cpuStart = cpuSeconds(pid);
    const started = performance.now();
    const res = await fetch(`${service.url}/v1/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ assets: importBatch(b * 1000, 1000) }),
    });
    await res.arrayBuffer();
    const wall = performance.now() - started;
    const cpu = cpuSeconds(pid) - cpuStart;
    const delay = await eventLoopDelay(service.url);
    console.log(
      `batch ${b + 1}: ${res.status}, ${wall.toFixed(0)} ms, service CPU ${(cpu * 1000).toFixed(0)} ms, event loop held max ${delay.max.toFixed(0)} ms (p99 ${delay.p99.toFixed(0)}), RSS ${Math.round(rssMb(pid)!)} MB`,
    );
  }
  console.log(`load average after: ${loadavg()[0]!.toFixed(2)}`);
} finally {
  await service.stop();
  await rm(dataDir, { recursive: true, force: true });
  await db?.drop();
}
