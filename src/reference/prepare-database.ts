import { rename, rm } from 'node:fs/promises';
import { openDatabase, withSession, type Database } from '../db/database.ts';
import { applyMigrations, readMigrations, withStartupLock } from '../db/migrate.ts';
import type { Logger } from '../observability/logger.ts';
import { loadReferenceData } from './load.ts';

/**
 * Brings a database's schema and reference data up to date: once, under an advisory lock, however
 * many instances start together; a database that is already current costs a few queries. Says
 * which migrations it applied and which reference datasets it (re)loaded.
 */
export function prepareDatabase(db: Database, log: Logger): Promise<{ migrations: string[]; datasets: string[] }> {
  return withSession(db, (session) =>
    withStartupLock(session, async () => {
      const migrations = await applyMigrations(session, await readMigrations());
      if (migrations.length) log.info({ migrations }, 'applied migrations');
      const datasets = await loadReferenceData(session);
      if (datasets.length) log.info({ datasets }, 'loaded reference data');
      return { migrations, datasets };
    }),
  );
}

/** Writes the embedded database's seed (src/db/prepare.ts, PGLITE_SEED_DIR) to `dir`: a prepared database. */
export async function writePGliteSeed(dir: string, log: Logger, { from }: { from?: string } = {}): Promise<void> {
  const partial = `${dir.replace(/\/+$/, '')}.partial`;
  await rm(partial, { recursive: true, force: true });
  // `from`: the data directory of an empty database to start from instead of initdb.
  const db = await openDatabase({ kind: 'pglite', dataDir: partial, seed: from });
  try {
    await prepareDatabase(db, log);
    // The seed keeps only the database PGlite opens (`postgres`): template0 and template1 serve CREATE
    // DATABASE, which the embedded database never runs; without them a new data directory copies far
    // fewer files.
    await withSession(db, async (session) => {
      const templates = await session.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname IN ('template0', 'template1')`,
      );
      for (const { datname } of templates) {
        await session.exec(`ALTER DATABASE ${datname} IS_TEMPLATE false`);
        await session.exec(`DROP DATABASE ${datname}`);
      }
      // Planner statistics of the reference tables, which PGlite's missing autovacuum would never gather (src/db/statistics.ts).
      await session.exec('ANALYZE');
      await session.exec('CHECKPOINT');
    });
  } finally {
    await db.close();
  }
  await rm(dir, { recursive: true, force: true });
  await rename(partial, dir);
}
