import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { seedDemo } from '../../src/assets/seed-demo.ts';
import { CONFIDENCE_LEVELS } from '../../src/footprint/engine/index.ts';

let t: TestApp;
let orgId: string;
let key: string;
let seeded: string[];
let foreignId: string;
const prisma = () => t.app.services.db.prisma;

const CRITERION =
  'unit phases { production transport use end_of_life } total uncertainty_pct interval { low high method } confidence sources notes';
const SIDES = ['current', 'scenario', 'difference'].map((side) => `${side} { ${CRITERION} }`).join(' ');
const PHASES = ['production', 'transport', 'use', 'end_of_life'] as const;
const SIMULATE = `mutation Sim($ids: [ID!]!, $grade: String) {
  simulateRefurbish(assetIds: $ids, grade: $grade) {
    current_quarterly_co2e scenario_quarterly_co2e delta_kg_co2e delta_percentage affected_assets_count grade scenario_run_id assumptions
    impacts { ${['gwp', 'adpe', 'pe'].map((c) => `${c} { unit current_quarterly scenario_quarterly delta delta_percentage ${SIDES} }`).join(' ')} }
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
    expect(s.impacts.gwp).toMatchObject({
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
    for (const c of ['gwp', 'adpe', 'pe'] as const) {
      const i = s.impacts[c];
      // By phase: each side sums to its figure (up to rounding); the difference is the refurbishment's savings negated.
      for (const [side, total] of [
        [i.current, i.current_quarterly],
        [i.scenario, i.scenario_quarterly],
        [i.difference, i.delta],
      ] as const) {
        expect(side.total, c).toBe(total);
        const sum = PHASES.reduce((t, p) => t + side.phases[p], 0);
        expect(Math.abs(sum - total), `${c}: phases sum ${sum} vs ${total}`).toBeLessThanOrEqual(Math.max(0.02, Math.abs(total) * 2e-3));
        expect(side.phases.end_of_life).toBe(0);
      }
      for (const p of ['production', 'transport', 'use'] as const) {
        const saved = r.impacts[c].phases[p];
        expect(Math.abs(i.difference.phases[p] + saved), `${c} ${p}`).toBeLessThanOrEqual(Math.max(0.02, Math.abs(saved) * 2e-3));
      }
      // The uncertainty and confidence of the one asset's footprint; the ~80% interval by hand from it.
      const u = f.impacts[c].uncertainty_pct;
      for (const side of [i.current, i.scenario, i.difference]) {
        expect(side.uncertainty_pct, c).toBe(u);
        expect(side.confidence, c).toBe(f.impacts[c].confidence);
      }
      const within = (actual: number, expected: number, what: string) =>
        expect(Math.abs(actual - expected), `${c} ${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(
          Math.max(0.011, Math.abs(expected) * 2e-3),
        );
      within(i.current.interval.low, i.current_quarterly / (1 + u / 100), 'current low');
      within(i.current.interval.high, i.current_quarterly * (1 + u / 100), 'current high');
      within(i.difference.interval.low, i.delta * (1 + u / 100), 'delta low');
      within(i.difference.interval.high, i.delta / (1 + u / 100), 'delta high');
      // the delta's interval is the refurbishment endpoint's interval of the net savings, negated
      within(i.difference.interval.low, -r.impacts[c].interval.high, 'delta low vs refurbishment');
      within(i.difference.interval.high, -r.impacts[c].interval.low, 'delta high vs refurbishment');
    }
    expect(s.impacts.gwp.current.confidence).toBe(f.methodology.confidence);
    expect(s.impacts.gwp.current.uncertainty_pct).toBe(f.methodology.uncertainty_pct);

    // Two assets of the same model: every figure twice the one asset's, the interval twice as wide (errors fully
    // correlated: the same model errs the same way for both), the same uncertainty_pct.
    const twin = await t.json('/v1/assets', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        assets: [{ brand: 'Dell', model: 'Latitude Custom 14', serial_number: 'S-2', country: 'PL', weight_kg: 1.5, ram_gb: 16, tdp: 15 }],
      }),
    });
    const pair = (await t.graphql(SIMULATE, { ids: [id, twin.body.assets[0].id] }, key)).body.data.simulateRefurbish;
    for (const c of ['gwp', 'adpe', 'pe'] as const) {
      for (const side of ['current', 'scenario', 'difference'] as const) {
        const one = s.impacts[c][side];
        const two = pair.impacts[c][side];
        const twice = (a: number, b: number, what: string) =>
          expect(Math.abs(a - 2 * b), `${c} ${side} ${what}: ${a} vs 2 x ${b}`).toBeLessThanOrEqual(Math.max(0.021, Math.abs(b) * 2e-3));
        twice(two.total, one.total, 'total');
        twice(two.interval.low, one.interval.low, 'low');
        twice(two.interval.high, one.interval.high, 'high');
        expect(two.uncertainty_pct, `${c} ${side}`).toBe(one.uncertainty_pct);
        expect(two.confidence, `${c} ${side}`).toBe(one.confidence);
      }
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
    // The portfolio's confidence is the lowest of the assets' calculations; its uncertainty lies within theirs.
    const calculated = await prisma().asset.findMany({
      where: { id: { in: ids } },
      select: { uncertainty_pct: true, active_calculation: { select: { confidence: true } } },
    });
    const levels = new Set(calculated.map((a) => a.active_calculation!.confidence as string));
    expect(s.impacts.gwp.current.confidence).toBe(CONFIDENCE_LEVELS.findLast((level) => levels.has(level)));
    const stated = calculated.map((a) => a.uncertainty_pct!);
    expect(s.impacts.gwp.current.uncertainty_pct).toBeGreaterThanOrEqual(Math.min(...stated));
    expect(s.impacts.gwp.current.uncertainty_pct).toBeLessThanOrEqual(Math.max(...stated));
    for (const c of ['gwp', 'adpe', 'pe'] as const) {
      for (const side of [s.impacts[c].current, s.impacts[c].scenario, s.impacts[c].difference]) {
        expect(side.interval.low, c).toBeLessThan(side.total);
        expect(side.interval.high, c).toBeGreaterThan(side.total);
        expect(side.interval.method, c).toMatch(/summed bound by bound/);
        const sum = PHASES.reduce((t, p) => t + side.phases[p], 0);
        expect(Math.abs(sum - side.total), c).toBeLessThanOrEqual(Math.max(0.05, Math.abs(side.total) * 2e-3));
      }
    }
    expect(run.result).toMatchObject({ impacts: { adpe: { difference: { total: s.impacts.adpe.delta } } } });
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
    expect(await prisma().scenarioRun.count({ where: { org_id: orgId } })).toBe(4);
  });
});
