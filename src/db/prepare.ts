import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config/config.ts';
import { openDatabase, type Database } from './database.ts';

/**
 * The embedded database's seed: the data directory of a prepared database (migrations applied,
 * reference data loaded), written by `npm run build` (writePGliteSeed, src/reference/prepare-database.ts).
 * A new data directory starts as a copy of it instead of PGlite's initdb and the whole preparation
 * (most of a first start otherwise); prepareDatabase still runs after it, so a seed older than the sources is brought up to date like any database.
 */
export const PGLITE_SEED_DIR = fileURLToPath(new URL('../../dist/pglite-seed/', import.meta.url));

/** The configured database: PostgreSQL at DATABASE_URL, else PGlite in DATA_DIR (a new one from the seed). */
export function openConfiguredDatabase(config: Config): Promise<Database> {
  return openDatabase(
    config.databaseUrl
      ? { kind: 'postgres', url: config.databaseUrl, poolSize: config.databasePoolSize }
      : { kind: 'pglite', dataDir: path.join(config.dataDir, 'pglite'), seed: PGLITE_SEED_DIR },
  );
}
