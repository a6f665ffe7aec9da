import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { seedDemo } from '../../src/assets/seed-demo.ts';

let t: TestApp;
let orgId: string;
let key: string;
let seeded: string[];
let foreignId: string;
const prisma = () => t.app.services.db.prisma;

const SIMULATE = `mutation Sim($ids: [ID!]!, $grade: String) {
  simulateRefurbish(assetIds: $ids, grade: $grade) {
    current_quarterly_co2e scenario_quarterly_co2e delta_kg_co2e delta_percentage affected_assets_count grade scenario_run_id assumptions
    impacts { ${['gwp', 'adpe', 'pe'].map((c) => `${c} { unit current_quarterly scenario_quarterly delta delta_percentage }`).join(' ')} }
  }
}`;

beforeAll(async () => {
  t = await createTestApp();
  const org = await t.createOrg('business', 'Scenario Org');
  orgId = org.id;
  key = (await t.createKey(org.id)).key;
  await seedDemo(prisma(), orgId, 600, undefined, { seed: 11 });
  seeded = (await prisma().asset.findMany({ where: { org_id: orgId }, select: { id: true }, orderBy: { id: 'asc' } })).map((a) => a.id);
  const other = await t.createOrg('business', 'Foreign Org');
  await seedDemo(prisma(), other.id, 1, undefined, { seed: 12 });
  foreignId = (await prisma().asset.findFirstOrThrow({ where: { org_id: other.id } })).id;
});
afterAll(() => t?.close());

const snapshot = () =>
  Promise.all([
    prisma().asset.findMany({ where: { org_id: orgId }, orderBy: { id: 'asc' } }),
    prisma().calculation.count({ where: { org_id: orgId } }),
    prisma().assetEvent.count({ where: { org_id: orgId } }),
  ]);

