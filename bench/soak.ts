// npm run bench:soak — SOAK_SECONDS (default 600) of mixed traffic against the real server on
// PostgreSQL + Redis, SOAK_CONCURRENCY (default 24) requests in flight, 1% of them hostile (very
// long strings, NUL bytes and lone surrogates, huge bodies, bad JSON, bad percent-encoding, deep
// or wide GraphQL). Samples the server's RSS every second and its event-loop delay (measured
// inside the server by bench/event-loop-probe.ts); a warm-up of a tenth of the run (at most 15 s)
// is not counted. Prints requests, the server's CPU time per request (comparable on a busy machine,
// where req/s is not), statuses, error codes, latencies, RSS and event-loop delay, and
// the RSS again after SOAK_IDLE_SECONDS (default 60) without traffic (issue 39: under 250 MB).
// BENCH_SOAK_DB=pglite runs the same on the embedded database (a temporary DATA_DIR, no Redis).
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import type { ChildProcess } from 'node:child_process';
import type { ProbeReport } from './event-loop-probe.ts';
import { adminJson, cpuSeconds, freshPostgres, rssMb, startService } from './support.ts';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 24);
const IDLE_SECONDS = Number(process.env.SOAK_IDLE_SECONDS ?? 60);
const onPglite = process.env.BENCH_SOAK_DB === 'pglite';
// The probe (TypeScript, through tsx) only from the sources on PostgreSQL: PGlite's worker thread
// inherits the node options and fails to load it, and with the build tsx's hooks on every module of
// dist/ held about 250 MB of their own (ready at 397 instead of 148 MB on PostgreSQL, 2026-11-29).
const withProbe = !onPglite && process.env.BENCH_COMPILED !== '1';
const WARM_UP_SECONDS = Math.min(15, Math.ceil(SECONDS / 10));
const HOSTILE_SHARE = 0.01;
const TIMEOUT_MS = 30_000;
const QUOTA_LIMITS = 'day.enterprise=1000000000,minute.enterprise=1000000000,day.free=1000000000,minute.free=1000000000';

interface Call {
  /** Route (or hostile kind) the result is reported under. */
  name: string;
  hostile: boolean;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  contentType?: string;
}

// ------------------------------------------------------------------------------- traffic

const DEVICES = [
  { brand: 'Dell', model: 'Latitude 5440', category: 'laptop' },
  { brand: 'Lenovo', model: 'ThinkPad T14 Gen 4', category: 'laptop' },
  { brand: 'Apple', model: 'MacBook Air M2', category: 'laptop' },
  { brand: 'HP', model: 'EliteDesk 800 G9', category: 'desktop' },
  { brand: 'Dell', model: 'P2423D', category: 'monitor' },
  { brand: 'Apple', model: 'iPhone 15', category: 'smartphone' },
  { brand: 'Samsung', model: 'Galaxy Tab S9', category: 'tablet' },
  { brand: 'Dell', model: 'PowerEdge R660', category: 'server' },
  { brand: 'Cisco', model: 'Catalyst 9200', category: 'network_switch' },
  { brand: 'Acme', model: 'Unknown Box 3000', category: 'laptop' },
];
const COUNTRIES = ['DE', 'FR', 'US', 'US-CA', 'PL', 'JP', 'GB', 'SE', 'IN', 'BR', 'AU', 'NL'];
const SEARCHES = [
  'latitude 5440',
  'thinkpad t14',
  'iphone 15',
  'elitebook',
  'optiplex 7010',
  'galaxy s23',
  'macbook air',
  'poweredge',
  'surface pro',
  'precision 3680',
];

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
/** Catalogue devices as sent; laptops sometimes with a weight, so that query strings keep changing. */
function device(): Record<string, string | number> {
  const d = { ...pick(DEVICES), country: pick(COUNTRIES) };
  return d.category === 'laptop' && Math.random() < 0.3 ? { ...d, weight_kg: 1 + Math.round(Math.random() * 150) / 100 } : d;
}
const query = (params: Record<string, string | number>) => new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
const typo = (text: string) => (Math.random() < 0.3 ? text.slice(0, 3) + text.slice(4) : text);
const get = (name: string, path: string, hostile = false): Call => ({ name, hostile, method: 'GET', path });
const post = (name: string, path: string, body: string, hostile = false, contentType = 'application/json'): Call => ({
  name,
  hostile,
  method: 'POST',
  path,
  body,
  contentType,
});
const graphql = (name: string, document: string, variables: Record<string, unknown> = {}, hostile = false) =>
  post(name, '/v1/graphql', JSON.stringify({ query: document, variables }), hostile);
const serial = () => `SOAK-${Math.floor(Math.random() * 5000)}`;

