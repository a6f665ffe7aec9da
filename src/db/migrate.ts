import { createHash, randomUUID } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { SqlSession } from './database.ts';

// Applies prisma/migrations the way `prisma migrate deploy` does (same folder layout, same
// _prisma_migrations records), so either tool can take over a database from the other.
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations/', import.meta.url));

/** Session-level advisory lock shared by every instance of the service: start-up work runs once at a time. */
export const STARTUP_LOCK_KEY = 74_642_026;

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(new URL(`${name}/migration.sql`, `file://${dir}/`), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** Runs fn while holding the session-level advisory lock `key` (a bigint, as a number or a decimal string). */
export async function withAdvisoryLock<T>(session: SqlSession, key: number | string, fn: () => Promise<T>): Promise<T> {
  await session.query('SELECT pg_advisory_lock($1::bigint)', [key]);
  try {
    return await fn();
  } finally {
    await session.query('SELECT pg_advisory_unlock($1::bigint)', [key]);
  }
}

/** Runs fn while holding the start-up advisory lock. */
export const withStartupLock = <T>(session: SqlSession, fn: () => Promise<T>): Promise<T> =>
  withAdvisoryLock(session, STARTUP_LOCK_KEY, fn);

/** Applies pending migrations, each in its own transaction; returns the names applied. Call under the start-up lock. */
export async function applyMigrations(session: SqlSession, migrations: MigrationFile[]): Promise<string[]> {
  // Looked up before it is created: on PGlite, CREATE TABLE IF NOT EXISTS of a table that exists costs a
  // restart far more than the lookup.
  const [table] = await session.query<{ present: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`);
  if (!table?.present) await session.exec(MIGRATIONS_TABLE);
  const rows = await session.query<{ migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null }>(
    'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"',
  );
  const applied = new Map(rows.filter((r) => r.rolled_back_at === null).map((r) => [r.migration_name, r]));
  const done: string[] = [];
  for (const migration of migrations) {
    const record = applied.get(migration.name);
    if (record) {
      if (record.finished_at === null) {
        throw new MigrationError(`migration ${migration.name} failed earlier and must be resolved by hand (see _prisma_migrations)`);
      }
      if (record.checksum !== migration.checksum) {
        throw new MigrationError(`migration ${migration.name} was modified after it was applied (checksum differs)`);
      }
      continue;
    }
    await session.exec('BEGIN');
    try {
      await session.exec(migration.sql);
      await session.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
         VALUES ($1, $2, now(), $3, now(), 1)`,
        [randomUUID(), migration.checksum, migration.name],
      );
      await session.exec('COMMIT');
    } catch (error) {
      await session.exec('ROLLBACK');
      throw new MigrationError(`migration ${migration.name} failed: ${(error as Error).message}`);
    }
    done.push(migration.name);
  }
  return done;
}
