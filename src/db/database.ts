import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { access, copyFile, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { PrismaClient } from '../generated/prisma/client.ts';

export type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

/** A plain SQL session outside Prisma: migrations and reference loading need multi-statement scripts and session locks. */
export interface SqlSession {
  exec(sql: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  release(): Promise<void>;
  /** PostgreSQL only: the session's own connection, for protocol-level work (COPY … TO STDOUT, src/exports/archive-rows.ts). */
  client?: pg.Client;
}

export interface Database {
  kind: 'pglite' | 'postgres';
  prisma: PrismaClient;
  /** PostgreSQL only: Prisma's connection pool, for its gauges (src/observability/metrics.ts). */
  pool?: pg.Pool;
  /** Opens a dedicated session (PGlite has exactly one, shared). */
  session(): Promise<SqlSession>;
  close(): Promise<void>;
}

/** Runs fn on a dedicated session, released afterwards. */
export async function withSession<T>(db: Database, fn: (session: SqlSession) => Promise<T>): Promise<T> {
  const session = await db.session();
  try {
    return await fn(session);
  } finally {
    await session.release();
  }
}

/** Wraps Prisma's driver adapter, e.g. to count SQL statements in tests. */
export type AdapterWrapper = (factory: SqlDriverAdapterFactory) => SqlDriverAdapterFactory;

export type DatabaseOptions = (
  | { kind: 'postgres'; url: string; poolSize?: number }
  | {
      kind: 'pglite';
      dataDir?: string /* omitted: in memory */;
      /** The data directory of a prepared database (src/db/prepare.ts): a new `dataDir` starts as its copy. */
      seed?: string;
    }
) & { wrapAdapter?: AdapterWrapper };

/**
 * Interactive transactions that serialise on an advisory lock (export submissions, SBTi targets, sync
 * runs) queue for a connection behind each other: Prisma's defaults (2 s to get one, 5 s to finish)
 * would turn a burst of them on a busy machine into errors instead of a short wait.
 */
const TRANSACTION_OPTIONS = { maxWait: 15_000, timeout: 30_000 };

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const wrap = options.wrapAdapter ?? ((factory) => factory);
  return options.kind === 'postgres'
    ? openPostgres(options.url, options.poolSize ?? 10, wrap)
    : openPGlite(options.dataDir, options.seed, wrap);
}

const PGLITE_WASM = path.join(path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'pglite.wasm');
/** Compiled once per process: a compiled module serves any number of databases (the test suite opens one per file). */
let pgliteWasmModule: Promise<WebAssembly.Module> | undefined;

/**
 * A PGlite over `dataDir` (omitted: in memory), starting; a new `dataDir` starts as a copy of `seed`
 * (a prepared or initialised data directory) when there is one, else with initdb.
 */
export async function startPGlite(dataDir: string | undefined, seed?: string): Promise<PGlite> {
  // Compiled here rather than by PGlite, and first: off the main thread while PGlite's, Prisma's and the
  // service's modules load. Read at once: an asynchronous read takes a turn of the event loop per
  // 512 KB, and loading modules holds each turn, so the compile would begin late and the start wait for it.
  pgliteWasmModule ??= WebAssembly.compile(readFileSync(PGLITE_WASM));
  // Imported on use only: PGlite's modules take resident memory, waste when PostgreSQL is used.
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir) {
    // A new database starts as a copy of the seed when there is one: a copy of files instead of initdb.
    const isNew = !(await exists(path.join(dataDir, 'PG_VERSION')));
    if (isNew && seed && (await exists(path.join(seed, 'PG_VERSION')))) {
      // Copied beside it and renamed: a start stopped half-way leaves no half database behind.
      const partial = `${dataDir.replace(/\/+$/, '')}.partial`;
      await rm(partial, { recursive: true, force: true });
      await copyTree(seed, partial);
      await rename(partial, dataDir);
    }
    await mkdir(dataDir, { recursive: true });
  }
  // Shared buffers of 8 MB instead of 128: the buffer pool and what PostgreSQL sizes by it are resident
  // memory of this process, while the operating system's page cache serves an embedded database of this
  // size too; a larger pool bought little throughput (docs/benchmarks.md, "Figures behind choices in the code").
  const startParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=8MB'];
  return new PGlite(dataDir, { startParams, pgliteWasmModule: await pgliteWasmModule });
}

async function openPGlite(dataDir: string | undefined, seed: string | undefined, wrap: AdapterWrapper): Promise<Database> {
  const [pglite, { PrismaPGlite }, { PrismaClient }] = await Promise.all([
    startPGlite(dataDir, seed),
    import('pglite-prisma-adapter'),
    import('../generated/prisma/client.ts'),
  ]);
  const prisma = new PrismaClient({ adapter: wrap(new PrismaPGlite(pglite)), transactionOptions: TRANSACTION_OPTIONS });
  // Prisma compiles its query compiler (WebAssembly) while PGlite starts, instead of on the first query.
  await Promise.all([pglite.waitReady, prisma.$connect()]);
  return {
    kind: 'pglite',
    prisma,
    async session() {
      return {
        exec: async (sql) => void (await pglite.exec(sql)),
        query: async <T>(sql: string, params?: unknown[]) => (await pglite.query<T>(sql, params)).rows,
        release: async () => {},
      };
    },
    async close() {
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}

async function openPostgres(url: string, poolSize: number, wrap: AdapterWrapper): Promise<Database> {
  const [{ default: pg }, { PrismaPg }, { PrismaClient }] = await Promise.all([
    import('pg'),
    import('@prisma/adapter-pg'),
    import('../generated/prisma/client.ts'),
  ]);
  // Our own pool rather than the adapter's, so its use can be reported; ended by close().
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle connection the server ended (restart, failover, administrator) is dropped by the pool and
  // replaced on next use; without a listener its 'error' event would end the process.
  pool.on('error', () => {});
  const prisma = new PrismaClient({ adapter: wrap(new PrismaPg(pool)), transactionOptions: TRANSACTION_OPTIONS });
  return {
    kind: 'postgres',
    prisma,
    pool,
    async session() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return {
        client,
        exec: async (sql) => void (await client.query(sql)),
        query: async <T>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as T[],
        release: () => client.end(),
      };
    },
    async close() {
      await prisma.$disconnect();
      if (!pool.ended) await pool.end();
    },
  };
}

/** Copies a directory with its files copied concurrently: fs.cp walks one file at a time, twice as slow for the seed's 1 150 files. */
async function copyTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  const entries = await readdir(from, { withFileTypes: true });
  await Promise.all(entries.map((e) => (e.isDirectory() ? copyTree : copyFile)(path.join(from, e.name), path.join(to, e.name))));
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** A unique constraint refused the write (Prisma P2002): another writer got there first. */
export const isUniqueViolation = (error: unknown) => (error as { code?: unknown } | null)?.code === 'P2002';

/** A bigint key for pg_advisory_xact_lock naming one thing (e.g. `export-submit:<org id>`): 60 bits of its SHA-256. */
export const advisoryLockKey = (name: string): bigint => BigInt(`0x${createHash('sha256').update(name).digest('hex').slice(0, 15)}`);
