// npm run bench:assets — the inventory on PostgreSQL at scale:
//  1. `lcf admin seed-demo` of BENCH_ASSETS assets (default 1 000 000) into one organisation (timed);
//  2. a page of 100 assets with product and active_calculation: SQL statements per request (counted
//     in-process through the driver adapter) and p50/p95 latency over HTTP, first page and pages at
//     random positions (opaque after cursors), unfiltered and filtered;
//  3. simulateRefurbish with 500 assets: p50/p95;
//  4. import throughput of a 10 000-row CSV through `lcf assets import` (assets/s), then the same file
//     again (all updates).
// BENCH_DATABASE_URL (or TEST_DATABASE_URL) names the PostgreSQL server; a fresh database is made and dropped.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeBase64, encodeCursorChunk } from '@pothos/core';
import { PrismaPg } from '@prisma/adapter-pg';
import { adminJson, BENCH_DEVICES, BENCH_STATUSES, freshPostgres, percentile, runLcf, startService } from './support.ts';
import { StatementLog, countingAdapter } from '../test/support/counting-database.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { loadConfig } from '../src/config/config.ts';
import { createLogger } from '../src/observability/logger.ts';
import { startServices, stopServices } from '../src/startup.ts';
import { createApp } from '../src/app.ts';

const N = Number(process.env.BENCH_ASSETS ?? 1_000_000);
const IMPORT_ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 10_000);
const QUOTA_LIMITS = 'day.enterprise=100000000,minute.enterprise=100000000';

const PAGE = `query Page($first: Int, $after: String, $status: [AssetStatus!], $country: String) {
  assets(first: $first, after: $after, status: $status, country: $country) {
    edges { cursor node { id brand mpn serial_number status purchase_date country total_kg_co2e production_kg use_phase_kg
      product { id brand mpn name category }
      active_calculation { id created_at total_kg_co2e emission_factor(type: GRID) { value unit source source_version registry { display_name } } } } }
    pageInfo { hasNextPage endCursor }
  }
}`;
const SIMULATE = `mutation Sim($ids: [ID!]!) { simulateRefurbish(assetIds: $ids) {
  current_quarterly_co2e scenario_quarterly_co2e delta_kg_co2e delta_percentage affected_assets_count } }`;

const cursorOf = (id: string) => encodeBase64(`GPC:${encodeCursorChunk(id)}`);

async function timed(fn: () => Promise<unknown>, times: number): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    await fn();
    ms.push(performance.now() - start);
  }
  return ms;
}

