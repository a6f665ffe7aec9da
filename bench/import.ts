// npm run bench:import — issue 39 point 3, imports that keep their pace beside readers: BENCH_ASSETS
// assets (default 100 000) imported through POST /v1/assets in batches of MAX_IMPORT_ROWS (1 000), one
// batch after the other, into an enterprise organisation while, concurrently, one client pages
// /v1/odata/Assets (following @odata.nextLink, from the start again at the end) with a bi_enabled key
// and a prober polls GET /healthz every 100 ms. Prints the total import time, the first, last and
// slowest batch and last/first, /healthz p50/p99/max, the OData pages read and their p50/max, each
// against issue 39's targets (<= 60 s, last batch <= 2x the first, /healthz <= 200 ms throughout).
// BENCH_ONLY=embedded (PGlite, a new data directory) or BENCH_ONLY=postgres (a fresh database on
// BENCH_DATABASE_URL / TEST_DATABASE_URL + Redis at BENCH_REDIS_URL, default redis://127.0.0.1:6379);
// default both, one after the other. BENCH_READER=0 leaves the reader out. Also prints the CPU time the
// service's process spent during the import (its threads, PGlite's included; PostgreSQL's own not):
// the import's cost, unlike its wall time, hardly depends on what else the machine runs. First it measures a bare
// node:http server for 5 s: the machine's speed, to compare runs by.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { adminJson, cpuSeconds, freshPostgres, importBatch, measureBare, percentile, startService } from './support.ts';
import { MAX_IMPORT_ROWS } from '../src/assets/import-rows.ts';

const N = Number(process.env.BENCH_ASSETS ?? 100_000);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const QUOTA_LIMITS = 'day.enterprise=100000000,minute.enterprise=100000000';
const TARGET_SECONDS = 60;
const TARGET_RATIO = 2;
const TARGET_HEALTHZ_MS = 200;
const READER = process.env.BENCH_READER !== '0';

type Setup = 'embedded' | 'postgres';

