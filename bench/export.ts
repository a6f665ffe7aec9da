// npm run bench:export — the organisation export archive on PostgreSQL at scale:
//  1. a fresh database with ONE organisation holding BENCH_EXPORT_ROWS rows (default 1 000 000) across
//     the 22 tables: lcf's seed-demo for assets with real calculations (engine results as JSON) and their
//     grid factors, then INSERT … SELECT generate_series for calculation history, asset events, audit
//     log, webhook deliveries, certificates, … (asset events fill up to the exact total);
//  2. writeExportArchive of all 22 tables to a temporary file, twice, each in a child process so its peak
//     RSS is the export's and not the seeding's: once with only a database connection (the export's own
//     footprint), once as an `lcf worker` process (where exports run at scale), once with the full services
//     of a server (its inline worker).
//     Seconds, rows/s, CPU, RSS before, at each quarter of the rows and at its peak
//     (process.resourceUsage().maxRSS, and RSS sampled every 50 ms);
//  3. checks the archive: per-table line counts against count(*) in the database, whole-ZIP size and SHA-256.
// Targets: <= 60 s and <= 300 MB peak RSS for 1 000 000 rows.
// BENCH_DATABASE_URL (or TEST_DATABASE_URL) names the PostgreSQL server; a fresh database is made and dropped.
// Tuning: BENCH_EXPORT_PAGE (rows per page), BENCH_EXPORT_LEVEL (deflate level), BENCH_EXPORT_ASSETS
// (default 17% of the rows), BENCH_EXPORT_KEEP=1 (keep the database, to rerun the export alone).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import yauzl from 'yauzl';
import { freshPostgres } from './support.ts';
import { ROOT } from '../test/support/process.ts';
import { loadConfig } from '../src/config/config.ts';
import { createLogger } from '../src/observability/logger.ts';
import { writeExportArchive, DEFAULT_PAGE_SIZE, COMPRESSION_LEVEL } from '../src/exports/archive.ts';
import { EXPORT_TABLES, ownerColumn } from '../src/exports/tables.ts';
import { openDatabase } from '../src/db/database.ts';
import { openWorkerServices } from '../src/cli/worker.ts';
// The server's modules (startup, seed-demo) are imported where used: a 'worker' or 'database' child must not load them.
const loadStartup = () => import('../src/startup.ts');
import type { Services } from '../src/services.ts';

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
const ASSETS = Number(process.env.BENCH_EXPORT_ASSETS ?? Math.round(ROWS * 0.17));
const PAGE = Number(process.env.BENCH_EXPORT_PAGE ?? DEFAULT_PAGE_SIZE);
const LEVEL = Number(process.env.BENCH_EXPORT_LEVEL ?? COMPRESSION_LEVEL);
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
// BENCH_EXPORT_KEEP=1 keeps the seeded database, to run the export alone again (tuning).
const KEEP = process.env.BENCH_EXPORT_KEEP === '1';
/** Rows of a table as a share of the total, so smaller runs keep the mix. */
const scaled = (share: number) => Math.max(1, Math.round(ROWS * share));

const workerConfig = (url: string, dataDir: string) =>
  loadConfig({ DATABASE_URL: url, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ADMIN_TOKEN, EXPORT_WORKER: 'off' });
const servicesFor = async (url: string, dataDir: string) =>
  (await loadStartup()).startServices(workerConfig(url, dataDir), createLogger('silent'));

/**
 * worker: an `lcf worker` process (where exports run at scale); services: the full services of a server
 * (its inline worker); database: only a database connection (the export's own footprint).
 */
type ProcessKind = 'worker' | 'services' | 'database';

interface ChildResult {
  seconds: number;
  totalRows: number;
  bytes: number;
  sha256: string;
  recordCounts: Record<string, number>;
  maxRssMb: number;
  baselineRssMb: number;
  sampledPeakRssMb: number;
  /** RSS when a quarter, half, … of the rows were written: flat if memory does not grow with the data. */
  rssByQuarter: number[];
  cpuSeconds: number;
}

const rssMb = () => process.memoryUsage().rss / 2 ** 20;

