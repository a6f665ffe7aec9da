import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, qs, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';

let t: TestApp;
let orgKey: string;
beforeAll(async () => {
  t = await createTestApp();
  // business: ad-hoc GraphQL queries
  orgKey = (await t.createKey((await t.createOrg('business', 'Duration Org')).id)).key;
});
afterAll(() => t.close());

// A laptop (lifetime 4 years) with its specs supplied, used in Germany.
const LAPTOP = {
  brand: 'Dell',
  model: 'Custom Build 14',
  category: 'laptop',
  country: 'DE',
  weight_kg: 1.4,
  tdp: 15,
  ram_gb: 16,
  storage_gb: 512,
  storage_type: 'nvme',
};
/** Each figure is rounded to 0.01 kg from its unrounded value: a figure derived from two rounded ones may differ by 0.01. */
const ROUNDING = 0.011;
/** The query string of parameters of any type (booleans as true/false). */
const query = (params: object) => qs(params as Record<string, string | number>);
const near = (actual: number, expected: number, what: string) => expect(Math.abs(actual - expected), what).toBeLessThanOrEqual(ROUNDING);

const footprint = async (params: Record<string, unknown>) => {
  const res = await t.json(`/v1/footprint?${query(params)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const expectInvalid = (res: { status: number; body: any }, field: string, reason: RegExp) => {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.code).toBe('INVALID_PARAMETER');
  expect(res.body.details).toMatch(new RegExp(`(^|; )${field}: `));
  expect(res.body.details).toMatch(reason);
};

describe(`footprint allocated over a duration on ${TEST_DATABASE_KIND}`, () => {
  it('half the lifetime: half of each embodied phase, the use phase for two years, the interval scaled, confidence unchanged', async () => {
    const whole = await footprint(LAPTOP);
    const half = await footprint({ ...LAPTOP, duration_years: 2 });
    expect(whole.methodology.lifetime_years).toBe(4);
    expect(whole.methodology.allocation).toBeNull();
    expect(half.methodology.allocation).toEqual({ method: 'duration', duration_years: 2, lifetime_years: 4, share: 0.5 });
    const w = whole.breakdown;
    near(half.breakdown.production_kg, w.production_kg / 2, 'production');
    near(half.breakdown.transport_kg, w.transport_kg / 2, 'transport');
    near(half.breakdown.end_of_life_kg, w.end_of_life_kg / 2, 'end of life');
    // use phase: the annual energy x 2 years x the grid factor
    const m = whole.methodology;
    near(half.breakdown.use_phase_kg, m.annual_kwh * 2 * m.grid_factor_kg_per_kwh, 'use phase');
    near(half.total_kg_co2e, whole.total_kg_co2e / 2, 'total');
    near(half.methodology.interval.low_kg, m.interval.low_kg / 2, 'interval low');
    near(half.methodology.interval.high_kg, m.interval.high_kg / 2, 'interval high');
    expect(half.methodology.interval.method).toBe(m.interval.method);
    expect([half.methodology.uncertainty_pct, half.methodology.confidence]).toEqual([m.uncertainty_pct, m.confidence]);
    expect([half.methodology.lifetime_years, half.methodology.annual_kwh]).toEqual([4, m.annual_kwh]);
    // the answer's fields are the whole-life answer's
    expect(Object.keys(half).sort()).toEqual(Object.keys(whole).sort());
    expect(Object.keys(half.breakdown)).toEqual(Object.keys(whole.breakdown));
    // every criterion alike: half of each embodied phase, two of four years of use; GWP the carbon figures
    near(half.impacts.gwp.total, half.total_kg_co2e, 'GWP criterion = total_kg_co2e');
    for (const c of ['adpe', 'pe'] as const) {
      const [h, wc] = [half.impacts[c], whole.impacts[c]];
      // ADPe and PE are rounded to 4 significant digits
      const half4 = (actual: number, whole: number, what: string) =>
        expect(Math.abs(actual - whole / 2), what).toBeLessThanOrEqual(Math.abs(whole) * 1e-3);
      for (const phase of ['production', 'transport', 'use', 'end_of_life']) half4(h.phases[phase], wc.phases[phase], `${c} ${phase}`);
      half4(h.total, wc.total, `${c} total`);
      expect(h.uncertainty_pct).toBe(wc.uncertainty_pct);
    }
  });

  it('per_year: embodied / lifetime + one year of use', async () => {
    const whole = await footprint(LAPTOP);
    const year = await footprint({ ...LAPTOP, per_year: true });
    expect(year.methodology.allocation).toEqual({ method: 'per_year', duration_years: 1, lifetime_years: 4, share: 0.25 });
    const w = whole.breakdown;
    const m = whole.methodology;
    near(year.breakdown.production_kg, w.production_kg / 4, 'production');
    near(year.breakdown.use_phase_kg, m.annual_kwh * m.grid_factor_kg_per_kwh, 'one year of use');
    near(year.total_kg_co2e, (w.production_kg + w.transport_kg + w.end_of_life_kg) / 4 + m.annual_kwh * m.grid_factor_kg_per_kwh, 'total');
    // per_year=false is the whole life
    expect((await footprint({ ...LAPTOP, per_year: false })).total_kg_co2e).toBe(whole.total_kg_co2e);
  });

  it('the whole lifetime as a duration is the whole-life answer', async () => {
    const whole = await footprint(LAPTOP);
    const four = await footprint({ ...LAPTOP, duration_years: 4 });
    expect([four.total_kg_co2e, four.breakdown, four.methodology.interval]).toEqual([
      whole.total_kg_co2e,
      whole.breakdown,
      whole.methodology.interval,
    ]);
    expect(four.methodology.allocation.share).toBe(1);
  });

  it.each([
    [{ duration_years: 0 }, 'duration_years', /must be greater than 0/],
    [{ duration_years: -1 }, 'duration_years', /must be greater than 0/],
    [{ duration_years: 'two' }, 'duration_years', /./],
    [{ duration_years: 51 }, 'duration_years', /must be at most 50 years/],
    [{ duration_years: 4.5 }, 'duration_years', /must be at most the device's lifetime, 4 years, got 4.5/],
    [{ per_year: 'yes' }, 'per_year', /./],
    [{ per_year: 1 }, 'per_year', /./],
    [{ per_year: true, duration_years: 2 }, 'per_year', /cannot be combined with duration_years/],
  ])('%j → 400 naming %s', async (extra, field, reason) => {
    expectInvalid(await t.json(`/v1/footprint?${query({ ...LAPTOP, ...extra })}`), field, reason);
  });

  it('GraphQL answers the same allocation as REST', async () => {
    const rest = await footprint({ ...LAPTOP, duration_years: 2 });
    const res = await t.graphql(
      `query { footprint(brand: "Dell", model: "Custom Build 14", category: "laptop", country: "DE", weight_kg: 1.4, tdp: 15, ram_gb: 16,
        storage_gb: 512, storage_type: nvme, duration_years: 2) {
        total_kg_co2e breakdown { production_kg use_phase_kg } methodology { allocation { method duration_years lifetime_years share } } } }`,
      {},
      orgKey,
    );
    expect(res.body.errors).toBeUndefined();
    const g = res.body.data.footprint;
    expect(g.total_kg_co2e).toBe(rest.total_kg_co2e);
    expect(g.breakdown).toEqual({ production_kg: rest.breakdown.production_kg, use_phase_kg: rest.breakdown.use_phase_kg });
    expect(g.methodology.allocation).toEqual(rest.methodology.allocation);
    const bad = await t.graphql(
      'query { footprint(brand: "Dell", model: "X", country: "DE", duration_years: 0) { total_kg_co2e } }',
      {},
      orgKey,
    );
    expect(bad.body.errors[0].message).toMatch(/duration_years/);
  });

  it('batch: each item its own allocation, a bad duration that item error', async () => {
    const whole = await footprint(LAPTOP);
    const res = await t.json('/v1/footprint/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${orgKey}` },
      body: JSON.stringify({
        products: [LAPTOP, { ...LAPTOP, duration_years: 2 }, { ...LAPTOP, per_year: true }, { ...LAPTOP, duration_years: 0 }],
      }),
    });
    expect(res.status).toBe(200);
    expect(res.body.successful).toBe(3);
    const [all, half, year, bad] = res.body.results;
    expect(all.total_kg_co2e).toBe(whole.total_kg_co2e);
    expect(all.methodology.allocation).toBeNull();
    near(half.total_kg_co2e, whole.total_kg_co2e / 2, 'half');
    expect(half.methodology.allocation.share).toBe(0.5);
    expect(year.methodology.allocation.method).toBe('per_year');
    expect(bad).toEqual({ error: expect.stringMatching(/^duration_years: must be greater than 0/), index: 3 });
    // the allocated calculation is stored as answered, with its own id
    expect(half.calculation_id).not.toBe(all.calculation_id);
    // a certificate states whole-life figures: the whole-life calculation is certified, the allocated one refused
    const certify = (calculation_id: string) =>
      t.json('/v1/certificate', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${orgKey}` },
        body: JSON.stringify({ calculation_id }),
      });
    expect((await certify(all.calculation_id)).status).toBe(200);
    const refused = await certify(half.calculation_id);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('CALCULATION_NOT_CERTIFIABLE');
    expect(refused.body.details).toMatch(/allocated to a duration/);
  });

  it('the REST fast path keeps the duration in its remembered key: each query answered as the pipeline answers it', async () => {
    const base = await t.listen();
    const metric = async () => {
      const text = await (await t.request('/metrics', { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).text();
      const line = text.split('\n').find((l) => l.startsWith('lcf_fast_path_answers_total{route="/v1/footprint",answer="resolver"}'));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const paths = [LAPTOP, { ...LAPTOP, duration_years: 2 }, { ...LAPTOP, per_year: true }].map(
      (p) => `${base}/v1/footprint?${query({ ...p, model: 'Fast Path Build' })}`,
    );
    // an organisation's key: its calculations are stored, so a repeat answers the same calculation_id and calculated_at
    const get = async (p: string) => (await fetch(p, { headers: { authorization: `Bearer ${orgKey}` } })).text();
    const first = await Promise.all(paths.map(get));
    const before = await metric();
    const again = await Promise.all(paths.map(get));
    expect(await metric()).toBe(before + 3);
    expect(again).toEqual(first);
    const totals = first.map((text) => JSON.parse(text).total_kg_co2e);
    near(totals[1], totals[0] / 2, 'fast path half');
    expect(new Set(totals).size).toBe(3);
  });
});

describe(`savings and refurbishment allocated over a duration on ${TEST_DATABASE_KIND}`, () => {
  it('savings: the new device avoided for duration / lifetime, the extra electricity for the duration', async () => {
    const whole = (await t.json(`/v1/savings?${qs({ ...LAPTOP, remaining_years: 2 })}`)).body;
    const res = await t.json(`/v1/savings?${qs({ ...LAPTOP, remaining_years: 2, duration_years: 1 })}`);
    expect(res.status).toBe(200);
    const s = res.body;
    expect(s.methodology.allocation).toEqual({ method: 'duration', duration_years: 1, lifetime_years: 4, share: 0.25 });
    near(s.avoided_production_kg, whole.avoided_production_kg / 4, 'avoided production');
    near(s.avoided_transport_kg, whole.avoided_transport_kg / 4, 'avoided transport');
    near(s.additional_use_phase_kg, whole.additional_use_phase_kg / 2, 'one of the two years of extra electricity');
    near(s.avoided_co2_kg, s.avoided_production_kg + s.avoided_transport_kg - s.additional_use_phase_kg, 'net');
    expect(s.remaining_life_years).toBe(2);
    expect(whole.methodology.allocation).toBeNull();
    near(s.impacts.gwp.total, s.avoided_co2_kg, 'GWP criterion = avoided_co2_kg');
    const [a, w] = [s.impacts.pe.phases, whole.impacts.pe.phases];
    expect(Math.abs(a.production - w.production / 4)).toBeLessThanOrEqual(Math.abs(w.production) * 1e-3);
    expect(Math.abs(a.use - w.use / 2)).toBeLessThanOrEqual(Math.abs(w.use) * 1e-3);
    expect(a.end_of_life).toBe(0);
  });

  it('refurbishment per year: the new device / lifetime, overhead and swaps / remaining years, one year of use', async () => {
    const params = { ...LAPTOP, grade: 'B', remaining_years: 2, swaps: 'battery:50' };
    const whole = (await t.json(`/v1/refurbishment?${qs(params)}`)).body;
    const res = await t.json(`/v1/refurbishment?${qs({ ...params, per_year: 'true' })}`);
    expect(res.status).toBe(200);
    const r = res.body;
    expect(r.methodology.allocation).toEqual({ method: 'per_year', duration_years: 1, lifetime_years: 4, share: 0.25 });
    near(r.gross_avoided_kg, whole.gross_avoided_kg / 4, 'gross avoided');
    near(r.new_device.embodied_kg, whole.new_device.embodied_kg / 4, 'new device');
    near(r.overhead.total_kg, whole.overhead.total_kg / 2, 'overhead');
    near(r.swaps_total_kg, whole.swaps_total_kg / 2, 'swaps');
    near(r.adjusted_use_phase.additional_use_phase_kg, whole.adjusted_use_phase.additional_use_phase_kg / 2, 'one year of extra use');
    near(r.net_savings_kg, r.gross_avoided_kg - r.refurbishment_total_kg - r.adjusted_use_phase.additional_use_phase_kg, 'net');
    expect(r.break_even_years).toBe(whole.break_even_years);
    near(r.impacts.gwp.total, r.net_savings_kg, 'GWP criterion = net_savings_kg');
    near(r.impacts.gwp.phases.use, -r.adjusted_use_phase.additional_use_phase_kg, 'GWP criterion use');
    const [pe, wpe] = [r.impacts.pe.phases.use, whole.impacts.pe.phases.use];
    expect(Math.abs(pe - wpe / 2)).toBeLessThanOrEqual(Math.abs(wpe) * 1e-3);
  });

  it.each([
    ['savings', { remaining_years: 2, duration_years: 3 }, 'duration_years', /must be at most remaining_years, 2, got 3/],
    ['savings', { remaining_years: 0, per_year: true }, 'per_year', /needs remaining_years above 0/],
    ['savings', { duration_years: -2 }, 'duration_years', /must be greater than 0/],
    ['refurbishment', { grade: 'A', remaining_years: 6, duration_years: 5 }, 'duration_years', /lifetime, 4 years/],
  ])('%s %j → 400 naming %s', async (path, extra, field, reason) => {
    expectInvalid(await t.json(`/v1/${path}?${query({ ...LAPTOP, ...extra })}`), field, reason);
  });
});
