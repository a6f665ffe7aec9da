import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import autocannon from 'autocannon';
import { freePort, ROOT, startCommandOf } from '../test/support/process.ts';

export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

/** The p-th percentile of `values` (ms), to 0.1. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;
}

/** Runs the `lcf` command from the sources (its stderr shown, e.g. seed progress); its exit code and output. */
export function runLcf(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout }));
  });
}

/**
 * A fresh database on the PostgreSQL server of BENCH_DATABASE_URL (default: the local test server), dropped by
 * `drop`. With `keep`, the database of that name instead: made if missing (`created`), never dropped, so a bench
 * can reuse what an earlier run seeded.
 */
export async function freshPostgres(keep?: string): Promise<{ url: string; created: boolean; drop: () => Promise<void> }> {
  const server = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
  if (keep !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(keep)) throw new Error(`not a database name: ${keep}`);
  const name = keep ?? `lcf_bench_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    const result = await client.query(sql);
    await client.end();
    return result;
  };
  const exists = keep !== undefined && (await admin(`SELECT 1 FROM pg_database WHERE datname = '${name}'`)).rowCount === 1;
  if (!exists) await admin(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  const drop = keep ? async () => {} : async () => void (await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  return { url: url.toString(), created: !exists, drop };
}

/** `probe`: a module loaded into the service before src/main.ts, talking to the bench over IPC; `nodeArgs`: node options of the service. */
export async function startService(
  env: Record<string, string>,
  { probe, nodeArgs = [] }: { probe?: string; nodeArgs?: string[] } = {},
): Promise<{ url: string; stop: () => Promise<void>; child: ChildProcess }> {
  const port = await freePort();
  // BENCH_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the service under load; a
  // V8 flag given there wins over the same flag of the start script's.
  const benchArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  // BENCH_COMPILED=1 starts the build in dist/ (`node scripts/build.js` first), as `npm start` does;
  // tsx then loads only the probe (TypeScript), if any.
  const compiled = process.env.BENCH_COMPILED === '1';
  const tsx = compiled && !probe ? [] : ['--import', 'tsx'];
  const start = startCommandOf(ROOT, {
    nodeArgs: [...nodeArgs, ...benchArgs, ...tsx, ...(probe ? ['--import', probe] : [])],
    ...(compiled ? {} : { entry: 'src/main.ts' }),
  });
  const child = spawn(start.command, start.args, {
    cwd: ROOT,
    env: { ...process.env, ...start.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ADMIN_TOKEN: BENCH_ADMIN_TOKEN, ...env },
    stdio: ['ignore', 'inherit', 'inherit', ...(probe ? ['ipc' as const] : [])],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/readyz`, child);
  return { url, stop: () => stop(child), child };
}

/**
 * The machine's reference: a bare node:http server answering `body` to every request, loaded as the service is
 * (2 s of warm-up, then `seconds` at 50 connections). Shares of it compare runs on a machine whose speed moves
 * (docs/benchmarks.md).
 */
export async function measureBare(body: string, seconds: number): Promise<LoadResult> {
  const bare = await startBareServer(body);
  try {
    await load({ url: bare.url, duration: 2 });
    return await load({ url: bare.url, duration: seconds });
  } finally {
    await bare.stop();
  }
}

/** A bare node:http server answering every request with the same JSON body. */
async function startBareServer(body: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const code = `require('node:http').createServer((q, s) => { s.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(process.env.BODY) }); s.end(process.env.BODY); }).listen(${port}, '127.0.0.1')`;
  const child = spawn(process.execPath, ['-e', code], { env: { ...process.env, BODY: body }, stdio: 'inherit' });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(url, child);
  return { url, stop: () => stop(child) };
}

async function waitFor(url: string, child: ChildProcess) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}`);
    if (
      await fetch(url).then(
        (r) => r.status < 500,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export async function load(options: autocannon.Options): Promise<LoadResult> {
  const result = await autocannon({ connections: 50, duration: 10, ...options });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

const WARM_TOLERANCE = 0.1;

/**
 * Loads the service until it is hot: one-second runs until two in a row are within WARM_TOLERANCE of each other in
 * req/s (at least `minSeconds`, at most `maxSeconds`). A fixed two seconds was not enough: until each query's first
 * calculation is stored and its answer held, and the code compiled, requests take the whole pipeline, for 6-11 s of
 * the footprint case on a 2-core machine, and that tail landed in the measured run (docs/benchmarks.md).
 */
export async function warmUp(
  options: autocannon.Options,
  { minSeconds = 2, maxSeconds = 15 }: { minSeconds?: number; maxSeconds?: number } = {},
): Promise<{ seconds: number; rps: number[] }> {
  const rps: number[] = [];
  while (rps.length < maxSeconds) {
    rps.push((await load({ ...options, duration: 1 })).rps);
    const [previous, last] = rps.slice(-2);
    if (rps.length >= minSeconds && previous !== undefined && Math.abs(last! - previous) <= WARM_TOLERANCE * previous) break;
  }
  return { seconds: rps.length, rps };
}

export async function adminJson(url: string, path: string, body: unknown) {
  const res = await fetch(`${url}/admin/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, string>>;
}

/** Catalogue devices (brand, model, category) the import benches spread their rows over. */
export const BENCH_DEVICES = [
  ['Dell', 'Latitude 5440', 'laptop'],
  ['Lenovo', 'ThinkPad T14 Gen 4', 'laptop'],
  ['HP', 'EliteBook 840 G10', 'laptop'],
  ['Apple', 'MacBook Air 13 M2', 'laptop'],
  ['HP', 'EliteDesk 800 G9', 'desktop'],
  ['Dell', 'P2423D', 'monitor'],
  ['Apple', 'iPhone 15', 'smartphone'],
  ['Samsung', 'Galaxy Tab S9', 'tablet'],
  ['Dell', 'PowerEdge R660', 'server'],
  ['Cisco', 'Catalyst 9200', 'network_switch'],
] as const;
/** Asset statuses in the proportions of a working estate: mostly in use. */
export const BENCH_STATUSES = ['in_use', 'in_use', 'in_use', 'in_stock', 'in_repair', 'refurbished'] as const;

/** A process's resident memory in MB (/proc VmRSS), undefined once it has ended. */
export function rssMb(pid: number): number | undefined {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system, all threads) a process has used: fields 14 and 15 of /proc/<pid>/stat, in clock ticks. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const IMPORT_COUNTRIES = ['DE', 'FR', 'NL', 'GB', 'US-CA', 'PL', 'SE', 'ES', 'JP', 'US'];

/** Rows `from`..`from + size` of the import benches: catalogue devices spread over countries, statuses and purchase dates. */
export function importBatch(from: number, size: number) {
  return Array.from({ length: size }, (_, k) => {
    const r = from + k;
    const [brand, model, category] = BENCH_DEVICES[r % BENCH_DEVICES.length]!;
    return {
      brand,
      model,
      category,
      serial_number: `IMP-${String(r).padStart(7, '0')}`,
      purchase_date: `202${r % 6}-0${(r % 9) + 1}-${String((r % 28) + 1).padStart(2, '0')}`,
      country: IMPORT_COUNTRIES[Math.floor(r / BENCH_DEVICES.length) % IMPORT_COUNTRIES.length],
      status: BENCH_STATUSES[r % BENCH_STATUSES.length],
      ...(category === 'laptop' ? { ram_gb: 8 + (r % 3) * 8 } : {}),
    };
  });
}
