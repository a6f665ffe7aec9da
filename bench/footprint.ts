// npm run bench:footprint — GET /v1/footprint on PostgreSQL against a bare node:http server
// returning a fixed JSON body of the same size, both driven by autocannon (50 connections, 10 s),
// then the p50 of POST /v1/footprint/batch with 100 products. BENCH_PGLITE=1 runs the service on the
// embedded database (a new data directory) instead.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminJson, freshPostgres, load, startBareServer, startService } from './support.ts';

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
const paths = DEVICES.flatMap((d) => COUNTRIES.map((country) => `/v1/footprint?${new URLSearchParams({ ...d, country })}`));

const embedded = Boolean(process.env.BENCH_PGLITE);
const db = embedded ? undefined : await freshPostgres();
const dataDir = embedded ? await mkdtemp(path.join(tmpdir(), 'lcf-bench-')) : undefined;
// Quotas are checked on every request, with limits high enough not to refuse the benchmark's own load.
const QUOTA_LIMITS = 'day.enterprise=100000000,minute.enterprise=100000000,day.free=100000000,minute.free=100000000';
const service = await startService({
  DATABASE_URL: db?.url ?? '',
  ...(dataDir ? { DATA_DIR: dataDir } : {}),
  QUOTA_LIMITS,
  ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}),
});
try {
  const org = await adminJson(service.url, '/orgs', { name: 'Bench', plan: 'enterprise' });
  const { key } = await adminJson(service.url, '/keys', { org_id: org.id });
  // BENCH_ANONYMOUS=1: no key (nothing stored, counted per client IP), for comparison.
  const headers: Record<string, string> = process.env.BENCH_ANONYMOUS ? {} : { authorization: `Bearer ${key}` };
  const sample = await (await fetch(`${service.url}${paths[0]}`, { headers })).text();
  const bare = await startBareServer(sample);

  // Warm-up so both servers are measured hot.
  await load({ url: service.url, requests: paths.map((path) => ({ path, headers })), duration: 3 });
  await load({ url: bare.url, duration: 3 });
  const baseline = await load({ url: bare.url });
  const footprint = await load({ url: service.url, requests: paths.map((path) => ({ path, headers })) });
  await bare.stop();

  const batchBody = JSON.stringify({
    products: Array.from({ length: 100 }, (_, i) => ({ ...DEVICES[i % DEVICES.length], country: COUNTRIES[i % COUNTRIES.length] })),
  });
  const batch = await load({
    url: service.url,
    connections: 1,
    duration: 10,
    requests: [
      { method: 'POST', path: '/v1/footprint/batch', headers: { ...headers, 'content-type': 'application/json' }, body: batchBody },
    ],
  });

  console.log(
    `\nresponse body: ${Buffer.byteLength(sample)} bytes; ${paths.length} distinct device/country queries; ${process.env.BENCH_ANONYMOUS ? 'anonymous (nothing stored)' : 'organisation key (calculations stored)'}; ${embedded ? 'PGlite' : 'PostgreSQL'}, quota counters in ${process.env.BENCH_REDIS_URL ? 'Redis' : 'the database'}`,
  );
  console.table({
    'bare node:http': baseline,
    'GET /v1/footprint': footprint,
    'POST /v1/footprint/batch (100 items, 1 connection)': batch,
  });
  console.log(`footprint / bare req/s: ${((footprint.rps / baseline.rps) * 100).toFixed(1)}% (target >= 35%)`);
  console.log(`batch of 100 p50: ${batch.p50} ms (target <= 20 ms)`);
} finally {
  await service.stop();
  await db?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}
