import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { openDatabase, type AdapterWrapper, type Database } from '../../src/db/database.ts';
import { withServer } from './global-setup.ts';

/** Which database the suite runs on: PGlite by default, PostgreSQL when TEST_DATABASE_URL is set. */
export const TEST_DATABASE_KIND = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';

/**
 * A database of this test file's own, so test files never see each other's rows: a PGlite data
 * directory, or a new database on the TEST_DATABASE_URL server (both removed again on close).
 * It starts prepared (migrations applied, reference data loaded: test/support/global-setup.ts),
 * or with `empty: true` as a server's new database is, for the tests of that preparation.
 */
export async function openTestDatabase(wrapAdapter?: AdapterWrapper, { empty = false } = {}): Promise<Database & { url?: string }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const dir = await mkdtemp(path.join(tmpdir(), 'lcf-test-db-'));
    const db = await openDatabase({
      kind: 'pglite',
      dataDir: dir,
      seed: inject(empty ? 'pgliteEmptySeed' : 'pgliteSeed') || undefined,
      wrapAdapter,
    });
    return {
      ...db,
      async close() {
        await db.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `lcf_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const template = empty ? '' : inject('postgresTemplate');
  await withServer(serverUrl, (client) => client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 8, wrapAdapter });
  return {
    ...db,
    url: url.toString(),
    async close() {
      await db.close();
      await withServer(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