async function measure(setup: Setup) {
  const db = setup === 'postgres' ? await freshPostgres() : undefined;
  const dataDir = setup === 'embedded' ? await mkdtemp(path.join(tmpdir(), 'lcf-bench-import-')) : undefined;
  const service = await startService({
    DATABASE_URL: db?.url ?? '',
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
    ...(setup === 'postgres' ? { REDIS_URL } : {}),
    QUOTA_LIMITS,
  });
  let importing = true;
  try {
    const org = await adminJson(service.url, '/orgs', { name: 'Bench import', plan: 'enterprise' });
    const { key } = await adminJson(service.url, '/keys', { org_id: org.id, bi_enabled: true });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

    const batches: number[] = [];
    // The prober: GET /healthz every 100 ms (a request in flight delays the next one).
    const healthz: number[] = [];
    // When each probe started, and how many batches had been answered then: where the slowest one falls.
    const probedAt: { at: number; batches: number }[] = [];
    const prober = (async () => {
      while (importing) {
        const start = performance.now();
        const res = await fetch(`${service.url}/healthz`);
        await res.arrayBuffer();
        healthz.push(performance.now() - start);
        probedAt.push({ at: start, batches: batches.length });
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    // The reader: pages /v1/odata/Assets, from the start again at the end.
    const pages: number[] = [];
    let rowsRead = 0;
    const reader = (async () => {
      let link = `${service.url}/v1/odata/Assets`;
      while (importing && READER) {
        const start = performance.now();
        const res = await fetch(link, { headers });
        const body = (await res.json()) as { value?: unknown[]; '@odata.nextLink'?: string };
        if (!res.ok) throw new Error(`OData page: ${res.status} ${JSON.stringify(body)}`);
        pages.push(performance.now() - start);
        rowsRead += body.value?.length ?? 0;
        const next = body['@odata.nextLink'];
        link = next ? new URL(next, service.url).toString() : `${service.url}/v1/odata/Assets`;
        if (!next) await new Promise((r) => setTimeout(r, 10)); // an empty feed at the start: do not spin
      }
    })();

    const cpuStart = cpuSeconds(service.child.pid!);
    const importStart = performance.now();
    for (let from = 0; from < N; from += MAX_IMPORT_ROWS) {
      const items = importBatch(from, Math.min(MAX_IMPORT_ROWS, N - from));
      const start = performance.now();
      const res = await fetch(`${service.url}/v1/assets`, { method: 'POST', headers, body: JSON.stringify({ assets: items }) });
      const outcome = (await res.json()) as { created?: number; failed?: number; errors?: unknown[] };
      batches.push(performance.now() - start);
      if (!res.ok || outcome.failed) throw new Error(`batch at ${from}: ${res.status} ${JSON.stringify(outcome).slice(0, 500)}`);
      if (batches.length % 10 === 0)
        process.stderr.write(
          `  ${setup}: ${from + items.length} imported, batch ${batches.at(-1)!.toFixed(0)} ms, ${pages.length} OData pages\n`,
        );
    }
    const seconds = (performance.now() - importStart) / 1000;
    const cpu = cpuSeconds(service.child.pid!) - cpuStart;
    importing = false;
    await Promise.all([prober, reader]);

    const first = batches[0]!;
    const last = batches.at(-1)!;
    const max = Math.max(...batches);
    const healthzMax = Math.max(...healthz);
    const slowest = probedAt[healthz.indexOf(healthzMax)]!;
    process.stderr.write(
      `  ${setup}: slowest /healthz ${healthzMax.toFixed(0)} ms, ${((slowest.at - importStart) / 1000).toFixed(1)} s into the import, during batch ${slowest.batches + 1}\n`,
    );
    // The trend: the mean batch time of each tenth of the import.
    const tenth = Math.max(1, Math.floor(batches.length / 10));
    const trend: number[] = [];
    for (let i = 0; i < batches.length; i += tenth) {
      const slice = batches.slice(i, i + tenth);
      trend.push(Math.round(slice.reduce((a, b) => a + b, 0) / slice.length));
    }
    const verdict = (ok: boolean) => (ok ? 'pass' : 'miss');
    return {
      setup,
      rows: [
        {
          measure: `import of ${N} assets (${batches.length} batches)`,
          value: `${seconds.toFixed(1)} s (${Math.round(N / seconds)} assets/s)`,
          target: `<= ${TARGET_SECONDS} s`,
          verdict: verdict(seconds <= TARGET_SECONDS),
        },
        {
          measure: 'first / last / max batch',
          value: `${first.toFixed(0)} / ${last.toFixed(0)} / ${max.toFixed(0)} ms`,
          target: '',
          verdict: '',
        },
        {
          measure: 'last / first batch',
          value: `${(last / first).toFixed(2)}x`,
          target: `<= ${TARGET_RATIO}x`,
          verdict: verdict(last / first <= TARGET_RATIO),
        },
        {
          measure: `service CPU during the import${READER ? ' (reader included)' : ', no reader'}`,
          value: `${cpu.toFixed(1)} s (${((cpu / N) * 1e6).toFixed(0)} µs per asset)`,
          target: '',
          verdict: '',
        },
        {
          measure: `/healthz p50 / p99 / max (${healthz.length} probes)`,
          value: `${percentile(healthz, 50)} / ${percentile(healthz, 99)} / ${healthzMax.toFixed(1)} ms`,
          target: `max <= ${TARGET_HEALTHZ_MS} ms`,
          verdict: verdict(healthzMax <= TARGET_HEALTHZ_MS),
        },
        {
          measure: `OData pages read (${rowsRead} rows), p50 / max`,
          value: pages.length ? `${pages.length}, ${percentile(pages, 50)} / ${Math.max(...pages).toFixed(0)} ms` : 'none',
          target: '',
          verdict: '',
        },
        { measure: 'mean batch per tenth of the import', value: `${trend.join(' ')} ms`, target: '', verdict: '' },
      ],
    };
  } finally {
    importing = false;
    await service.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    await db?.drop();
  }
}

const only = process.env.BENCH_ONLY;
const setups: Setup[] = only === 'embedded' || only === 'postgres' ? [only] : ['embedded', 'postgres'];
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(`load average before: ${load()}`);
// The machine's speed moved fourfold between runs of the same code (docs/benchmarks.md): printed beside the
// import's figures, as bench:footprint's bare row (a body of about a footprint answer's size, 5 s), to compare by.
const reference = await measureBare(JSON.stringify({ padding: 'x'.repeat(6_500) }), 5);
console.log(`machine reference: bare node:http answers ${reference.rps} req/s (p50 ${reference.p50} ms, 50 connections)`);
const results = [];
for (const setup of setups) results.push(await measure(setup));
console.log(`load average after: ${load()}\n`);
console.log('| database | measure | value | target | verdict |\n|---|---|---|---|---|');
for (const { setup, rows } of results)
  for (const r of rows)
    console.log(
      `| ${setup === 'embedded' ? 'embedded (PGlite)' : 'PostgreSQL + Redis'} | ${r.measure} | ${r.value} | ${r.target} | ${r.verdict} |`,
    );