/** Child mode: one export to `file` in a process of the given kind, the measurements as JSON on stdout. */
async function runExport(kind: ProcessKind, url: string, orgId: string, file: string, dataDir: string): Promise<void> {
  const services = kind === 'services' ? await servicesFor(url, dataDir) : undefined;
  const worker = kind === 'worker' ? await openWorkerServices(workerConfig(url, dataDir), createLogger('silent')) : undefined;
  const db = services?.db ?? worker?.db ?? (await openDatabase({ kind: 'postgres', url, poolSize: 2 }));
  await db.prisma.$queryRawUnsafe('SELECT 1');
  const baselineRssMb = rssMb();
  let sampledPeak = baselineRssMb;
  const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, rssMb())), 50);
  const rssByQuarter: number[] = [];
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await writeExportArchive({
    db,
    orgId,
    tables: EXPORT_TABLES,
    output: createWriteStream(file),
    softwareVersion: 'bench',
    generatedAt: new Date(),
    pageSize: PAGE,
    compressionLevel: LEVEL,
    // As the worker does: a short statement per progress report (it renews its lease there).
    onProgress: async (p) => {
      if (p.rows_written >= ((rssByQuarter.length + 1) * ROWS) / 4) rssByQuarter.push(Math.round(rssMb()));
      await db.prisma.$executeRawUnsafe('SELECT $1::jsonb', JSON.stringify(p));
    },
  });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const used = process.cpuUsage(cpu);
  const out: ChildResult = {
    seconds,
    totalRows: result.totalRows,
    bytes: result.bytes,
    sha256: result.sha256,
    recordCounts: result.manifest.record_counts,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    baselineRssMb,
    sampledPeakRssMb: sampledPeak,
    rssByQuarter,
    cpuSeconds: (used.user + used.system) / 1e6,
  };
  if (services) await (await loadStartup()).stopServices(services);
  else await db.close();
  process.stdout.write(JSON.stringify(out));
}