const db = await freshPostgres();
const service = await startService({ DATABASE_URL: db.url, QUOTA_LIMITS });
let counted: Awaited<ReturnType<typeof startServices>> | undefined;
const tmp = await mkdtemp(path.join(tmpdir(), 'lcf-bench-assets-'));
try {
  const org = await adminJson(service.url, '/orgs', { name: 'Bench inventory', plan: 'enterprise' });
  const { key } = await adminJson(service.url, '/keys', { org_id: org.id });
  const graphql = async (query: string, variables: Record<string, unknown>) => {
    const res = await fetch(`${service.url}/v1/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: any; errors?: unknown[] };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };

  // 1. seed
  console.log(`seeding ${N} assets with lcf admin seed-demo …`);
  const seedStart = performance.now();
  const seeded = await runLcf(['admin', 'seed-demo', '--org', org.id!, '--assets', String(N), '--json'], { DATABASE_URL: db.url });
  const seedSeconds = (performance.now() - seedStart) / 1000;
  if (seeded.code !== 0) throw new Error(`seed-demo failed: ${seeded.stdout}`);
  const seedResult = JSON.parse(seeded.stdout);

  // Sample ids at random positions for cursors and scenarios.
  const pgDb: Database = await openDatabase({ kind: 'postgres', url: db.url, poolSize: 2 });
  const sample = (
    await pgDb.prisma.$queryRawUnsafe<{ id: string }[]>(
      `SELECT id::text AS id FROM assets WHERE org_id = $1::uuid ORDER BY random() LIMIT 5000`,
      org.id,
    )
  ).map((r) => r.id);
  await pgDb.close();

  // 2. statement count, in-process over a counting adapter on the same database
  const statements = new StatementLog();
  const base = await openDatabase({ kind: 'postgres', url: db.url, poolSize: 1 });
  const countingPrisma = new PrismaClient({ adapter: countingAdapter(new PrismaPg({ connectionString: db.url, max: 4 }), statements) });
  const countingDb: Database = {
    kind: 'postgres',
    prisma: countingPrisma,
    session: () => base.session(),
    close: async () => {
      await countingPrisma.$disconnect();
      await base.close();
    },
  };
  counted = await startServices(
    loadConfig({
      DATABASE_URL: db.url,
      ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef',
      LOG_LEVEL: 'silent',
      QUOTA_LIMITS,
      DATA_DIR: tmp,
    }),
    createLogger('silent'),
    countingDb,
  );
  const app = createApp(counted);
  const inProcess = (variables: Record<string, unknown>) =>
    app
      .fetch(
        new Request('http://localhost/v1/graphql', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: PAGE, variables }),
        }),
      )
      .then((r) => r.json());
  await inProcess({ first: 100 });
  const countFor = async (variables: Record<string, unknown>) => {
    statements.reset();
    await inProcess(variables);
    return statements.count;
  };
  const statementCounts = {
    'first page, 10': await countFor({ first: 10 }),
    'first page, 100': await countFor({ first: 100 }),
    'page 100 at a random cursor': await countFor({ first: 100, after: cursorOf(sample[0]!) }),
  };
  await stopServices(counted);
  counted = undefined;

  // 2b. latency over HTTP (the separate service process), sequential requests
  await timed(() => graphql(PAGE, { first: 100 }), 10); // warm-up
  const pageFirst = await timed(() => graphql(PAGE, { first: 100 }), 100);
  let i = 0;
  const pageRandom = await timed(() => graphql(PAGE, { first: 100, after: cursorOf(sample[i++ % sample.length]!) }), 200);
  const pageFiltered = await timed(
    () => graphql(PAGE, { first: 100, after: cursorOf(sample[i++ % sample.length]!), status: ['in_use'], country: 'DE' }),
    100,
  );
  // Walking: each page after the previous one.
  let after: string | null = null;
  const walk = await timed(async () => {
    const d = await graphql(PAGE, { first: 100, after });
    after = d.assets.pageInfo.endCursor;
  }, 100);

  // 3. simulateRefurbish with 500 assets
  let s = 0;
  await timed(() => graphql(SIMULATE, { ids: sample.slice(0, 500) }), 3);
  const scenario = await timed(() => graphql(SIMULATE, { ids: sample.slice((s = (s + 500) % (sample.length - 500)), s + 500) }), 30);

  // 4. import of a 10 000-row CSV through the CLI (chunks of 1 000 rows)
  const countries = ['DE', 'FR', 'NL', 'GB', 'US-CA', 'PL', 'SE', 'ES'];
  const lines = ['brand,model,serial_number,category,purchase_date,country,status,ram_gb'];
  for (let r = 0; r < IMPORT_ROWS; r++) {
    const [brand, model, category] = BENCH_DEVICES[r % BENCH_DEVICES.length]!;
    lines.push(
      `${brand},${model},BENCH-${String(r).padStart(6, '0')},${category},202${r % 6}-0${(r % 9) + 1}-15,${countries[r % countries.length]},${BENCH_STATUSES[r % BENCH_STATUSES.length]},${category === 'laptop' ? 8 + (r % 3) * 8 : ''}`,
    );
  }
  const file = path.join(tmp, 'bench-import.csv');
  await writeFile(file, lines.join('\n'));
  const importOnce = async () => {
    const start = performance.now();
    const res = await runLcf(['assets', 'import', file, '--key', key!, '--json'], { LCF_URL: service.url });
    const seconds = (performance.now() - start) / 1000;
    const outcome = JSON.parse(res.stdout);
    if (outcome.failed) throw new Error(`import failed rows: ${JSON.stringify(outcome.errors.slice(0, 3))}`);
    return { seconds, outcome };
  };
  const fresh = await importOnce();
  const again = await importOnce();

  const p = (ms: number[]) => ({ p50_ms: percentile(ms, 50), p95_ms: percentile(ms, 95), n: ms.length });
  console.log(
    `\nseed-demo: ${N} assets (+ ${N} calculations, ${N} calculation_factors), ${seedResult.combinations} device/country footprints, ${seedSeconds.toFixed(1)} s wall (${Math.round(N / seedSeconds)} assets/s)`,
  );
  console.log(
    '\nSQL statements per GraphQL request (page with product and active_calculation incl. emission factor and registry; includes the quota counter statement):',
  );
  console.table(statementCounts);
  console.log(`latency over HTTP, sequential, ${N} assets in the organisation:`);
  console.table({
    'assets(first: 100), first page': p(pageFirst),
    'assets(first: 100, after: random cursor)': p(pageRandom),
    'assets(first: 100, after, status: in_use, country: DE)': p(pageFiltered),
    'walking 100 consecutive pages': p(walk),
    'simulateRefurbish, 500 assets': p(scenario),
  });
  console.log(
    `import ${IMPORT_ROWS}-row CSV via lcf assets import: new ${fresh.seconds.toFixed(1)} s = ${Math.round(IMPORT_ROWS / fresh.seconds)} assets/s (${fresh.outcome.created} created); ` +
      `re-import ${again.seconds.toFixed(1)} s = ${Math.round(IMPORT_ROWS / again.seconds)} assets/s (${again.outcome.updated} updated)`,
  );
} finally {
  if (counted) await stopServices(counted).catch(() => {});
  await service.stop();
  await rm(tmp, { recursive: true, force: true });
  await db.drop();
}
