import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { bearer } from '../certificates/support.ts';
import { sandboxOrgId } from '../../src/sandbox/sandbox.ts';
import { device } from '../support/inventory-fixtures.ts';

/**
 * MonthlyEmissions' ADPe (kg Sb eq) and PE (MJ) per phase and whole-life: in each group, the sums of the
 * impacts of the assets' active calculations as the API answers them, over the impacts_asset_count assets
 * that have them; kept by the rollup trigger on every write (migration monthly_emissions_impacts).
 */
let t: TestApp;
let key: string;
let orgId: string;
const prisma = () => t.app.services.db.prisma;
const MIGRATION = new URL('../../prisma/migrations/20261129213147_monthly_emissions_impacts/migration.sql', import.meta.url);

/** OData property → the figure of a calculation's `impacts` (API JSON) it sums. */
const PHASES = { production: 'production', transport: 'transport', use_phase: 'use', end_of_life: 'end_of_life' } as const;
type Impacts = Record<'adpe' | 'pe', { phases: Record<string, number>; total: number }>;
const FIGURES: Record<string, (i: Impacts) => number> = {
  ...Object.fromEntries(Object.entries(PHASES).map(([name, phase]) => [`adpe_${name}_kg_sb_eq`, (i: Impacts) => i.adpe.phases[phase]!])),
  adpe_kg_sb_eq: (i) => i.adpe.total,
  ...Object.fromEntries(Object.entries(PHASES).map(([name, phase]) => [`pe_${name}_mj`, (i: Impacts) => i.pe.phases[phase]!])),
  pe_mj: (i) => i.pe.total,
};
const NAMES = Object.keys(FIGURES);

type Row = Record<string, string | number | null>;