/** Rows of every other table, by INSERT … SELECT generate_series; sizes of JSON as the service writes them. */
async function seedOthers(services: Services, orgId: string, historyCalculations: number) {
  const q = (sql: string, ...params: unknown[]) => services.db.prisma.$executeRawUnsafe(sql, ...params);
  const org = '$1::uuid';
  // API keys and people first: other rows refer to them.
  await q(
    `INSERT INTO api_keys (id, org_id, key, prefix, name, environment, plan, bi_enabled, created_at)
    SELECT gen_random_uuid(), ${org}, encode(sha256(('bench-key-' || g)::bytea), 'hex'), 'svc_live_' || substr(md5(g::text), 1, 4), 'key ' || g,
      CASE WHEN g % 4 = 0 THEN 'test' ELSE 'live' END, 'enterprise', g % 3 = 0, now() - g * interval '3 days'
    FROM generate_series(1, 20) g`,
    orgId,
  );
  await q(
    `INSERT INTO profiles (id, org_id, email, display_name, role, created_at)
    SELECT gen_random_uuid(), ${org}, 'person' || g || '@bench.example', 'Person ' || g, CASE WHEN g = 1 THEN 'owner' ELSE 'member' END, now()
    FROM generate_series(1, 50) g`,
    orgId,
  );
  await q(
    `INSERT INTO console_sessions (id, org_id, token_hash, created_at, expires_at)
    SELECT gen_random_uuid(), ${org}, encode(sha256(('bench-session-' || g)::bytea), 'hex'), now(), now() + interval '8 hours' FROM generate_series(1, 20) g`,
    orgId,
  );
  // Calculation history: earlier calculations of re-imported assets (same JSON as the active one, an older date).
  await q(
    `WITH h AS (
      SELECT gen_random_uuid() AS new_id, c.* FROM calculations c WHERE c.org_id = ${org} ORDER BY c.id LIMIT $2
    ), k AS (
      INSERT INTO calculations (id, org_id, asset_id, api_key_id, kind, engine_version, country, category, product_id, confidence,
        total_kg_co2e, production_kg, transport_kg, use_phase_kg, end_of_life_kg, inputs, result, grid_factor_id, created_at)
      SELECT h.new_id, org_id, asset_id, NULL, kind, engine_version, country, category, product_id, confidence,
        total_kg_co2e * 1.04, production_kg, transport_kg * 1.1, use_phase_kg * 1.05, end_of_life_kg, inputs, result || jsonb_build_object('calculation_id', h.new_id),
        grid_factor_id, created_at - interval '400 days'
      FROM h RETURNING id, grid_factor_id
    )
    INSERT INTO calculation_factors (calculation_id, factor_id, role, org_id) SELECT id, grid_factor_id, 'use_grid', ${org} FROM k`,
    orgId,
    historyCalculations,
  );
  await q(
    `INSERT INTO asset_events (id, org_id, asset_id, event, from_value, to_value, data, created_at)
    SELECT gen_random_uuid(), org_id, id, 'asset.created', NULL, status::text, jsonb_build_object('import_id', gen_random_uuid()), created_at FROM assets WHERE org_id = ${org}`,
    orgId,
  );
  await q(
    `INSERT INTO asset_imports (id, org_id, source, total_rows, created, updated, failed, errors, created_at)
    SELECT gen_random_uuid(), ${org}, CASE WHEN g % 2 = 0 THEN 'csv' ELSE 'json' END, 1000, 990, 0, 10,
      (SELECT jsonb_agg(jsonb_build_object('row', e, 'serial_number', 'SN-' || g || '-' || e, 'field', 'country', 'reason', 'unknown region code ''XX''; closest valid codes: XK, AX, MX'))
       FROM generate_series(1, 10) e), now() - g * interval '1 day'
    FROM generate_series(1, $2) g`,
    orgId,
    scaled(0.00025),
  );
  await q(
    `INSERT INTO audit_log (id, org_id, event, actor_key_id, subject_type, subject_id, data, request_id, created_at)
    SELECT gen_random_uuid(), ${org}, (ARRAY['odata.query', 'scenario.simulate_refurbish', 'report.generated', 'org.export.job.downloaded'])[1 + g % 4],
      (SELECT id FROM api_keys WHERE org_id = ${org} ORDER BY id LIMIT 1), 'odata_query', gen_random_uuid()::text,
      jsonb_build_object('entity_set', 'Assets', 'query', '$filter=country eq ''DE''&$top=1000&$select=asset_id,brand,mpn,total_kg_co2e', 'rows', 1000, 'proof_sha256', md5(g::text) || md5((g + 1)::text)),
      'req_' || md5(g::text), now() - g * interval '1 minute'
    FROM generate_series(1, $2) g`,
    orgId,
    scaled(0.02),
  );
  await q(
    `INSERT INTO webhook_endpoints (id, org_id, url, description, secret, events, created_at)
    SELECT gen_random_uuid(), ${org}, 'https://hooks.bench.example/' || g, 'endpoint ' || g, 'whsec_' || encode(sha256(('s' || g)::bytea), 'base64'),
      ARRAY['org.export.completed', 'org.export.failed'], now() FROM generate_series(1, 5) g`,
    orgId,
  );
  await q(
    `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, message_id, event, payload, attempt, status, next_attempt_at, response_status, duration_ms, delivered_at, created_at)
    SELECT gen_random_uuid(), ${org}, e.id, 'msg_' || md5(g::text), 'org.export.completed',
      jsonb_build_object('type', 'org.export.completed', 'timestamp', now(), 'data', jsonb_build_object('job_id', gen_random_uuid(), 'status', 'completed',
        'total_rows', 1000000, 'bytes', 123456789, 'sha256', md5(g::text) || md5((g + 7)::text), 'download_url', '/v1/org/export/jobs/' || gen_random_uuid() || '/download')),
      1 + g % 3, 'succeeded', now(), 200, 20 + g % 300, now(), now() - g * interval '10 minutes'
    FROM generate_series(1, $2) g CROSS JOIN LATERAL (SELECT id FROM webhook_endpoints WHERE org_id = ${org} ORDER BY id OFFSET g % 5 LIMIT 1) e`,
    orgId,
    scaled(0.01),
  );
  await q(
    `INSERT INTO certificates (id, org_id, calculation_id, asset_id, certificate_number, issued_at, content_sha256, payload, signature, key_id)
    SELECT gen_random_uuid(), ${org}, c.id, c.asset_id, 'LCF-' || substr(md5(c.id::text), 1, 12), now(), encode(sha256(c.id::text::bytea), 'hex'),
      jsonb_build_object('calculation_id', c.id, 'asset_id', c.asset_id, 'total_kg_co2e', c.total_kg_co2e, 'engine_version', c.engine_version,
        'breakdown', c.result -> 'breakdown', 'methodology', c.result -> 'methodology'),
      encode(sha256(c.id::text::bytea), 'base64') || encode(sha256(c.asset_id::text::bytea), 'base64'), 'bench-key-id'
    FROM (SELECT * FROM calculations WHERE org_id = ${org} AND asset_id IS NOT NULL ORDER BY id LIMIT $2) c`,
    orgId,
    scaled(0.005),
  );
  await q(
    `INSERT INTO reports (id, org_id, type, date_from, date_to, pages, bytes, sha256, created_at)
    SELECT gen_random_uuid(), ${org}, 'inventory', date '2025-01-01' + g, date '2025-01-31' + g, 12, 250000, md5(g::text) || md5(g::text), now() FROM generate_series(1, 100) g`,
    orgId,
  );
  await q(
    `INSERT INTO export_jobs (id, org_id, status, scope, total_tables, total_rows, bytes, sha256, created_at, completed_at)
    SELECT gen_random_uuid(), ${org}, 'expired', '{"include": null, "exclude": null}', 22, 990000, 120000000, md5(g::text) || md5(g::text), now() - g * interval '2 days', now() - g * interval '2 days'
    FROM generate_series(1, 20) g`,
    orgId,
  );
  await q(
    `INSERT INTO erasure_connections (id, org_id, base_url, api_key_encrypted, api_key_hint) VALUES (gen_random_uuid(), ${org}, 'https://erasure.bench.example', 'v1.bench.only.value', 'abcd')`,
    orgId,
  );
  await q(
    `INSERT INTO erasure_sync_runs (id, org_id, status, params, synced, skipped, errors, finished_at)
    SELECT gen_random_uuid(), ${org}, 'completed', jsonb_build_object('since', now() - interval '1 day'), 20, 1, 0, now() FROM generate_series(1, 50) g`,
    orgId,
  );
  await q(
    `INSERT INTO erasure_reports (id, org_id, external_uuid, status, brand, model, serial_number, erased_at, report, created_at)
    SELECT gen_random_uuid(), ${org}, gen_random_uuid()::text, 'synced', 'Dell', 'Latitude 5440', 'ER-' || g, now(),
      jsonb_build_object('method', 'NIST 800-88 Purge', 'drives', jsonb_build_array(jsonb_build_object('serial', 'D' || g, 'capacity_gb', 512, 'result', 'erased'))), now()
    FROM generate_series(1, $2) g`,
    orgId,
    scaled(0.001),
  );
  await q(
    `INSERT INTO sbti_targets (id, org_id, name, scope, base_year, base_year_kg_co2e, target_year, reduction_pct)
    SELECT gen_random_uuid(), ${org}, 'Target ' || g, 'scope3', 2020, 1.5e6, 2030 + g, 42 FROM generate_series(1, 5) g`,
    orgId,
  );
  await q(
    `INSERT INTO scenario_runs (id, org_id, kind, asset_ids, result, created_at)
    SELECT gen_random_uuid(), ${org}, 'simulate_refurbish', ARRAY(SELECT id FROM assets WHERE org_id = ${org} ORDER BY id OFFSET g LIMIT 50),
      jsonb_build_object('current_quarterly_co2e', 12000.5, 'scenario_quarterly_co2e', 3000.25, 'delta_kg_co2e', -9000.25, 'delta_percentage', -75, 'affected_assets_count', 50, 'grade', 'B',
        'assumptions', jsonb_build_array('Original production is treated as an impact already incurred', 'Joint end-of-life handling is excluded')), now()
    FROM generate_series(1, $2) g`,
    orgId,
    scaled(0.0005),
  );
  await q(
    `INSERT INTO usage_counters (bucket, org_id, api_key_id, "window", window_start, count)
    SELECT 'day:' || to_char(d, 'YYYY-MM-DD') || ':key:' || k.id, ${org}, k.id, 'day', d, 500
    FROM generate_series(now() - interval '99 days', now(), interval '1 day') d CROSS JOIN (SELECT id FROM api_keys WHERE org_id = ${org} ORDER BY id LIMIT 20) k`,
    orgId,
  );
  // Asset events fill up to the exact total: status changes.
  const counts = await countRows(services, orgId);
  const missing = ROWS - Object.values(counts).reduce((a, b) => a + b, 0);
  if (missing < 0) throw new Error(`seeded ${-missing} rows too many (${JSON.stringify(counts)}); lower BENCH_EXPORT_ASSETS`);
  await q(
    `INSERT INTO asset_events (id, org_id, asset_id, event, from_value, to_value, data, created_at)
    SELECT gen_random_uuid(), ${org}, a.id, 'asset.status_changed', 'in_use', a.status::text, jsonb_build_object('import_id', gen_random_uuid()), now()
    FROM (SELECT id, status FROM assets WHERE org_id = ${org} ORDER BY id LIMIT $2) a`,
    orgId,
    missing,
  );
  await q('ANALYZE');
}

