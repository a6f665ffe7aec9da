// npm run bench:footprint — in one run, a bare node:http server answering a fixed JSON body the size
// of a footprint, then the service on the embedded database (PGlite, a new data directory) and on
// PostgreSQL + Redis (a fresh database; BENCH_REDIS_URL, default redis://127.0.0.1:6379): a keyed
// GET /v1/footprint, a keyed GET /v1/reference/categories, a keyed GET /v1/search and GET /healthz,
// each driven by autocannon (50 connections, BENCH_SECONDS=5 s), and POST /v1/footprint/batch of 100
// products on one connection. Prints req/s, p50, p99 and the share of bare's req/s beside the issue 39
// targets as a Markdown table, and writes the figures as JSON (BENCH_OUT, default
// bench/results/footprint.json) for docs/benchmarks.md. BENCH_ONLY=embedded or BENCH_ONLY=postgres
// runs one database, BENCH_CASES=footprint,healthz,batch some of the cases (e.g. to profile them). Each case is
// warmed up until its req/s is steady (warmUp), and the bare server is measured right before each case and once after
// the last: a case's share is taken against the mean of the bare runs on either side of it, since on a shared machine
// the bare figure moves by a third from one minute to the next.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { adminJson, freshPostgres, type LoadResult, load, measureBare, startService, warmUp } from './support.ts';

const DEVICES = [
  { brand: 'Dell', model: 'Latitude 5440', category: 'laptop' },
  { brand: 'Lenovo', model: 'ThinkPad T14 Gen 4', category: 'laptop' },
  { brand: 'HP', model: 'EliteDesk 800 G9', category: 'desktop' },
  { brand: 'Dell', model: 'P2423D', category: 'monitor' },
  { brand: 'Apple', model: 'iPhone 15', category: 'smartphone' },
  { brand: 'Samsung', model: 'Galaxy Tab S9', category: 'tablet' },
  { brand: 'Dell', model: 'PowerEdge R660', category: 'server' },
  { brand: 'Cisco', model: 'Catalyst 9200', category: 'network_switch' },
];
const COUNTRIES = ['DE', 'FR', 'US', 'US-CA', 'PL', 'JP'];
const SEARCHES = ['latitude 5440', 'thinkpad t14', 'iphone 15 pro', 'dell p2422h', 'poweredge r660', 'galaxy tab'];

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
// Quotas are checked on every keyed request, with limits high enough not to refuse the benchmark's own load.
const QUOTA_LIMITS = 'day.enterprise=100000000,minute.enterprise=100000000,day.free=100000000,minute.free=100000000';
const ONLY_CASES = process.env.BENCH_CASES?.split(',');
const OUT = process.env.BENCH_OUT ?? path.join(import.meta.dirname, 'results', 'footprint.json');

type CaseName = 'footprint' | 'reference' | 'search' | 'healthz';
type Setup = 'embedded' | 'postgres';
const CASES: Record<CaseName, { label: string; paths: string[]; keyed: boolean }> = {
  footprint: {
    label: 'GET /v1/footprint (keyed)',
    paths: DEVICES.flatMap((d) => COUNTRIES.map((country) => `/v1/footprint?${new URLSearchParams({ ...d, country })}`)),
    keyed: true,
  },
  reference: { label: 'GET /v1/reference/categories (keyed)', paths: ['/v1/reference/categories'], keyed: true },
  search: { label: 'GET /v1/search?q= (keyed)', paths: SEARCHES.map((q) => `/v1/search?${new URLSearchParams({ q })}`), keyed: true },
  healthz: { label: 'GET /healthz', paths: ['/healthz'], keyed: false },
};
/** Issue 39's targets: the least share of bare's req/s, and for PostgreSQL + Redis's footprint the most p99. */
const TARGETS: Record<Setup, Partial<Record<CaseName, { share: number; p99?: number }>>> = {
  embedded: { footprint: { share: 15 }, reference: { share: 30 }, search: { share: 15 } },
  postgres: { footprint: { share: 25, p99: 25 }, healthz: { share: 50 } },
};

interface Row extends LoadResult {
  setup: Setup | 'bare';
  case: string;
  /** req/s of each second of the warm-up before the measured run */
  warm_up_rps?: number[];
  share?: number;
  target?: string;
  verdict?: 'pass' | 'miss';
}

