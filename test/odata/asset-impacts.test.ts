import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { bearer } from '../certificates/support.ts';
import { SANDBOX_ORG_ID, sandboxOrgId } from '../../src/sandbox/sandbox.ts';

/**
 * Assets' whole-life ADPe and PE in OData (adpe_kg_sb_eq, pe_mj): the totals of the active calculation's
 * stored impacts, kept by the assets' row trigger on every write and backfilled by migration asset_impact_totals.
 */
let t: TestApp;
let key: string;
let orgId: string;
const prisma = () => t.app.services.db.prisma;
const MIGRATION = new URL('../../prisma/migrations/20261129191528_asset_impact_totals/migration.sql', import.meta.url);

const assets = () =>
  t.json('/v1/odata/Assets?$select=serial_number,active_calculation_id,total_kg_co2e,adpe_kg_sb_eq,pe_mj&$orderby=serial_number', {
    headers: { authorization: `Bearer ${key}` },
  });

/** Each asset's ADPe and PE as the API answered them: the stored result of its active calculation. */
async function storedTotals(): Promise<Record<string, { adpe_kg_sb_eq: number | null; pe_mj: number | null }>> {
  const rows = await prisma().asset.findMany({
    where: { org_id: orgId },
    select: { serial_number: true, active_calculation: { select: { result: true } } },
  });
  return Object.fromEntries(
    rows.map((a) => {
      const impacts = (a.active_calculation?.result as { impacts?: Record<'adpe' | 'pe', { total: number }> } | undefined)?.impacts;
      return [a.serial_number!, { adpe_kg_sb_eq: impacts?.adpe.total ?? null, pe_mj: impacts?.pe.total ?? null }];
    }),
  );
}