describe(`simulateRefurbish on ${TEST_DATABASE_KIND}`, () => {
  it('matches the refurbishment engine for one asset: buying new vs refurbishing, for one quarter', async () => {
    const imported = await t.json('/v1/assets', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        assets: [{ brand: 'Dell', model: 'Latitude Custom 14', serial_number: 'S-1', country: 'PL', weight_kg: 1.5, ram_gb: 16, tdp: 15 }],
      }),
    });
    const id = imported.body.assets[0].id;
    const res = await t.graphql(SIMULATE, { ids: [id] }, key);
    expect(res.body.errors).toBeUndefined();
    const s = res.body.data.simulateRefurbish;
    // The same comparison through the public refurbishment endpoint: grade B, a quarter of a year, no swaps.
    const qs = new URLSearchParams({
      brand: 'Dell',
      model: 'Latitude Custom 14',
      country: 'PL',
      grade: 'B',
      remaining_years: '0.25',
      weight_kg: '1.5',
      ram_gb: '16',
      tdp: '15',
    });
    const r = (await t.json(`/v1/refurbishment?${qs}`)).body;
    expect(s.current_quarterly_co2e).toBeCloseTo(r.new_device.embodied_kg + r.adjusted_use_phase.new_device_use_phase_kg, 1);
    expect(s.scenario_quarterly_co2e).toBeCloseTo(r.refurbishment_total_kg + r.adjusted_use_phase.refurbished_use_phase_kg, 1);
    expect(s.delta_kg_co2e).toBeCloseTo(s.scenario_quarterly_co2e - s.current_quarterly_co2e, 1);
    expect(s.delta_kg_co2e).toBeLessThan(0); // refurbishing a laptop avoids most of a new one's embodied emissions
    expect(s.delta_percentage).toBeCloseTo((s.delta_kg_co2e / s.current_quarterly_co2e) * 100, 0);
    expect(s).toMatchObject({ affected_assets_count: 1, grade: 'B' });
    expect(s.assumptions.join(' ')).toMatch(/joint end of life/);
    // The same quarters in GWP (the figures above), ADPe and PE: the footprint's production and transport and a quarter of
    // its lifetime use, against that less the refurbishment's net savings in the criterion, as the public endpoints answer them.
    expect(s.impacts.gwp).toEqual({
      unit: 'kg CO2e',
      current_quarterly: s.current_quarterly_co2e,
      scenario_quarterly: s.scenario_quarterly_co2e,
      delta: s.delta_kg_co2e,
      delta_percentage: s.delta_percentage,
    });
    const device = new URLSearchParams(qs);
    for (const name of ['grade', 'remaining_years']) device.delete(name);
    const f = (await t.json(`/v1/footprint?${device}`)).body;
    /** Within the rounding of the endpoints' figures (4 significant digits). */
    const near = (actual: number, expected: number, what: string) =>
      expect(Math.abs(actual - expected) / Math.abs(expected), `${what}: ${actual} vs ${expected}`).toBeLessThan(2e-3);
    for (const [c, unit] of [
      ['adpe', 'kg Sb eq'],
      ['pe', 'MJ'],
    ] as const) {
      const phases = f.impacts[c].phases;
      const current = phases.production + phases.transport + (phases.use * 0.25) / f.methodology.lifetime_years;
      expect(s.impacts[c].unit).toBe(unit);
      near(s.impacts[c].current_quarterly, current, `${c} current`);
      near(s.impacts[c].delta, -r.impacts[c].total, `${c} delta`);
      expect(s.impacts[c].delta).toBeLessThan(0);
    }
    const gradeA = (await t.graphql(SIMULATE, { ids: [id], grade: 'A' }, key)).body.data.simulateRefurbish;
    expect(gradeA.scenario_quarterly_co2e).toBeGreaterThan(s.scenario_quarterly_co2e);
  });

  it('leaves every asset row unchanged and logs the run (scenario_runs and audit_log)', async () => {
    const before = await snapshot();
    const ids = seeded.slice(0, 500);
    const res = await t.graphql(SIMULATE, { ids: [...ids, ids[0]] }, key);
    expect(res.body.errors).toBeUndefined();
    const s = res.body.data.simulateRefurbish;
    expect(s.affected_assets_count).toBe(500);
    expect(s.current_quarterly_co2e).toBeGreaterThan(s.scenario_quarterly_co2e);
    expect(await snapshot()).toEqual(before);

    const run = await prisma().scenarioRun.findUniqueOrThrow({ where: { id: s.scenario_run_id } });
    expect(run).toMatchObject({ org_id: orgId, kind: 'simulate_refurbish' });
    expect(new Set(run.asset_ids)).toEqual(new Set(ids));
    expect(run.result).toMatchObject({
      current_quarterly_co2e: s.current_quarterly_co2e,
      delta_kg_co2e: s.delta_kg_co2e,
      affected_assets_count: 500,
    });
    const audit = await prisma().auditLog.findFirstOrThrow({
      where: { org_id: orgId, event: 'scenario.simulate_refurbish', subject_id: s.scenario_run_id },
    });
    expect(audit).toMatchObject({ subject_type: 'scenario_run', data: { asset_count: 500, grade: 'B' } });
    expect(audit.actor_key_id).toBeTruthy();
  });

  it('refuses more than 500 assets, and names unknown and foreign ids alike', async () => {
    const tooMany = await t.graphql(SIMULATE, { ids: seeded.slice(0, 501) }, key);
    expect(tooMany.body.errors[0].extensions).toMatchObject({
      code: 'TOO_MANY_ASSETS',
      details: expect.stringMatching(/at most 500 assets per call, got 501/),
    });
    const unknown = '00000000-0000-4000-8000-000000000000';
    const res = await t.graphql(SIMULATE, { ids: [seeded[0], unknown, foreignId, 'nope'] }, key);
    expect(res.body.errors[0].extensions.code).toBe('ASSETS_NOT_FOUND');
    expect(res.body.errors[0].extensions.details).toBe(`assetIds: no asset with id ${unknown}, ${foreignId}, nope in your organisation`);
    const empty = await t.graphql(SIMULATE, { ids: [] }, key);
    expect(empty.body.errors[0].extensions.code).toBe('INVALID_PARAMETER');
    const grade = await t.graphql(SIMULATE, { ids: [seeded[0]], grade: 'D' }, key);
    expect(grade.body.errors[0].extensions.details).toMatch(/^grade: must be A/);
    // Refused calls are not logged as runs.
    expect(await prisma().scenarioRun.count({ where: { org_id: orgId } })).toBe(3);
  });
});
