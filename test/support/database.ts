import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type AdapterWrapper, type Database } from '../../src/db/database.ts';

/** Which database the suite runs on: PGlite by default, PostgreSQL when TEST_DATABASE_URL is set. */
export const TEST_DATABASE_KIND = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';

/**
 * A fresh, empty database: in-memory PGlite, or a new database on the TEST_DATABASE_URL
 * server (dropped again on close), so test files never see each other's rows.
 */
export async function openTestDatabase(wrapAdapter?: AdapterWrapper): Promise<Database & { url?: string }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return openDatabase({ kind: 'pglite', wrapAdapter });
  const name = `lcf_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await withServer(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
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

async function withServer<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