beforeAll(async () => {
  t = await createTestApp();
  orgId = (await t.createOrg('enterprise', 'Metals BI')).id;
  key = (await t.createKey(orgId, { bi_enabled: true })).key;
  const res = await t.json('/v1/assets', {
    method: 'POST',
    headers: bearer(key),
    body: JSON.stringify({
      assets: [
        { brand: 'Dell', model: 'Latitude 5440', serial_number: 'I-1', country: 'DE' },
        { brand: 'Acme', model: 'Custom Phone 6', category: 'smartphone', serial_number: 'I-2', country: 'FR' },
      ],
    }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.failed, JSON.stringify(res.body.errors)).toBe(0);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe(`OData Assets ADPe and PE on ${TEST_DATABASE_KIND}`, () => {
  it("answers each asset's whole-life ADPe and PE: its active calculation's stored impacts", async () => {
    const res = await assets();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const stored = await storedTotals();
    expect(res.body.value).toHaveLength(2);
    for (const row of res.body.value) {
      expect(row.adpe_kg_sb_eq).toBeGreaterThan(0);
      expect(row.pe_mj).toBeGreaterThan(0);
      expect({ adpe_kg_sb_eq: row.adpe_kg_sb_eq, pe_mj: row.pe_mj }).toEqual(stored[row.serial_number]);
    }
    // Filterable and sortable like the GWP columns.
    const phone = stored['I-2']!.adpe_kg_sb_eq!;
    const filtered = await t.json(
      `/v1/odata/Assets?$select=serial_number&$orderby=serial_number&$filter=${encodeURIComponent(`adpe_kg_sb_eq ge ${phone}`)}`,
      {
        headers: { authorization: `Bearer ${key}` },
      },
    );
    expect(filtered.body.value.map((r: { serial_number: string }) => r.serial_number)).toEqual(
      Object.entries(stored)
        .filter(([, s]) => s.adpe_kg_sb_eq! >= phone)
        .map(([serial]) => serial)
        .sort(),
    );
    const sorted = await t.json('/v1/odata/Assets?$select=serial_number&$orderby=pe_mj desc', {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(sorted.body.value.map((r: { serial_number: string }) => r.serial_number)).toEqual(
      Object.entries(stored)
        .sort(([, a], [, b]) => b.pe_mj! - a.pe_mj!)
        .map(([serial]) => serial),
    );
  });

  it('has null for a calculation stored before impacts beyond carbon, and follows the active calculation when it changes', async () => {
    const asset = await prisma().asset.findFirstOrThrow({
      where: { org_id: orgId, serial_number: 'I-1' },
      include: { active_calculation: true },
    });
    const current = asset.active_calculation!;
    const { impacts: _impacts, ...older } = current.result as Record<string, unknown>;
    const { id: _id, created_at: _created, result: _result, ...figures } = current;
    const bare = await prisma().calculation.create({ data: { ...figures, inputs: figures.inputs as object, result: older as object } });
    await prisma().asset.update({ where: { id: asset.id }, data: { active_calculation_id: bare.id } });
    const row = (await assets()).body.value.find((r: { serial_number: string }) => r.serial_number === 'I-1');
    expect(row).toMatchObject({ active_calculation_id: bare.id, total_kg_co2e: current.total_kg_co2e, adpe_kg_sb_eq: null, pe_mj: null });
    await prisma().asset.update({ where: { id: asset.id }, data: { active_calculation_id: current.id } });
    expect((await assets()).body.value.find((r: { serial_number: string }) => r.serial_number === 'I-1').adpe_kg_sb_eq).toBe(
      (await storedTotals())['I-1']!.adpe_kg_sb_eq,
    );
  });

  it("backfills the assets recorded before the migration from their active calculations' stored impacts", async () => {
    const before = (await assets()).body.value;
    // As before the migration: no figures (the trigger runs only when active_calculation_id is written).
    await prisma().$executeRawUnsafe('UPDATE assets SET adpe_kg_sb_eq = NULL, pe_mj = NULL WHERE org_id = $1::uuid', orgId);
    expect((await assets()).body.value.every((r: { adpe_kg_sb_eq: unknown }) => r.adpe_kg_sb_eq === null)).toBe(true);
    const sql = await readFile(MIGRATION, 'utf8');
    const backfill = sql.slice(sql.indexOf('UPDATE assets a SET'));
    expect(backfill).toMatch(/^UPDATE assets a SET[\s\S]+;\s*$/);
    await prisma().$executeRawUnsafe(backfill.trim().replace(/;$/, ''));
    expect((await assets()).body.value).toEqual(before);
  });

  it("gives the demo estate and a sandbox copy (assets inserted with their calculations in one statement) their calculations' figures", async () => {
    // A test key's first request creates the organisation's sandbox, copied from the demo estate.
    const testKey = (await t.createKey(orgId, { environment: 'test' })).key;
    expect((await t.json('/v1/assets?limit=1', { headers: bearer(testKey) })).status).toBe(200);
    // Every figure the asset keeps equals its active calculation's, as the trigger reads them.
    const mismatches = `
      SELECT count(*)::int AS assets,
        count(*) FILTER (WHERE a.transport_kg IS DISTINCT FROM c.transport_kg OR a.end_of_life_kg IS DISTINCT FROM c.end_of_life_kg
          OR a.annual_kwh IS DISTINCT FROM (c.result -> 'methodology' ->> 'annual_kwh')::float8
          OR a.lifetime_years IS DISTINCT FROM (c.result -> 'methodology' ->> 'lifetime_years')::float8
          OR a.uncertainty_pct IS DISTINCT FROM (c.result -> 'methodology' ->> 'uncertainty_pct')::float8
          OR a.adpe_kg_sb_eq IS DISTINCT FROM (c.result -> 'impacts' -> 'adpe' ->> 'total')::float8
          OR a.pe_mj IS DISTINCT FROM (c.result -> 'impacts' -> 'pe' ->> 'total')::float8
          OR a.calculated_at IS NULL OR a.adpe_kg_sb_eq IS NULL)::int AS mismatched
      FROM assets a JOIN calculations c ON c.id = a.active_calculation_id WHERE a.org_id = $1::uuid`;
    for (const org of [SANDBOX_ORG_ID, sandboxOrgId(orgId)]) {
      const [row] = await prisma().$queryRawUnsafe<{ assets: number; mismatched: number }[]>(mismatches, org);
      expect(row!.assets, org).toBeGreaterThan(0);
      expect(row!.mismatched, org).toBe(0);
    }
  });
});
