import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/database.ts';
import { prepareDatabase, writePGliteSeed } from '../../src/reference/prepare-database.ts';
import { createLogger } from '../../src/observability/logger.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PGlite: a prepared data directory each test database starts as a copy of. */
    pgliteSeed: string;
    /** PGlite: the data directory of an empty database (initdb only), for tests of the preparation. */
    pgliteEmptySeed: string;
    /** PostgreSQL: a prepared database each test database is created from (CREATE DATABASE … TEMPLATE). */
    postgresTemplate: string;
  }
}

/**
 * Prepares one database (migrations, reference data) for the whole run, so each test file's own
 * database starts from a copy of it instead of repeating initdb and the preparation (3-5 s a file).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = createLogger('silent');
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const dir = await mkdtemp(path.join(tmpdir(), 'lcf-test-seed-'));
    const empty = path.join(dir, 'empty');
    await (await openDatabase({ kind: 'pglite', dataDir: empty })).close();
    const seed = path.join(dir, 'pglite');
    await writePGliteSeed(seed, log, { from: empty });
    project.provide('pgliteSeed', seed);
    project.provide('pgliteEmptySeed', empty);
    project.provide('postgresTemplate', '');
    return () => rm(dir, { recursive: true, force: true });
  }
  const name = `lcf_template_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await withServer(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 2 });
  try {
    await prepareDatabase(db, log);
  } finally {
    await db.close();
  }
  project.provide('pgliteSeed', '');
  project.provide('pgliteEmptySeed', '');
  project.provide('postgresTemplate', name);
  return () => withServer(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {});
}

export async function withServer<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