const odata = async (query: string) => {
  const res = await t.json(`/v1/odata/MonthlyEmissions?${query}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.value as Row[];
};
const rollup = () =>
  odata(`$orderby=month,category,country&$select=month,category,country,asset_count,impacts_asset_count,${NAMES.join(',')}`);

const importAssets = async (assets: object[]) => {
  const res = await t.json('/v1/assets', { method: 'POST', headers: bearer(key), body: JSON.stringify({ assets }) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.failed, JSON.stringify(res.body.errors)).toBe(0);
};

/** The rollup from the API's JSON of the assets and their active calculations (GET /v1/assets). */
async function fromApi(): Promise<Row[]> {
  const res = await t.json('/v1/assets?limit=100', { headers: bearer(key) });
  expect(res.status).toBe(200);
  expect(res.body.next_cursor).toBeNull();
  const groups = new Map<string, Row>();
  for (const a of res.body.assets) {
    if (!a.active_calculation) continue;
    const month = `${(a.purchase_date ?? a.created_at).slice(0, 7)}-01`;
    const group = `${month}|${a.category}|${a.country}`;
    const g: Row = groups.get(group) ?? { month, category: a.category, country: a.country, asset_count: 0, impacts_asset_count: 0 };
    g.asset_count = (g.asset_count as number) + 1;
    const impacts = a.active_calculation.impacts as Impacts | null;
    if (impacts) {
      g.impacts_asset_count = (g.impacts_asset_count as number) + 1;
      for (const name of NAMES) g[name] = ((g[name] as number | undefined) ?? 0) + FIGURES[name]!(impacts);
    }
    groups.set(group, g);
  }
  return [...groups.values()]
    .map((g) => ({ ...g, ...Object.fromEntries(NAMES.map((name) => [name, g[name] ?? null])) }))
    .sort((a, b) => `${a.month}|${a.category}|${a.country}`.localeCompare(`${b.month}|${b.category}|${b.country}`));
}

/** OData rows equal the API's sums: counts exactly, figures to 1e-9 relative (the rollup adds decimals, the test doubles). */
function expectSums(rows: Row[], expected: Row[]) {
  expect(rows.map(({ month, category, country }) => `${month}|${category}|${country}`)).toEqual(
    expected.map(({ month, category, country }) => `${month}|${category}|${country}`),
  );
  rows.forEach((row, i) => {
    const want = expected[i]!;
    expect([row.asset_count, row.impacts_asset_count]).toEqual([want.asset_count, want.impacts_asset_count]);
    for (const name of NAMES) {
      if (want[name] === null) expect(row[name], name).toBeNull();
      else expect(Math.abs((row[name] as number) - (want[name] as number)), name).toBeLessThanOrEqual(1e-9 * (want[name] as number));
    }
  });
}

/** Rollup rows of `org` that differ in any ADPe/PE figure from a fresh aggregation rounded as the trigger rounds (exact numeric). */
const DRIFT = `
  WITH fresh AS (
    SELECT a.org_id, date_trunc('month', COALESCE(a.purchase_date, (a.created_at AT TIME ZONE 'UTC')::date))::date AS month, a.category, a.country,
      ${NAMES.map((n) => `sum(round(c.${n}::numeric, ${n.startsWith('adpe') ? 15 : 9})) AS ${n}`).join(', ')},
      count(c.adpe_kg_sb_eq)::int AS impacts_asset_count, count(*)::int AS asset_count
    FROM assets a JOIN calculations c ON c.id = a.active_calculation_id WHERE a.org_id = $1::uuid GROUP BY 1, 2, 3, 4
  )
  SELECT count(*)::int AS rows,
    count(*) FILTER (WHERE f.org_id IS NULL OR m.id IS NULL OR m.impacts_asset_count <> f.impacts_asset_count
      OR ${NAMES.map((n) => `m.${n} IS DISTINCT FROM f.${n}`).join(' OR ')})::int AS drifted
  FROM (SELECT * FROM monthly_emissions WHERE org_id = $1::uuid) m
  FULL JOIN fresh f ON f.org_id = m.org_id AND f.month = m.month AND f.category = m.category AND f.country = m.country`;
const drift = async (org: string) => (await prisma().$queryRawUnsafe<{ rows: number; drifted: number }[]>(DRIFT, org))[0]!;

beforeAll(async () => {
  t = await createTestApp();
  orgId = (await t.createOrg('enterprise', 'Monthly metals')).id;
  key = (await t.createKey(orgId, { bi_enabled: true })).key;
  await importAssets([
    device('M-1'),
    device('M-2', { purchase_date: '2024-03-31' }),
    device('M-3', { country: 'FR' }),
    device('M-4', { brand: 'Acme', model: 'Custom Phone 6', category: 'smartphone', purchase_date: '2023-11-02' }),
    device('M-5', { purchase_date: undefined }),
    device('M-6', { brand: 'Samsung', model: 'Odyssey', category: 'monitor', country: 'US-CA', purchase_date: '2024-03-01' }),
  ]);
}, 120_000);
afterAll(() => t?.close());

describe(`MonthlyEmissions ADPe and PE on ${TEST_DATABASE_KIND}`, () => {
  it("sums each group's assets' ADPe and PE per phase and whole-life as the API answers their calculations", async () => {
    const rows = await rollup();
    const expected = await fromApi();
    expect(rows.length).toBeGreaterThanOrEqual(5);
    expect(rows.every((r) => r.impacts_asset_count === r.asset_count && (r.adpe_kg_sb_eq as number) > 0 && (r.pe_mj as number) > 0)).toBe(
      true,
    );
    expectSums(rows, expected);
    // The two laptops bought in March 2024 in DE share a row.
    expect(rows.find((r) => r.month === '2024-03-01' && r.category === 'laptop' && r.country === 'DE')?.asset_count).toBe(2);
    expect(await drift(orgId)).toEqual({ rows: rows.length, drifted: 0 });
    // Filterable like the kg CO2e figures.
    const threshold = [...rows].sort((a, b) => (a.pe_mj as number) - (b.pe_mj as number))[1]!.pe_mj as number;
    const heavy = await odata(`$filter=${encodeURIComponent(`pe_mj gt ${threshold}`)}&$select=pe_mj`);
    expect(heavy.map((r) => r.pe_mj).sort()).toEqual(
      rows
        .filter((r) => (r.pe_mj as number) > threshold)
        .map((r) => r.pe_mj)
        .sort(),
    );
  });

  it('counts an asset calculated before ADPe and PE in asset_count only: its group shows null, not 0, and partial sums say so', async () => {
    const monitor = await prisma().asset.findFirstOrThrow({
      where: { org_id: orgId, serial_number: 'M-6' },
      include: { active_calculation: true },
    });
    const laptop = await prisma().asset.findFirstOrThrow({
      where: { org_id: orgId, serial_number: 'M-1' },
      include: { active_calculation: true },
    });
    const bare = async (current: NonNullable<typeof monitor.active_calculation>) => {
      const { impacts: _impacts, ...older } = current.result as Record<string, unknown>;
      const { id: _id, created_at: _created, result: _result, ...figures } = current;
      return prisma().calculation.create({ data: { ...figures, inputs: figures.inputs as object, result: older as object } });
    };
    const bareMonitor = await bare(monitor.active_calculation!);
    const bareLaptop = await bare(laptop.active_calculation!);
    // As a calculation stored before impacts: no ADPe or PE columns.
    expect([bareMonitor.adpe_kg_sb_eq, bareMonitor.pe_mj, bareMonitor.adpe_production_kg_sb_eq]).toEqual([null, null, null]);
    expect(monitor.active_calculation!.adpe_kg_sb_eq).toBe((monitor.active_calculation!.result as { impacts: Impacts }).impacts.adpe.total);
    await prisma().asset.update({ where: { id: monitor.id }, data: { active_calculation_id: bareMonitor.id } });
    await prisma().asset.update({ where: { id: laptop.id }, data: { active_calculation_id: bareLaptop.id } });

    const rows = await rollup();
    expectSums(rows, await fromApi());
    const monitorRow = rows.find((r) => r.category === 'monitor')!;
    expect(monitorRow).toMatchObject({ asset_count: 1, impacts_asset_count: 0, adpe_kg_sb_eq: null, pe_mj: null, pe_use_phase_mj: null });
    const march = rows.find((r) => r.month === '2024-03-01' && r.category === 'laptop' && r.country === 'DE')!;
    expect([march.asset_count, march.impacts_asset_count]).toEqual([2, 1]);
    expect(await drift(orgId)).toEqual({ rows: rows.length, drifted: 0 });

    // Back to the calculations with impacts: the figures return.
    await prisma().asset.update({ where: { id: monitor.id }, data: { active_calculation_id: monitor.active_calculation_id } });
    await prisma().asset.update({ where: { id: laptop.id }, data: { active_calculation_id: laptop.active_calculation_id } });
    const restored = await rollup();
    expectSums(restored, await fromApi());
    expect(restored.every((r) => r.impacts_asset_count === r.asset_count)).toBe(true);
  });

  it('follows re-imports, leaves the figures alone on a status change, and takes deleted assets out exactly', async () => {
    // A re-import moves an asset to another month and country; a new model is a new calculation.
    await importAssets([
      device('M-1', { purchase_date: '2022-01-20', country: 'NL' }),
      device('M-3', { model: 'Latitude 7440', country: 'FR' }),
    ]);
    expectSums(await rollup(), await fromApi());

    const before = await prisma().monthlyEmission.findMany({ where: { org_id: orgId }, orderBy: { id: 'asc' } });
    await prisma().asset.updateMany({ where: { org_id: orgId, serial_number: 'M-2' }, data: { status: 'recycled' } });
    expect(await prisma().monthlyEmission.findMany({ where: { org_id: orgId }, orderBy: { id: 'asc' } })).toEqual(before);

    // M-2, alone in the March laptops of DE since M-1 moved, and the monitor: their groups empty and go.
    await prisma().asset.deleteMany({ where: { org_id: orgId, serial_number: { in: ['M-2', 'M-6'] } } });
    const after = await rollup();
    expectSums(after, await fromApi());
    expect(after.some((r) => r.category === 'monitor' || (r.month === '2024-03-01' && r.category === 'laptop' && r.country === 'DE'))).toBe(
      false,
    );
    // Take one of two assets out of a group: what stays is exactly the other's figures.
    await importAssets([device('M-7', { country: 'FR' })]);
    const both = (await rollup()).find((r) => r.category === 'laptop' && r.country === 'FR')!;
    expect([both.asset_count, both.impacts_asset_count]).toEqual([2, 2]);
    await prisma().asset.deleteMany({ where: { org_id: orgId, serial_number: 'M-7' } });
    expect(await drift(orgId)).toEqual({ rows: after.length, drifted: 0 });
    expectSums(await rollup(), await fromApi());
  });

  it('gives the demo estate and a sandbox copy (assets and calculations inserted in one statement) their ADPe and PE', async () => {
    const testKey = (await t.createKey(orgId, { environment: 'test', bi_enabled: true })).key;
    expect((await t.json('/v1/assets?limit=1', { headers: bearer(testKey) })).status).toBe(200);
    const sandbox = sandboxOrgId(orgId);
    const rows = await prisma().monthlyEmission.findMany({ where: { org_id: sandbox } });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.impacts_asset_count === r.asset_count && r.adpe_kg_sb_eq !== null && r.pe_mj !== null)).toBe(true);
    expect((await drift(sandbox)).drifted).toBe(0);
  });

  it("backfills the calculations and rollup rows recorded before the migration, keeping the rows' ids", async () => {
    const before = await prisma().monthlyEmission.findMany({ where: { org_id: orgId }, orderBy: { id: 'asc' } });
    // As before the migration: no figures on the calculations nor on the rollup.
    await prisma().$executeRawUnsafe(
      `UPDATE calculations SET ${NAMES.map((n) => `${n} = NULL`).join(', ')} WHERE org_id = $1::uuid`,
      orgId,
    );
    await prisma().$executeRawUnsafe(
      `UPDATE monthly_emissions SET ${NAMES.map((n) => `${n} = NULL`).join(', ')}, impacts_asset_count = 0 WHERE org_id = $1::uuid`,
      orgId,
    );
    // (Writing the columns directly is no write of `result`: the calculations' trigger left them null.)
    expect((await rollup()).every((r) => r.adpe_kg_sb_eq === null && r.impacts_asset_count === 0)).toBe(true);
    const sql = await readFile(MIGRATION, 'utf8');
    const backfill = sql.slice(sql.indexOf('UPDATE calculations SET result = result'));
    const statements = backfill
      .split(/;\s*\n/)
      .map((s) => s.replace(/^(--[^\n]*\n)+/gm, '').trim())
      .filter(Boolean);
    expect(statements).toHaveLength(2);
    for (const statement of statements) await prisma().$executeRawUnsafe(statement.replace(/;$/, ''));
    expect(await prisma().monthlyEmission.findMany({ where: { org_id: orgId }, orderBy: { id: 'asc' } })).toEqual(before);
  });
});
