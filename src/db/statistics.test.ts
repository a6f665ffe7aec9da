import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPGlite } from './database.ts';
import { analyseGrownTables, keepStatistics, type RunSql } from './statistics.ts';

describe('planner statistics of the embedded database (no autovacuum)', () => {
  let pglite: PGlite;
  const run: RunSql = async <T>(sql: string) => ((await pglite.exec(sql)).at(-1)?.rows ?? []) as T[];
  const rowsEstimate = async () =>
    (await pglite.query<{ reltuples: number }>(`SELECT reltuples FROM pg_class WHERE relname = 'probe_assets'`)).rows[0]!.reltuples;
  // An import batch's lookup of the assets it updates: 1 000 serial numbers of one organisation.
  const batchLookupPlan = async () =>
    (
      await pglite.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT a.id FROM probe_assets a WHERE a.org_id = 1 AND a.serial_number IN (SELECT 'new-' || g FROM generate_series(1, 1000) g)`,
      )
    ).rows
      .map((r) => r['QUERY PLAN'])
      .join('\n');
  const addAssets = (from: number, to: number) =>
    pglite.exec(
      // Rows about as wide as an asset's (about 35 to a page).
      `INSERT INTO probe_assets (org_id, serial_number, created_at, specs) SELECT 1, 'SN-' || g, now(), repeat('x', 200) FROM generate_series(${from}, ${to}) g`,
    );

  beforeAll(async () => {
    pglite = await startPGlite(undefined);
    await pglite.exec(`CREATE TABLE probe_assets (id serial PRIMARY KEY, org_id int NOT NULL, serial_number text NOT NULL,
      created_at timestamptz NOT NULL, specs text NOT NULL, UNIQUE (org_id, serial_number));
      CREATE INDEX probe_assets_org_created ON probe_assets (org_id, created_at)`);
  }, 60_000);
  afterAll(() => pglite?.close());

  it('analyses a table that grew, after which a batch lookup uses the unique index instead of reading the organisation', async () => {
    await addAssets(1, 30_000);
    expect(await rowsEstimate()).toBe(-1);
    expect(await batchLookupPlan()).not.toContain('probe_assets_org_id_serial_number_key');

    expect(await analyseGrownTables(run)).toEqual(['probe_assets']);
    expect(await rowsEstimate()).toBe(30_000);
    expect(await batchLookupPlan()).toContain('Index Scan using probe_assets_org_id_serial_number_key');
  });

  it('leaves a table alone until it grows by more than a tenth again', async () => {
    expect(await analyseGrownTables(run)).toEqual([]);
    await addAssets(30_001, 31_000);
    expect(await analyseGrownTables(run)).toEqual([]);
    await addAssets(31_001, 36_000);
    expect(await analyseGrownTables(run)).toEqual(['probe_assets']);
    expect(await rowsEstimate()).toBe(36_000);
  });

  it('checks on a timer until stopped, and reports a check that fails', async () => {
    await addAssets(36_001, 50_000);
    const errors: unknown[] = [];
    const failing: RunSql = () => Promise.reject(new Error('connection lost'));
    const broken = keepStatistics(failing, (error) => errors.push(error), 10);
    const keeper = keepStatistics(run, (error) => errors.push(error), 10);
    try {
      await expect.poll(rowsEstimate, { timeout: 5_000 }).toBe(50_000);
      await expect.poll(() => errors.length, { timeout: 5_000 }).toBeGreaterThan(0);
      expect((errors[0] as Error).message).toBe('connection lost');
    } finally {
      keeper.stop();
      broken.stop();
    }
    await addAssets(50_001, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await rowsEstimate()).toBe(50_000);
  });
});
