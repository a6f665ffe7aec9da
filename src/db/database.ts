import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { access, copyFile, mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { lockDataDirectory } from './data-dir-lock.ts';

export type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

/** A plain SQL session outside Prisma: migrations and reference loading need multi-statement scripts and session locks. */
export interface SqlSession {
  exec(sql: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  release(): Promise<void>;
  /**
   * PostgreSQL only: the session's own connection, for protocol-level work (COPY … TO STDOUT,
   * src/exports/archive-rows.ts). The embedded database has one connection, shared with Prisma.
   */
  client?: pg.Client;
}

export interface Database {
  kind: 'pglite' | 'postgres';
  prisma: PrismaClient;
  /** PostgreSQL only: Prisma's connection pool, for its gauges (src/observability/metrics.ts). */
  pool?: pg.Pool;
  /** Opens a dedicated session (PGlite has exactly one, shared: its statements go through Prisma's connection). */
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
/** Compiled once per process and handed to each database's thread: a compiled module serves any number of databases (the test suite opens one per file). */
let pgliteWasmModule: Promise<WebAssembly.Module> | undefined;
// Read at once: an asynchronous read takes a turn of the event loop per 512 KB, and loading modules
// holds each turn, so the compile would begin late and the start wait for it.
const compilePGliteWasm = () => (pgliteWasmModule ??= WebAssembly.compile(readFileSync(PGLITE_WASM)));

/**
 * A PGlite over `dataDir` (omitted: in memory), starting, on the calling thread; a new `dataDir` starts
 * as a copy of `seed` (a prepared or initialised data directory) when there is one, else with initdb.
 * The data directory is this process's until it ends or releaseDataDirectory (src/db/data-dir-lock.ts).
 * The service runs it in a thread of its own (src/db/pglite-worker.ts); tools and tests call it directly.
 */
export async function startPGlite(dataDir: string | undefined, seed?: string, wasmModule?: WebAssembly.Module): Promise<PGlite> {
  // Compiled first: off the main thread while PGlite's modules load.
  const compiled = wasmModule ?? compilePGliteWasm();
  // Imported on use only: PGlite's modules take resident memory, waste when PostgreSQL is used.
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir) {
    await mkdir(path.dirname(path.resolve(dataDir)), { recursive: true });
    lockDataDirectory(dataDir);
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
  const pglite = new PGlite(dataDir, { startParams, pgliteWasmModule: await compiled });
  await pglite.waitReady;
  return pglite;
}

/** The embedded database's thread: compiled (dist/) it runs pglite-worker.js, from the TypeScript sources the .mjs that loads them. */
const PGLITE_WORKER = new URL(import.meta.url.endsWith('.ts') ? './pglite-worker.mjs' : './pglite-worker.js', import.meta.url);

/**
 * How long a statement on the embedded database may keep its caller waiting. PGlite cannot interrupt a
 * running statement (WebAssembly has no timer signal: statement_timeout is accepted and not enforced),
 * so the bound is the driver's: past it the caller gets an error and the connection is replaced; the
 * database's thread finishes the statement, and the server's thread answers other requests throughout.
 * At least Prisma's interactive transaction timeout (TRANSACTION_OPTIONS), and room for the start's migrations.
 */
export const EMBEDDED_STATEMENT_TIMEOUT_MS = 60_000;

/**
 * The embedded database: PGlite in a worker thread (src/db/pglite-worker.ts) serving the PostgreSQL
 * protocol on a unix socket in a private directory, reached through pg and @prisma/adapter-pg as
 * PostgreSQL is. One connection (PGlite is one session): a pool of one, which Prisma's transactions hold
 * while they run, and which sessions share (their statements queue in the pool like Prisma's).
 */
async function openPGlite(dataDir: string | undefined, seed: string | undefined, wrap: AdapterWrapper): Promise<Database> {
  const wasmModule = compilePGliteWasm();
  const socketDir = await mkdtemp(path.join(tmpdir(), 'lcf-pglite-'));
  let worker: Worker | undefined;
  try {
    const started = (async () => {
      worker = new Worker(PGLITE_WORKER, {
        name: 'pglite',
        workerData: { dataDir, seed, socketPath: path.join(socketDir, `.s.PGSQL.${PGLITE_SOCKET_PORT}`), wasmModule: await wasmModule },
      });
      await workerSaid(worker, 'ready');
    })();
    // Awaited below, after Prisma's start; a thread that fails sooner is not an unhandled rejection meanwhile.
    started.catch(() => {});
    // Prisma and pg load, and Prisma compiles its query compiler (WebAssembly), while the thread starts PGlite.
    const [{ default: pg }, { PrismaPg }, { PrismaClient }] = await Promise.all([
      import('pg'),
      import('@prisma/adapter-pg'),
      import('../generated/prisma/client.ts'),
    ]);
    // Connects on first use, once the thread serves.
    const pool = new pg.Pool({
      host: socketDir,
      port: PGLITE_SOCKET_PORT,
      user: 'postgres',
      database: 'postgres',
      max: 1,
      // The one connection is kept for the life of the database, without keeping the process alive.
      idleTimeoutMillis: 0,
      allowExitOnIdle: true,
      query_timeout: EMBEDDED_STATEMENT_TIMEOUT_MS,
    });
    pool.on('error', () => {});
    const prisma = new PrismaClient({ adapter: wrap(new PrismaPg(pool)), transactionOptions: TRANSACTION_OPTIONS });
    await Promise.all([started, prisma.$connect()]);
    const thread = worker!;
    // The thread ends with close() (or the process): it does not keep the process alive by itself.
    thread.unref();
    return {
      kind: 'pglite',
      prisma,
      async session() {
        return {
          exec: async (sql) => void (await pool.query(sql)),
          query: async <T>(sql: string, params?: unknown[]) => (await pool.query(sql, params)).rows as T[],
          release: async () => {},
        };
      },
      async close() {
        await prisma.$disconnect();
        if (!pool.ended) await pool.end();
        thread.ref();
        thread.postMessage('close');
        await workerSaid(thread, 'closed');
        await thread.terminate();
        await rm(socketDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await worker?.terminate();
    await rm(socketDir, { recursive: true, force: true });
    throw error;
  }
}

/** pg finds a unix socket as <host>/.s.PGSQL.<port>. */
const PGLITE_SOCKET_PORT = 5432;

/** Resolves when the thread posts `message`; rejects if it fails or ends first. */
function workerSaid(worker: Worker, message: 'ready' | 'closed'): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (said: unknown) => {
      if (said !== message) return;
      done();
      resolve();
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onExit = (code: number) => {
      done();
      reject(new Error(`the embedded database's thread ended (exit code ${code}) before it was ${message}`));
    };
    const done = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
  });
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
