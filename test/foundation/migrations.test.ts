import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { diffMigrationsToSchema } from '../../scripts/schema-engine.ts';
import { applyMigrations, readMigrations, withStartupLock } from '../../src/db/migrate.ts';
import { prepareDatabase } from '../../src/reference/prepare-database.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { openDatabase, startPGlite, type Database } from '../../src/db/database.ts';
import { openTestDatabase, TEST_DATABASE_KIND } from '../support/database.ts';

const log = createLogger('silent');

describe(`migrations on ${TEST_DATABASE_KIND}`, () => {
  let db: Database & { url?: string };
  beforeAll(async () => {
    db = await openTestDatabase(undefined, { empty: true });
  });
  afterAll(() => db.close());

  it('match schema.prisma exactly (empty schema diff)', async () => {
    // The engine's databases start as copies of an initialised one where there is one (PGlite runs), not with initdb.
    const emptySeed = inject('pgliteEmptySeed');
    const dir = await mkdtemp(path.join(tmpdir(), 'lcf-test-diff-'));
    try {
      const openPGlite = emptySeed ? () => startPGlite(path.join(dir, randomUUID()), emptySeed) : undefined;
      expect(await diffMigrationsToSchema(openPGlite)).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('apply once, record themselves in Prisma format, and are idempotent', async () => {
    const migrations = await readMigrations();
    expect(migrations.length).toBeGreaterThan(0);
    const session = await db.session();
    try {
      const first = await withStartupLock(session, () => applyMigrations(session, migrations));
      expect(first).toEqual(migrations.map((m) => m.name));
      const second = await withStartupLock(session, () => applyMigrations(session, migrations));
      expect(second).toEqual([]);
      const rows = await session.query<{ migration_name: string; checksum: string; finished_at: Date; applied_steps_count: number }>(
        'SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name',
      );
      expect(rows.map((r) => r.migration_name)).toEqual(migrations.map((m) => m.name));
      expect(rows[0]!.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(rows[0]!.finished_at).toBeInstanceOf(Date);
      expect(rows[0]!.applied_steps_count).toBe(1);
    } finally {
      await session.release();
    }
  });

  it('refuses a migration edited after it was applied', async () => {
    const [first, ...rest] = await readMigrations();
    const session = await db.session();
    try {
      await expect(applyMigrations(session, [{ ...first!, checksum: '0'.repeat(64) }, ...rest])).rejects.toThrow(
        /modified after it was applied/,
      );
    } finally {
      await session.release();
    }
  });

  it.runIf(TEST_DATABASE_KIND === 'postgres')('run once when several instances start at the same time', async () => {
    const fresh = await openTestDatabase(undefined, { empty: true });
    const others = await Promise.all([1, 2, 3].map(() => openDatabase({ kind: 'postgres', url: fresh.url! })));
    try {
      await Promise.all([fresh, ...others].map((d) => prepareDatabase(d, log)));
      const rows = await fresh.prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM "_prisma_migrations"`;
      expect(Number(rows[0]!.n)).toBe((await readMigrations()).length);
      expect(await fresh.prisma.deviceCategory.count()).toBe(48);
    } finally {
      await Promise.all(others.map((d) => d.close()));
      await fresh.close();
    }
  });
});