const ASSETS_PAGE = readFileSync(new URL('../templates/organization-overview.graphql', import.meta.url), 'utf8');
const FACTOR = readFileSync(new URL('../templates/factor-lookup.graphql', import.meta.url), 'utf8');

const NORMAL: [number, () => Call][] = [
  [30, () => get('GET /v1/footprint', `/v1/footprint?${query(device())}`)],
  [
    6,
    () =>
      post(
        'POST /v1/footprint/batch',
        '/v1/footprint/batch',
        JSON.stringify({ products: Array.from({ length: 5 + Math.floor(Math.random() * 20) }, device) }),
      ),
  ],
  [7, () => get('GET /v1/savings', `/v1/savings?${query({ ...device(), remaining_years: 1 + Math.floor(Math.random() * 4) })}`)],
  [
    7,
    () =>
      get(
        'GET /v1/refurbishment',
        `/v1/refurbishment?${query({ ...device(), grade: pick(['A', 'B', 'C']), reuse_country: pick(COUNTRIES), swaps: pick(['', 'battery:50', 'storage:512:ssd']) })}`,
      ),
  ],
  [10, () => get('GET /v1/search', `/v1/search?${query({ q: typo(pick(SEARCHES)) })}`)],
  [
    6,
    () => {
      const { brand, model } = pick(DEVICES);
      return post('POST /v1/identify', '/v1/identify', JSON.stringify({ manufacturer: brand, model_string: model }));
    },
  ],
  [6, () => get('GET /v1/reference/*', pick(['/v1/reference/countries', '/v1/reference/categories']))],
  [
    8,
    () =>
      graphql('GraphQL assets page + organization', ASSETS_PAGE, {
        first: pick([20, 50, 100]),
        status: Math.random() < 0.5 ? ['in_use'] : null,
      }),
  ],
  [4, () => graphql('GraphQL organization', '{ organization { id name plan asset_count total_kg_co2e } }')],
  [8, () => graphql('GraphQL factorByRegion', FACTOR, { regionCode: pick(COUNTRIES) })],
  [
    5,
    () => {
      const assets = Array.from({ length: 1 + Math.floor(Math.random() * 5) }, () => ({
        ...device(),
        serial_number: serial(),
        status: pick(['in_use', 'in_stock', 'refurbished']),
      }));
      return post('POST /v1/assets', '/v1/assets', JSON.stringify({ assets }));
    },
  ],
];

