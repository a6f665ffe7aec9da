// npm run bench:odata — the OData interface on PostgreSQL at scale:
//  1. `lcf admin seed-demo` of BENCH_ASSETS assets (default 1 000 000) into one enterprise organisation,
//     with the MonthlyEmissions trigger keeping the rollup (timed), then VACUUM ANALYZE as autovacuum would;
//  2. p50/p95 over HTTP (sequential) of $filter + $orderby + $top=1000 queries on Assets, a $count, the
//     first page and pages deep in server-driven paging (@odata.nextLink), MonthlyEmissions in full;
//  3. the cost of the proof hash (RFC 8785 + SHA-256) of a 1000- and a 5000-row page, in process;
//  4. what keeping the rollup costs a write: EXPLAIN ANALYZE of updates that move 1 000 and 10 % of the
//     assets to another month (rolled back), the trigger's time against the statement's.
// BENCH_DATABASE_URL (or TEST_DATABASE_URL) names the PostgreSQL server; a fresh database is made and dropped.
import pg from 'pg';
import { adminJson, freshPostgres, percentile, runLcf, startService } from './support.ts';
import { proofHash } from '../src/odata/proof.ts';

const N = Number(process.env.BENCH_ASSETS ?? 1_000_000);
const QUOTA_LIMITS = 'day.enterprise=100000000,minute.enterprise=100000000';

const stats = (ms: number[]) => ({ p50_ms: percentile(ms, 50), p95_ms: percentile(ms, 95), n: ms.length });

async function seed(orgId: string, n: number, url: string): Promise<number> {
  const start = performance.now();
  const seeded = await runLcf(['admin', 'seed-demo', '--org', orgId, '--assets', String(n), '--json'], { DATABASE_URL: url });
  if (seeded.code !== 0) throw new Error(`seed-demo failed: ${seeded.stdout}`);
  return (performance.now() - start) / 1000;
}

async function sql<T>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

