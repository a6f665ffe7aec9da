import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { openTestDatabase, TEST_DATABASE_KIND } from '../support/database.ts';
import { runCli } from '../support/process.ts';
import { seedDemo } from '../../src/assets/seed-demo.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { prepareDatabase } from '../../src/reference/prepare-database.ts';
import { createLogger } from '../../src/observability/logger.ts';

let t: TestApp;
const prisma = () => t.app.services.db.prisma;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

describe(`seedDemo on ${TEST_DATABASE_KIND}`, () => {
  it('creates N realistic assets across categories, countries, statuses and purchase dates, each with its calculation', async () => {
    const org = await t.createOrg('enterprise', 'Demo Org');
    const progress: number[] = [];
    const result = await seedDemo(prisma(), org.id, 3000, (done) => progress.push(done), { batchSize: 1000 });
    expect(result).toMatchObject({ org_id: org.id, assets: 3000 });
    expect(result.combinations).toBeGreaterThan(500);
    expect(progress).toEqual([1000, 2000, 3000]);

    const where = { org_id: org.id };
    expect(await prisma().asset.count({ where })).toBe(3000);
    expect(await prisma().calculation.count({ where })).toBe(3000);
    expect(await prisma().calculationFactor.count({ where })).toBe(3000);
    const groups = await Promise.all(
      (['category', 'country', 'status'] as const).map((by) => prisma().asset.groupBy({ by: [by], where, _count: true })),
    );
    const [categories, countries, statuses] = groups.map((g) => g.length);
    expect(categories).toBeGreaterThanOrEqual(20);
    expect(countries).toBeGreaterThanOrEqual(15);
    expect(statuses).toBe(7);
    const laptops = groups[0]!.find((g) => (g as { category?: string }).category === 'laptop')!._count;
    expect(laptops).toBeGreaterThan(600); // the most common device of an office estate

    const dates = await prisma().asset.aggregate({ where, _min: { purchase_date: true }, _max: { purchase_date: true } });
    expect(dates._max.purchase_date!.getTime()).toBeLessThan(Date.now());
    expect(dates._min.purchase_date!.getTime()).toBeGreaterThan(Date.now() - 7.1 * 365.25 * 86_400_000);
    expect(new Set((await prisma().asset.findMany({ where, select: { serial_number: true } })).map((a) => a.serial_number)).size).toBe(
      3000,
    );

    // Every asset's current figures are those of its own, linked calculation, with a grid factor of its country.
    const mismatched = await prisma().$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM assets a JOIN calculations c ON c.id = a.active_calculation_id
       JOIN emission_factors f ON f.id = c.grid_factor_id
       WHERE a.org_id = $1::uuid AND (c.asset_id <> a.id OR c.total_kg_co2e <> a.total_kg_co2e OR c.production_kg <> a.production_kg
         OR c.use_phase_kg <> a.use_phase_kg OR f.region_code <> a.country OR c.country <> a.country)`,
      org.id,
    );
    expect(mismatched[0]!.n).toBe(0);
    expect(await prisma().asset.count({ where: { ...where, active_calculation_id: null } })).toBe(0);
    expect(await prisma().asset.count({ where: { ...where, product_id: { not: null } } })).toBeGreaterThan(2000);
  });

  it('refuses an unknown organisation and a bad count', async () => {
    await expect(seedDemo(prisma(), '00000000-0000-4000-8000-000000000000', 10)).rejects.toThrow(/Organization not found/);
    const org = await t.createOrg('free');
    await expect(seedDemo(prisma(), org.id, 0)).rejects.toThrow(/Invalid parameter 'assets'/);
  });
});

describe(`lcf admin seed-demo on ${TEST_DATABASE_KIND}`, () => {
  let db: Database & { url?: string };
  let dir: string;
  let env: Record<string, string>;
  let orgId: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'lcf-seed-'));
    // The CLI opens the database the server would use: DATABASE_URL, else DATA_DIR/pglite.
    db =
      TEST_DATABASE_KIND === 'postgres'
        ? await openTestDatabase()
        : await openDatabase({ kind: 'pglite', dataDir: path.join(dir, 'pglite') });
    await prepareDatabase(db, createLogger('silent'));
    orgId = (await db.prisma.organization.create({ data: { name: 'CLI Demo', plan: 'pro' } })).id;
    env = db.url ? { DATABASE_URL: db.url, DATA_DIR: dir } : { DATA_DIR: dir, DATABASE_URL: '' };
    if (TEST_DATABASE_KIND === 'pglite') await db.close(); // PGlite allows one process at a time
  });
  afterAll(async () => {
    if (TEST_DATABASE_KIND === 'postgres') await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('seeds through the database and prints progress', async () => {
    const run = await runCli(['admin', 'seed-demo', '--org', orgId, '--assets', '250'], env);
    expect(run.code).toBe(0);
    expect(run.stderr.trim().split('\n').at(-1)).toBe('seeded 250/250 assets (100%)');
    expect(run.stdout).toMatch(new RegExp(`^seeded 250 assets into organization ${orgId} in \\d+\\.\\d s`));
    const check = TEST_DATABASE_KIND === 'postgres' ? db : await openDatabase({ kind: 'pglite', dataDir: path.join(dir, 'pglite') });
    try {
      expect(await check.prisma.asset.count({ where: { org_id: orgId } })).toBe(250);
    } finally {
      if (check !== db) await check.close();
    }
  });

  it('fails with one line: exit 2 on bad arguments, exit 1 for an unknown organisation', async () => {
    const bad = await runCli(['admin', 'seed-demo', '--org', orgId, '--assets', 'many'], env);
    expect([bad.code, bad.stderr.trim()]).toEqual([2, 'lcf: --assets N (an integer from 1 to 5000000) is required (lcf --help for usage)']);
    const noOrg = await runCli(['admin', 'seed-demo', '--assets', '5'], env);
    expect(noOrg.code).toBe(2);
    const unknown = await runCli(['admin', 'seed-demo', '--org', '00000000-0000-4000-8000-000000000000', '--assets', '5'], env);
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, 'lcf: no organization with id 00000000-0000-4000-8000-000000000000']);
  });

  it.runIf(TEST_DATABASE_KIND === 'pglite')('refuses, saying what to do, while another process holds the embedded database', async () => {
    const held = await openDatabase({ kind: 'pglite', dataDir: path.join(dir, 'pglite') }); // as a running server holds it
    try {
      const run = await runCli(['admin', 'seed-demo', '--org', orgId, '--assets', '5'], env);
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe(
        `lcf: the embedded database in ${path.join(dir, 'pglite')} is in use by process ${process.pid} (a server started with the same DATA_DIR holds it): ` +
          'stop that process and run this again, or give this one a DATA_DIR of its own (or DATABASE_URL)',
      );
      expect(await held.prisma.asset.count({ where: { org_id: orgId } })).toBe(250); // untouched
    } finally {
      await held.close();
    }
  });
});