const long = (n: number) => 'X'.repeat(n);
let hugeJson: string | undefined;
// 12 MB: built once, the bench's own CPU is shared with the server.
const huge = () => (hugeJson ??= JSON.stringify({ products: Array.from({ length: 200_000 }, () => ({ brand: long(40), country: 'DE' })) }));
const deep = (n: number) => `{ __schema { types { ${'ofType { '.repeat(n)}name${' }'.repeat(n)} } } }`;
const wide = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }`;

const HOSTILE: (() => Call)[] = [
  () => get('hostile: long string', `/v1/footprint?brand=Dell&model=x&country=${long(15_000)}`, true),
  () => get('hostile: long string', `/v1/footprint?brand=Dell&model=x&country=${long(100_000)}`, true),
  () =>
    post(
      'hostile: long string',
      '/v1/footprint/batch',
      JSON.stringify({ products: [{ brand: 'HP', model: 'x', country: long(100_000) }] }),
      true,
    ),
  () => post('hostile: long string', '/v1/identify', JSON.stringify({ model_string: long(100_000) }), true),
  () => graphql('hostile: long string', FACTOR, { regionCode: long(30_000) }, true),
  () => get('hostile: NUL / lone surrogate', '/v1/footprint?brand=Dell&model=Lat%00itude&country=DE', true),
  () => get('hostile: NUL / lone surrogate', '/v1/search?q=lat%ED%A0%80itude', true),
  () =>
    post(
      'hostile: NUL / lone surrogate',
      '/v1/footprint/batch',
      JSON.stringify({ products: [{ brand: 'Dell\u0000', model: 'x\ud800', country: 'DE' }] }),
      true,
    ),
  () =>
    post(
      'hostile: NUL / lone surrogate',
      '/v1/assets',
      JSON.stringify({ assets: [{ brand: 'Dell', model: 'x', country: 'DE', serial_number: `N\u0000${randomUUID()}` }] }),
      true,
    ),
  () => post('hostile: huge body', '/v1/footprint/batch', huge(), true),
  () => post('hostile: huge body', '/v1/graphql', huge(), true),
  () => post('hostile: bad JSON', '/v1/footprint/batch', '{"products": [', true),
  () => post('hostile: bad JSON', '/v1/footprint/batch', 'null', true),
  () => post('hostile: bad JSON', '/v1/graphql', '{query', true),
  () => post('hostile: bad JSON', '/v1/graphql', '{ organization { id } }', true, 'text/plain'),
  () => get('hostile: bad percent-encoding', '/v1/footprint?brand=Dell%ZZ&model=x&country=DE', true),
  () => get('hostile: bad percent-encoding', '/admin/v1/orgs/%ZZ', true),
  () => get('hostile: bad percent-encoding', '/v1/graphql?query=%7B__typename%7D&variables=%7Bbad', true),
  () => graphql('hostile: deep/wide GraphQL', deep(300), {}, true),
  () => graphql('hostile: deep/wide GraphQL', wide(3_000), {}, true),
];

const totalWeight = NORMAL.reduce((sum, [weight]) => sum + weight, 0);
function nextCall(): Call {
  if (Math.random() < HOSTILE_SHARE) return pick(HOSTILE)();
  let r = Math.random() * totalWeight;
  for (const [weight, make] of NORMAL) if ((r -= weight) < 0) return make();
  return NORMAL[0]![1]();
}

// ------------------------------------------------------------------------------- measuring

interface Outcome {
  name: string;
  hostile: boolean;
  status: number | string;
  ms: number;
  /** `code` of an error body (ApiError or GraphQL extensions), or what was wrong with the body. */
  code?: string;
}

function errorCode(call: Call, status: number, text: string): string | undefined {
  // GraphQL reports errors in a 200 too.
  if (status < 400 && !(call.path === '/v1/graphql' && text.includes('"errors"'))) return undefined;
  if (text === '') return 'empty body';
  try {
    const body = JSON.parse(text) as { code?: string; errors?: { extensions?: { code?: string } }[]; found?: boolean };
    // /identify answers an unknown product with the spec's {found: false, ...} body.
    return body.code ?? body.errors?.[0]?.extensions?.code ?? (body.found === false ? 'found: false' : 'JSON without code');
  } catch {
    return 'not JSON';
  }
}

async function send(baseUrl: string, key: string, call: Call): Promise<Outcome> {
  const started = performance.now();
  const outcome = (status: Outcome['status'], code?: string): Outcome => ({
    name: call.name,
    hostile: call.hostile,
    status,
    ms: performance.now() - started,
    code,
  });
  try {
    const res = await fetch(baseUrl + call.path, {
      method: call.method,
      headers: { authorization: `Bearer ${key}`, ...(call.contentType ? { 'content-type': call.contentType } : {}) },
      body: call.body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await res.text();
    return outcome(res.status, errorCode(call, res.status, text));
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return outcome((error as Error).name === 'TimeoutError' ? 'timeout' : (cause?.code ?? (error as Error).name));
  }
}

/** CONCURRENCY loops, each sending its next request when the previous one is answered. */
async function run(baseUrl: string, key: string, seconds: number): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) outcomes.push(await send(baseUrl, key, nextCall()));
    }),
  );
  return outcomes;
}

/** The probe's event-loop delay (since the last 'reset') and process.memoryUsage(). */
function probeReport(child: ChildProcess, message: 'report' | 'collect' = 'report'): Promise<ProbeReport> {
  return new Promise((resolve) => {
    child.once('message', (report) => resolve(report as ProbeReport));
    child.send(message);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
}

const round = (n: number) => Math.round(n * 10) / 10;
const countBy = <T>(items: T[], key: (item: T) => string | undefined) => {
  const counts: Record<string, number> = {};
  for (const item of items) {
    const k = key(item);
    if (k !== undefined) counts[k] = (counts[k] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).sort(([, a], [, b]) => b - a));
};
const histogramText = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ') || 'none';

function latencies(outcomes: Outcome[]) {
  const sorted = outcomes.map((o) => o.ms).sort((a, b) => a - b);
  return { p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1) ?? NaN) };
}

// ------------------------------------------------------------------------------- run

const db = onPglite ? undefined : await freshPostgres();
const dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-bench-soak-'));
const service = await startService(
  {
    ...(db ? { DATABASE_URL: db.url, REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379' } : {}),
    DATA_DIR: dataDir,
    QUOTA_LIMITS,
  },
  // --expose-gc: the live heap after a full GC at the end tells retained memory from GC headroom.
  !withProbe ? {} : { probe: new URL('./event-loop-probe.ts', import.meta.url).pathname, nodeArgs: ['--expose-gc'] },
);
const pid = service.child.pid!;
const exited = (code: number | null, signal: string | null) => console.log(`server exited during the run (${signal ?? code})`);
service.child.once('exit', exited);
try {
  const org = await adminJson(service.url, '/orgs', { name: 'Soak', plan: 'enterprise' });
  const { key } = await adminJson(service.url, '/keys', { org_id: org.id });
  const rssReady = rssMb(pid)!;

  console.log(`warm-up ${WARM_UP_SECONDS} s, then ${SECONDS} s at ${CONCURRENCY} in flight (pid ${pid})`);
  await run(service.url, key!, WARM_UP_SECONDS);
  const memoryStart = withProbe ? (await probeReport(service.child)).memory : undefined;
  if (withProbe) service.child.send('reset');

  const rss: number[] = [rssMb(pid)!];
  // The machine may be shared: its load puts the latencies in context.
  const load: number[] = [];
  const sampler = setInterval(() => {
    const now = rssMb(pid);
    if (now !== undefined) rss.push(now);
    load.push(loadavg()[0]!);
    if (rss.length % 60 === 0) console.log(`  ${rss.length / 60} min: RSS ${Math.round(rss.at(-1)!)} MB`);
  }, 1000);
  const started = performance.now();
  const cpuStart = cpuSeconds(pid);
  const outcomes = await run(service.url, key!, SECONDS);
  const elapsed = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(pid) - cpuStart;
  clearInterval(sampler);
  const report = withProbe ? await probeReport(service.child, 'collect') : undefined;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const rssAfterGc = rssMb(pid)!;
  // Without traffic: idle timers (render threads, pools, caches) get their chance to give memory back.
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  const rssIdle = rssMb(pid)!;

  const normal = outcomes.filter((o) => !o.hostile);
  const hostile = outcomes.filter((o) => o.hostile);
  const statuses = countBy(outcomes, (o) => String(o.status));
  const fiveHundreds = outcomes.filter((o) => typeof o.status === 'number' && o.status >= 500).length;
  const mb = (bytes: number) => Math.round(bytes / 1048576);

  console.log(
    `\nrequests sent: ${outcomes.length} in ${round(elapsed)} s (${Math.round(outcomes.length / elapsed)} req/s), ${hostile.length} hostile`,
  );
  // CPU per request compares builds and flags (e.g. the garbage collector's share) on a busy machine,
  // where req/s mostly follows the other work.
  console.log(`server CPU: ${round(cpu)} s, ${round((cpu * 1000) / outcomes.length)} ms per request`);
  console.log(`status histogram: ${histogramText(statuses)}`);
  console.log(
    `5xx: ${fiveHundreds}; no answer (by kind): ${histogramText(countBy(outcomes, (o) => (typeof o.status === 'string' ? o.status : undefined)))}`,
  );
  console.log(`error codes (normal): ${histogramText(countBy(normal, (o) => o.code))}`);
  console.log(`error codes (hostile): ${histogramText(countBy(hostile, (o) => o.code))}`);
  console.log(
    `machine load average during the run: ${round(load.reduce((a, b) => a + b, 0) / load.length)} on ${availableParallelism()} CPUs`,
  );
  console.log(`responses slower than 1 s: ${outcomes.filter((o) => o.ms > 1000).length}`);
  console.table(
    Object.fromEntries(
      [...new Set(outcomes.map((o) => o.name))].sort().map((name) => {
        const mine = outcomes.filter((o) => o.name === name);
        return [name, { requests: mine.length, statuses: histogramText(countBy(mine, (o) => String(o.status))), ...latencies(mine) }];
      }),
    ),
  );
  const all = latencies(normal);
  console.log(`latency (normal requests, ms): p50 ${all.p50}, p99 ${all.p99}, max ${all.max}; hostile: p99 ${latencies(hostile).p99}`);
  console.log(
    `RSS (MB): ready ${Math.round(rssReady)}, start (after warm-up) ${Math.round(rss[0]!)}, peak ${Math.round(Math.max(...rss))}, end ${Math.round(rss.at(-1)!)}, ${withProbe ? 'after a full GC' : '1 s later'} ${Math.round(rssAfterGc)}, after ${IDLE_SECONDS} s idle ${Math.round(rssIdle)} (${onPglite ? 'PGlite' : 'PostgreSQL + Redis'})`,
  );
  if (memoryStart && report) {
    console.log(
      `V8 heap used/committed (MB): start ${mb(memoryStart.heapUsed)}/${mb(memoryStart.heapTotal)}, end ${mb(report.memory.heapUsed)}/${mb(report.memory.heapTotal)}; live after a full GC ${mb(report.liveHeap ?? NaN)}; external ${mb(memoryStart.external)} -> ${mb(report.memory.external)}`,
    );
    const { delay } = report;
    console.log(`event-loop delay (ms): p50 ${round(delay.p50)}, p99 ${round(delay.p99)}, max ${round(delay.max)}`);
  }
} finally {
  service.child.off('exit', exited);
  await service.stop();
  await db?.drop();
  await rm(dataDir, { recursive: true, force: true });
}