const db = await freshPostgres();
const service = await startService({ DATABASE_URL: db.url, QUOTA_LIMITS });
try {
  const org = await adminJson(service.url, '/orgs', { name: 'Bench BI', plan: 'enterprise' });
  const { key } = await adminJson(service.url, '/keys', { org_id: org.id, bi_enabled: true });
  const get = async (path: string) => {
    const res = await fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return {
      body: (await res.json()) as { value: Record<string, unknown>[]; '@odata.nextLink'?: string; '@odata.count'?: number },
      headers: res.headers,
    };
  };
  const timed = async (path: string, times: number) => {
    for (let i = 0; i < 3; i++) await get(path); // warm-up
    const ms: number[] = [];
    let rows = 0;
    for (let i = 0; i < times; i++) {
      const start = performance.now();
      rows = (await get(path)).body.value.length;
      ms.push(performance.now() - start);
    }
    return { ...stats(ms), rows };
  };

  // 1. seed
  console.log(`seeding ${N} assets with lcf admin seed-demo …`);
  const seedSeconds = await seed(org.id!, N, db.url);
  // A bulk load of this size triggers autovacuum; done here so that the measurement does not depend on when it runs.
  await sql(db.url, 'VACUUM (ANALYZE) assets');
  const [rollup] = await sql<{ rows: number; assets: number }>(
    db.url,
    'SELECT count(*)::int AS rows, sum(asset_count)::int AS assets FROM monthly_emissions WHERE org_id = $1',
    [org.id],
  );

  // 2. latency over HTTP
  const q = (options: Record<string, string>) =>
    `/v1/odata/Assets?${Object.entries(options)
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
      .join('&')}`;
  const queries: Record<string, string> = {
    "category eq 'laptop' and total_kg_co2e gt 200, orderby total_kg_co2e desc, top 1000": q({
      $filter: "category eq 'laptop' and total_kg_co2e gt 200",
      $orderby: 'total_kg_co2e desc',
      $top: '1000',
    }),
    "country eq 'DE' and purchase_date ge 2023-01-01, orderby purchase_date desc,brand, top 1000": q({
      $filter: "country eq 'DE' and purchase_date ge 2023-01-01",
      $orderby: 'purchase_date desc,brand',
      $top: '1000',
    }),
    "status eq 'in_use' and startswith(brand,'Dell'), orderby brand,serial_number, top 1000": q({
      $filter: "status eq 'in_use' and startswith(brand,'Dell')",
      $orderby: 'brand,serial_number',
      $top: '1000',
    }),
    'the same with $select of 4 properties': q({
      $filter: "status eq 'in_use' and startswith(brand,'Dell')",
      $orderby: 'brand,serial_number',
      $top: '1000',
      $select: 'asset_id,brand,total_kg_co2e,purchase_date',
    }),
    "country eq 'FR' with $count=true, top 1000": q({ $filter: "country eq 'FR'", $count: 'true', $top: '1000' }),
    'first page, no options (1000 rows + nextLink)': '/v1/odata/Assets',
  };
  const latency: Record<string, ReturnType<typeof stats> & { rows: number }> = {};
  for (const [name, path] of Object.entries(queries)) latency[name] = await timed(path, 30);

  // Server-driven paging: walk 50 pages from a point deep in the set (keyset, no OFFSET).
  const [deep] = await sql<{ id: string }>(db.url, 'SELECT id::text FROM assets WHERE org_id = $1 ORDER BY id OFFSET $2 LIMIT 1', [
    org.id,
    Math.floor(N * 0.9),
  ]);
  const token = Buffer.from(JSON.stringify([deep!.id])).toString('base64url');
  let link: string | undefined = `/v1/odata/Assets?$skiptoken=${token}`;
  const walk: number[] = [];
  for (let i = 0; i < 50 && link; i++) {
    const start = performance.now();
    const page = await get(link.replace(/^https?:\/\/[^/]+/, ''));
    walk.push(performance.now() - start);
    link = page.body['@odata.nextLink'];
  }
  latency['nextLink pages at 90 % of the set (50 consecutive)'] = { ...stats(walk), rows: 1000 };
  latency['MonthlyEmissions, all rows of the organisation'] = await timed('/v1/odata/MonthlyEmissions?$top=5000', 10);

  // 3. the proof hash alone
  const page1000 = (await get(q({ $top: '1000' }))).body.value;
  const page5000 = (await get(q({ $top: '5000' }))).body.value;
  if (page5000.length !== 5000) throw new Error(`$top=5000 answered ${page5000.length} rows`);
  const hashCost = (rows: Record<string, unknown>[], times: number) => {
    for (let i = 0; i < 5; i++) proofHash(rows);
    const ms: number[] = [];
    for (let i = 0; i < times; i++) {
      const start = performance.now();
      proofHash(rows);
      ms.push(performance.now() - start);
    }
    return { ...stats(ms), bytes_of_json: JSON.stringify(rows).length };
  };
  const hashing = { '1000 rows, 18 properties': hashCost(page1000, 100), '5000 rows, 18 properties': hashCost(page5000, 30) };

  // 4. the rollup trigger on writes: moving assets to another month changes two groups per asset
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const triggerCost = async (where: string) => {
    await client.query('BEGIN');
    try {
      const { rows } = await client.query(
        `EXPLAIN (ANALYZE, FORMAT JSON) UPDATE assets SET purchase_date = purchase_date + 31 WHERE org_id = $1 AND ${where}`,
        [org.id],
      );
      const plan = (
        rows[0] as {
          'QUERY PLAN': {
            'Execution Time': number;
            Plan: { 'Actual Rows': number };
            Triggers: { 'Trigger Name': string; Time: number }[];
          }[];
        }
      )['QUERY PLAN'][0]!;
      const trigger = plan.Triggers.filter((t) => t['Trigger Name'].startsWith('monthly_emissions')).reduce((sum, t) => sum + t.Time, 0);
      return {
        statement_ms: Math.round(plan['Execution Time']),
        rollup_trigger_ms: Math.round(trigger),
        share_pct: Math.round((trigger / plan['Execution Time']) * 100),
      };
    } finally {
      await client.query('ROLLBACK');
    }
  };
  const triggers = {
    '1 000 assets moved (an import batch)': await triggerCost(`id IN (SELECT id FROM assets WHERE org_id = '${org.id}' LIMIT 1000)`),
    '10 % of the assets moved': await triggerCost("serial_number LIKE '%0'"),
  };
  await client.end();

  console.log(
    `\nseed-demo: ${N} assets in ${seedSeconds.toFixed(1)} s (${Math.round(N / seedSeconds)} assets/s); rollup: ${rollup!.rows} MonthlyEmissions rows over ${rollup!.assets} assets`,
  );
  console.log(`latency over HTTP, sequential, ${N} assets in the organisation (target: filter + orderby + top 1000 p50 <= 200 ms):`);
  console.table(latency);
  console.log('proof hash (canonicalize + SHA-256) in process:');
  console.table(hashing);
  console.log('keeping MonthlyEmissions current (EXPLAIN ANALYZE, rolled back):');
  console.table(triggers);
} finally {
  await service.stop();
  await db.drop();
}
