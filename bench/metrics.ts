// npm run bench:metrics — what GET /metrics costs: the per-request hook (route lookup + counter +
// histogram) timed in-process over the service's real route patterns, and scrapes of a running
// service on PostgreSQL after a load of footprint and parameterised asset requests (time, size, series).
import { Metrics } from '../src/observability/metrics.ts';
import { RouteTable } from '../src/kernel/routes.ts';
import { createLogger } from '../src/observability/logger.ts';
import type { Database } from '../src/db/database.ts';
import type { CalculationWriter } from '../src/footprint/calculation-writer.ts';
import { adminJson, BENCH_ADMIN_TOKEN, freshPostgres, load, percentile, startService } from './support.ts';

const db = await freshPostgres();
const service = await startService({ DATABASE_URL: db.url, QUOTA_LIMITS: 'day.enterprise=100000000,minute.enterprise=100000000' });
try {
  const org = await adminJson(service.url, '/orgs', { name: 'Bench', plan: 'enterprise' });
  const { key } = await adminJson(service.url, '/keys', { org_id: org.id });
  const headers = { authorization: `Bearer ${key}` };
  const openapi = (await (await fetch(`${service.url}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
  const patterns = Object.keys(openapi.paths).map((p) => p.replace(/\{(\w+)\}/g, ':$1'));

  // The hook alone, as the pipeline runs it per request: label the path, count, observe.
  const metrics = new Metrics({
    db: {} as Database,
    calculations: { backlog: 0, failures: 0 } as CalculationWriter,
    log: createLogger('silent'),
  });
  const routes = new RouteTable();
  for (const pattern of patterns) routes.add('GET', pattern);
  const label = (path: string) => routes.match('GET', path)?.pattern ?? 'unmatched';
  const paths = [
    '/v1/footprint',
    '/v1/assets/6f1c1f0e-8a4b-4c55-9d2e-0b7d5a1c2e3f',
    '/v1/org/export/jobs/6f1c1f0e-8a4b-4c55-9d2e-0b7d5a1c2e3f/download',
    '/nope',
  ];
  const N = 200_000;
  for (let i = 0; i < 20_000; i++) metrics.observeRequest('GET', label(paths[i % paths.length]!), 200, performance.now());
  const hookStart = performance.now();
  for (let i = 0; i < N; i++) metrics.observeRequest('GET', label(paths[i % paths.length]!), i % 7 ? 200 : 404, performance.now());
  const hookUs = ((performance.now() - hookStart) / N) * 1000;

  // Label variety as in production: many routes and statuses before the scrapes.
  const footprint = await load({
    url: service.url,
    duration: 5,
    requests: [
      { path: '/v1/footprint?brand=Dell&model=Latitude%205440&country=DE', headers },
      { path: '/v1/assets/6f1c1f0e-8a4b-4c55-9d2e-0b7d5a1c2e3f', headers },
      { path: '/v1/reference/countries' },
      { path: '/v1/no-such-route' },
    ],
  });
  const scrapes: number[] = [];
  let body = '';
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    body = await (await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` } })).text();
    scrapes.push(performance.now() - started);
  }
  const series = body.split('\n').filter((line) => line && !line.startsWith('#')).length;

  console.table({
    'request hook (in-process)': { 'µs per request': Math.round(hookUs * 100) / 100, routes: patterns.length },
    'load before scraping': { 'req/s': footprint.rps, 'p50 ms': footprint.p50 },
    'GET /metrics': { 'p50 ms': percentile(scrapes, 50), 'p99 ms': percentile(scrapes, 99), bytes: Buffer.byteLength(body), series },
  });
} finally {
  await service.stop();
  await db.drop();
}