async function countRows(services: Services, orgId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of EXPORT_TABLES) {
    const [row] = await services.db.prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM "${table}" WHERE "${ownerColumn(table)}" = $1::uuid`,
      orgId,
    );
    counts[table] = row!.n;
  }
  return counts;
}

function child(kind: ProcessKind, url: string, orgId: string, file: string, dataDir: string): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--export', kind, url, orgId, file, dataDir], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`export child exited with ${code}`))));
  });
}

async function zipEntries(file: string): Promise<Map<string, number>> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true });
  const sizes = new Map<string, number>();
  for await (const entry of zip.eachEntry()) sizes.set(entry.fileName, entry.uncompressedSize);
  zip.close();
  return sizes;
}

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function main() {
  const db = await freshPostgres();
  const tmp = await mkdtemp(path.join(tmpdir(), 'lcf-bench-export-'));
  let orgId = '';
  try {
    const services = await servicesFor(db.url, tmp);
    const org = await services.db.prisma.organization.create({ data: { name: 'Bench export', plan: 'enterprise' } });
    orgId = org.id;
    console.log(`seeding ${ROWS} rows into one organisation (${ASSETS} assets with seed-demo) …`);
    const seedStart = performance.now();
    const { seedDemo } = await import('../src/assets/seed-demo.ts');
    await seedDemo(services.db.prisma, org.id, ASSETS, () => {}, {
      services: { reference: services.reference, footprint: services.footprint },
      seed: 42,
    });
    await seedOthers(services, org.id, Math.round(ASSETS * 0.55));
    const counts = await countRows(services, org.id);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const [size] = await services.db.prisma.$queryRawUnsafe<{ mb: number }[]>(
      `SELECT (pg_database_size(current_database()) / 1048576)::int AS mb`,
    );
    console.log(`seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s: ${total} rows, database ${size!.mb} MB`);
    console.table(counts);
    await (await loadStartup()).stopServices(services);

    const file = path.join(tmp, 'export.zip');
    const loadBefore = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    console.log(`exporting (page ${PAGE} rows, deflate level ${LEVEL}); load average before: ${loadBefore}`);
    const runs = {
      database: await child('database', db.url, org.id, file, tmp),
      worker: await child('worker', db.url, org.id, file, tmp),
      services: await child('services', db.url, org.id, file, tmp),
    };
    const loadAfter = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');

    // The archive as written (by the second run): whole-file hash and size, 24 entries, counts as in the database.
    const r = runs.services;
    const entries = await zipEntries(file);
    const problems: string[] = [];
    if ((await stat(file)).size !== r.bytes) problems.push('ZIP size differs from the reported bytes');
    if ((await fileSha256(file)) !== r.sha256) problems.push('ZIP SHA-256 differs from the reported one');
    if (entries.size !== 24) problems.push(`${entries.size} entries instead of 24`);
    for (const table of EXPORT_TABLES)
      if (r.recordCounts[table] !== counts[table]) problems.push(`${table}: ${r.recordCounts[table]} lines, ${counts[table]} rows`);
    const uncompressed = [...entries.values()].reduce((a, b) => a + b, 0);

    console.log(
      `\nexport of ${r.totalRows} rows (22 tables) on PostgreSQL, ZIP ${(r.bytes / 2 ** 20).toFixed(1)} MB (JSON Lines ${(uncompressed / 2 ** 20).toFixed(1)} MB):`,
    );
    const row = (run: ChildResult) => ({
      'wall (s)': +run.seconds.toFixed(1),
      'rows/s': Math.round(run.totalRows / run.seconds),
      'CPU (s)': +run.cpuSeconds.toFixed(1),
      'RSS before (MB)': Math.round(run.baselineRssMb),
      'RSS at 1/4, 1/2, 3/4, all rows (MB)': run.rssByQuarter.join(' / '),
      'peak RSS, sampled (MB)': Math.round(run.sampledPeakRssMb),
      'peak RSS, maxRSS (MB)': Math.round(run.maxRssMb),
    });
    console.table({
      'process with the database only': row(runs.database),
      'lcf worker process': row(runs.worker),
      'server process (inline worker)': row(runs.services),
    });
    console.log(`load average (1/5/15 min) before: ${loadBefore}; after: ${loadAfter}; targets: <= 60 s, <= 300 MB`);
    if (problems.length) {
      console.error(`archive check FAILED:\n  ${problems.join('\n  ')}`);
      process.exitCode = 1;
    } else {
      console.log('archive check: 24 entries, line counts = count(*) per table, size and SHA-256 as reported');
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
    if (KEEP)
      console.log(
        `kept database ${db.url} (organisation ${orgId}); export again: node --import tsx bench/export.ts --export services|database ${db.url} ${orgId} FILE DATA_DIR`,
      );
    else await db.drop();
  }
}

if (process.argv[2] === '--export') {
  const [kind, url, orgId, file, dataDir] = process.argv.slice(3) as [ProcessKind, string, string, string, string];
  await runExport(kind, url, orgId, file, dataDir);
} else {
  await main();
}