async function measureSetup(setup: Setup): Promise<Row[]> {
  const db = setup === 'postgres' ? await freshPostgres() : undefined;
  const dataDir = setup === 'embedded' ? await mkdtemp(path.join(tmpdir(), 'lcf-bench-')) : undefined;
  const service = await startService({
    DATABASE_URL: db?.url ?? '',
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
    ...(setup === 'postgres' ? { REDIS_URL } : {}),
    QUOTA_LIMITS,
  });
  try {
    const org = await adminJson(service.url, '/orgs', { name: 'Bench', plan: 'enterprise' });
    const { key } = await adminJson(service.url, '/keys', { org_id: org.id });
    const sample = await fetch(`${service.url}${CASES.footprint.paths[0]}`, { headers: { authorization: `Bearer ${key}` } });
    if (!sample.ok) throw new Error(`footprint sample: ${sample.status} ${await sample.text()}`);
    const body = await sample.text();
    const bodyBytes = Buffer.byteLength(body);
    const rows: Row[] = [];
    const cases = (Object.entries(CASES) as [CaseName, (typeof CASES)[CaseName]][]).filter(
      ([name]) => !ONLY_CASES || ONLY_CASES.includes(name),
    );
    let bareBefore = await measureBare(body, SECONDS);
    rows.push({ setup: 'bare', case: `bare node:http, ${bodyBytes} bytes (before ${setup})`, ...bareBefore });
    for (const [index, [name, { label, paths, keyed }]] of cases.entries()) {
      const headers: Record<string, string> = keyed ? { authorization: `Bearer ${key}` } : {};
      const requests = paths.map((p) => ({ path: p, headers }));
      const warm = await warmUp({ url: service.url, requests }); // measured hot
      const result = await load({ url: service.url, requests, duration: SECONDS });
      const bareAfter = await measureBare(body, SECONDS);
      const bare = (bareBefore.rps + bareAfter.rps) / 2;
      const share = Math.round((result.rps / bare) * 1000) / 10;
      const target = TARGETS[setup][name];
      const pass = target && share >= target.share && (target.p99 === undefined || result.p99 <= target.p99);
      rows.push({
        setup,
        case: `${label}, warm-up ${warm.seconds} s`,
        ...result,
        warm_up_rps: warm.rps,
        share,
        ...(target
          ? { target: `>= ${target.share} %${target.p99 ? `, p99 <= ${target.p99} ms` : ''}`, verdict: pass ? 'pass' : 'miss' }
          : {}),
      });
      rows.push({
        setup: 'bare',
        case: `bare node:http, ${bodyBytes} bytes (after ${name}${index === cases.length - 1 ? '' : `, before ${cases[index + 1]![0]}`})`,
        ...bareAfter,
      });
      bareBefore = bareAfter;
    }
    // The batch of 100, one connection (its p50 is the figure earlier issues compared).
    if (ONLY_CASES && !ONLY_CASES.includes('batch')) return rows;
    const batchBody = JSON.stringify({
      products: Array.from({ length: 100 }, (_, i) => ({ ...DEVICES[i % DEVICES.length], country: COUNTRIES[i % COUNTRIES.length] })),
    });
    const batchHeaders = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const batch = await load({
      url: service.url,
      connections: 1,
      duration: SECONDS,
      requests: [{ method: 'POST', path: '/v1/footprint/batch', headers: batchHeaders, body: batchBody }],
    });
    rows.push({ setup, case: 'POST /v1/footprint/batch, 100 items (1 connection)', ...batch });
    return rows;
  } finally {
    await service.stop();
    await db?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

const setups = (['embedded', 'postgres'] as const).filter((s) => !process.env.BENCH_ONLY || process.env.BENCH_ONLY === s);
const startedAt = new Date().toISOString();
const loadBefore = loadavg();
const rows: Row[] = [];
for (const setup of setups) rows.push(...(await measureSetup(setup)));

const loadAfter = loadavg();
console.log(
  `\n${startedAt}; ${SECONDS} s per case, 50 connections; load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after`,
);
// A Markdown table, as docs/benchmarks.md quotes it.
const table = [
  ['setup', 'case', 'req/s', 'p50 ms', 'p99 ms', '% of bare', 'target', 'mark'],
  ...rows.map((r) => [
    r.setup === 'postgres' ? 'PostgreSQL + Redis' : r.setup,
    r.case + (r.non2xx + r.errors ? ` (${r.non2xx} non-2xx, ${r.errors} errors)` : ''),
    String(r.rps),
    String(r.p50),
    String(r.p99),
    r.share === undefined ? '' : String(r.share),
    r.target ?? '',
    r.verdict ?? '',
  ]),
];
const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
const line = (row: string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
console.log([line(table[0]!), line(widths.map((w) => '-'.repeat(w))), ...table.slice(1).map(line)].join('\n'));
await mkdir(path.dirname(OUT), { recursive: true });
await writeFile(
  OUT,
  `${JSON.stringify({ startedAt, seconds: SECONDS, connections: 50, loadavg: { before: loadBefore, after: loadAfter }, rows }, null, 2)}\n`,
);
console.log(`written to ${path.relative(process.cwd(), OUT)}`);
