// Per-check overhead of the quota counters, in process: QuotaService.check over each store.
//
//   npx tsx bench/quota.ts                                  PGlite only
//   TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test TEST_REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/quota.ts
//
// TEST_DATABASE_URL names a server: the bench creates a throwaway database there and drops it after.
// TEST_REDIS_URL: keys go under a unique prefix and are deleted after. BENCH_CHECKS sets the sample size.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../src/db/database.ts';
import { applyMigrations, readMigrations } from '../src/db/migrate.ts';
import { DatabaseCounterStore, QuotaService, type CounterStore, type QuotaSubject } from '../src/auth/quota/index.ts';
import { RedisCounterStore } from '../src/auth/quota/redis-store.ts';

const CHECKS = Number(process.env.BENCH_CHECKS ?? 5_000);
const WARMUP = 500;
const CONCURRENCY = 32;
// Budgets large enough that every check is admitted: the hot path of a live key.
const LIMITS = { limits: { day: { pro: 1e9, free: 1e9 }, minute: { pro: 1e9, free: 1e9 } } };

interface Target {
  name: string;
  store: CounterStore;
  /** Further stores over the same backend, measured too. */
  variants?: { name: string; store: CounterStore }[];
  /** One bare round trip to the same backend, for comparison. */
  ping: () => Promise<unknown>;
  orgId: string;
  done: () => Promise<void>;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const us = (ns: bigint) => Number(ns) / 1000;

async function sequential(fn: () => Promise<unknown>, n: number): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    await fn();
    samples.push(us(process.hrtime.bigint() - start));
  }
  samples.sort((a, b) => a - b);
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99) };
}

async function concurrent(fn: () => Promise<unknown>, n: number, width: number): Promise<{ p50: number; p99: number; perSecond: number }> {
  const samples: number[] = [];
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next++ < n) {
        const start = process.hrtime.bigint();
        await fn();
        samples.push(us(process.hrtime.bigint() - start));
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  samples.sort((a, b) => a - b);
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99), perSecond: n / seconds };
}

async function migrated(db: Database): Promise<string> {
  const session = await db.session();
  await applyMigrations(session, await readMigrations());
  await session.release();
  const orgId = randomUUID();
  await db.prisma.organization.create({ data: { id: orgId, name: 'bench' } });
  return orgId;
}

async function pgliteTarget(): Promise<Target> {
  const db = await openDatabase({ kind: 'pglite' });
  const orgId = await migrated(db);
  return {
    name: 'database / PGlite',
    store: new DatabaseCounterStore(db.prisma),
    ping: () => db.prisma.$queryRawUnsafe('SELECT 1'),
    orgId,
    done: () => db.close(),
  };
}

async function postgresTarget(serverUrl: string): Promise<Target> {
  const name = `lcf_bench_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 10 });
  const orgId = await migrated(db);
  return {
    name: 'database / PostgreSQL',
    store: new DatabaseCounterStore(db.prisma),
    variants: [{ name: '  same, asyncCommit: true', store: new DatabaseCounterStore(db.prisma, { asyncCommit: true }) }],
    ping: () => db.prisma.$queryRawUnsafe('SELECT 1'),
    orgId,
    done: async () => {
      await db.close();
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

async function redisTarget(redisUrl: string): Promise<Target> {
  const prefix = `lcf-bench:quota:${randomUUID()}:`;
  const store = new RedisCounterStore(redisUrl, { keyPrefix: prefix });
  return {
    name: 'Redis',
    store,
    ping: () => store.redis.ping(),
    orgId: randomUUID(),
    done: async () => {
      let cursor = '0';
      do {
        const [next, keys] = await store.redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        if (keys.length > 0) await store.redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
      await store.close();
    },
  };
}

async function measure(name: string, store: CounterStore, orgId: string, ping: () => Promise<unknown>): Promise<void> {
  const quota = new QuotaService(store, LIMITS);
  const subjects: QuotaSubject[] = [
    ...Array.from({ length: 20 }, () => ({ kind: 'key', keyId: randomUUID(), orgId, plan: 'pro' }) as const),
    ...Array.from({ length: 5 }, (_, i) => ({ kind: 'anonymous', ip: `198.51.100.${i + 1}` }) as const),
  ];
  let i = 0;
  const check = () => quota.check(subjects[i++ % subjects.length]!);
  await sequential(check, WARMUP);
  await sequential(ping, WARMUP);
  const bare = await sequential(ping, CHECKS);
  const seq = await sequential(check, CHECKS);
  const par = await concurrent(check, CHECKS, CONCURRENCY);
  const f = (n: number) => n.toFixed(0).padStart(6);
  console.log(
    `${name.padEnd(28)} check p50 ${f(seq.p50)} µs  p99 ${f(seq.p99)} µs  |  bare round trip p50 ${f(bare.p50)} µs  p99 ${f(bare.p99)} µs` +
      `  |  ${CONCURRENCY} in flight: p50 ${f(par.p50)} µs  p99 ${f(par.p99)} µs  ${f(par.perSecond)} checks/s`,
  );
}

async function run(target: Target): Promise<void> {
  try {
    for (const { name, store } of [target, ...(target.variants ?? [])]) await measure(name, store, target.orgId, target.ping);
  } finally {
    await target.done();
    for (const { store } of [target, ...(target.variants ?? [])]) await store.close?.();
  }
}

console.log(
  `quota bench: ${CHECKS} sequential checks per store after ${WARMUP} warm-up, then ${CHECKS} with ${CONCURRENCY} in flight (node ${process.version})`,
);
await run(await pgliteTarget());
const databaseUrl = process.env.TEST_DATABASE_URL;
if (databaseUrl) await run(await postgresTarget(databaseUrl));
else console.log('database / PostgreSQL         skipped: set TEST_DATABASE_URL');
const redisUrl = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL;
if (redisUrl) await run(await redisTarget(redisUrl));
else console.log('Redis                        skipped: set TEST_REDIS_URL');
