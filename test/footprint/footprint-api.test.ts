import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, qs, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { INTERVAL_METHOD, uncertaintyInterval } from '../../src/footprint/engine/index.ts';

let t: TestApp;
let orgKey: string;
let orgId: string;
beforeAll(async () => {
  t = await createTestApp();
  const org = await t.createOrg('pro', 'Calc Org');
  orgId = org.id;
  orgKey = (await t.createKey(org.id)).key;
});
afterAll(() => t.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const expectInvalid = (res: { status: number; body: any }, field: string, reason?: RegExp) => {
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('INVALID_PARAMETER');
  expect(res.body.details).toMatch(new RegExp(`(^|; )${field.replace(/[[\]]/g, '\\$&')}: `));
  if (reason) expect(res.body.details).toMatch(reason);
};

describe(`GET /v1/footprint on ${TEST_DATABASE_KIND}`, () => {
  it("gives a catalogue monitor without a published weight the engine's weight for its screen, and more footprint for a larger one", async () => {
    const at = async (model: string) => {
      const res = await t.json(`/v1/footprint?${qs({ brand: 'Dell', model, country: 'DE' })}`);
      expect(res.status).toBe(200);
      return res.body;
    };
    const [small, large] = [await at('P2419H'), await at('U4924DW')];
    // 5 kg at 24 inch x (screen / 24)^2 (docs/methodology.md section 2); neither sheet in the catalogue gives a weight
    expect(small.product).toMatchObject({ name: 'Dell P2419H Monitor', category: 'monitor', weight_kg: 4.92 });
    expect(large.product).toMatchObject({ name: 'Dell UltraSharp U4924DW Monitor', category: 'monitor', weight_kg: 20.84 });
    expect(large.methodology.data_sources).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^not published for this model, estimated by the engine \(category monitor\): weight_kg/),
      ]),
    );
    expect(large.breakdown.production_kg).toBeGreaterThan(small.breakdown.production_kg * 1.5);
    // transport is per kg shipped (times the release year's calibration factor, which differs: 2018 and 2023)
    expect(large.breakdown.transport_kg / small.breakdown.transport_kg).toBeGreaterThan(3);
  });

  it('answers the spec fields with phase totals that add up, cacheable for a day', async () => {
    const res = await t.json(
      `/v1/footprint?${qs({ brand: 'Dell', model: 'Custom Build 14', country: 'de', weight_kg: 1.4, tdp: 15, ram_gb: 16, storage_gb: 512, storage_type: 'nvme', screen_size_inch: 14, screen_type: 'ips', battery_wh: 54 })}`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    const b = res.body;
    expect(Object.keys(b).sort()).toEqual([
      'breakdown',
      'calculated_at',
      'calculation_id',
      'country',
      'impacts',
      'methodology',
      'product',
      'total_kg_co2e',
    ]);
    expect(b.product).toEqual({ brand: 'Dell', mpn: null, name: 'Custom Build 14', category: 'laptop', weight_kg: 1.4 });
    expect(b.country).toBe('DE');
    const { production_kg, transport_kg, use_phase_kg, end_of_life_kg } = b.breakdown;
    for (const v of [production_kg, transport_kg, use_phase_kg, end_of_life_kg]) expect(v).toBeGreaterThan(0);
    expect(production_kg + transport_kg + use_phase_kg + end_of_life_kg).toBeCloseTo(b.total_kg_co2e, 1);
    // A 14" business laptop: published PCFs put these at roughly 150-400 kg CO2e over 4 years in Europe.
    expect(b.total_kg_co2e).toBeGreaterThan(120);
    expect(b.total_kg_co2e).toBeLessThan(500);
    expect(b.methodology.confidence).toBe('estimated_high');
    expect(b.methodology.uncertainty_pct).toBeGreaterThan(0);
    expect(b.methodology.engine_version).toMatch(/^4\./);
    expect(b.methodology.data_sources.some((s: string) => s.startsWith('grid factor DE: '))).toBe(true);
    expect(b.methodology.standard).toMatch(/ISO 14067/);
    expect(Date.parse(b.calculated_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(b.calculation_id).toBeNull();
  });

  it('uses the grid of the country of use: the same device costs more to run in Poland than in France', async () => {
    const base = { brand: 'HP', model: 'EliteDesk 800', category: 'desktop' };
    const fr = (await t.json(`/v1/footprint?${qs({ ...base, country: 'FR' })}`)).body;
    const pl = (await t.json(`/v1/footprint?${qs({ ...base, country: 'PL' })}`)).body;
    expect(pl.breakdown.production_kg).toBe(fr.breakdown.production_kg);
    expect(pl.breakdown.use_phase_kg / fr.breakdown.use_phase_kg).toBeCloseTo(
      pl.methodology.grid_factor_kg_per_kwh / fr.methodology.grid_factor_kg_per_kwh,
      1,
    );
    expect(pl.breakdown.use_phase_kg).toBeGreaterThan(fr.breakdown.use_phase_kg * 3);
  });

  it('lowers confidence when fewer specs are known', async () => {
    const none = (await t.json(`/v1/footprint?${qs({ brand: 'Acer', mpn: 'X1', country: 'DE' })}`)).body;
    expect(none.methodology.confidence).toBe('estimated_low');
    expect(none.methodology.data_sources[0]).toBe('category defaults (laptop)');
    const all = (
      await t.json(
        `/v1/footprint?${qs({ brand: 'Acer', mpn: 'X1', country: 'DE', weight_kg: 1.5, tdp: 15, ram_gb: 8, storage_gb: 256, storage_type: 'ssd', screen_size_inch: 14, screen_type: 'ips', battery_wh: 50 })}`,
      )
    ).body;
    expect(all.methodology.confidence).toBe('estimated_high');
    expect(all.methodology.uncertainty_pct).toBeLessThanOrEqual(none.methodology.uncertainty_pct);
  });

  it('states the ~80% interval of the total multiplicatively: never below zero, even for category defaults at more than +/-100%', async () => {
    const { categories } = (await t.json('/v1/reference/categories')).body;
    const queryOf = (category: string) => `/v1/footprint?${qs({ brand: 'Unbranded', model: 'Box', country: 'DE', category })}`;
    let widest = { category: '', uncertainty_pct: 0, low_kg: 0 };
    for (const { category } of categories) {
      const full = (await t.json(queryOf(category))).body;
      const m = full.methodology;
      expect(m.confidence, category).toBe('estimated_low');
      expect(m.interval, category).toEqual({ ...uncertaintyInterval(full.total_kg_co2e, m.uncertainty_pct), method: INTERVAL_METHOD });
      expect(m.interval.low_kg, category).toBeGreaterThan(0);
      // low x high = total^2, up to the rounding of each bound to 0.005 kg
      expect(Math.abs(m.interval.low_kg * m.interval.high_kg - full.total_kg_co2e ** 2), category).toBeLessThanOrEqual(
        0.005 * (m.interval.low_kg + m.interval.high_kg) + 1e-4,
      );
      if (m.uncertainty_pct > widest.uncertainty_pct) widest = { category, uncertainty_pct: m.uncertainty_pct, low_kg: m.interval.low_kg };
    }
    // a symmetric total +/- u would go below zero here
    expect(widest.uncertainty_pct, widest.category).toBeGreaterThan(100);
    expect(widest.low_kg).toBeGreaterThan(0);
    // over HTTP the repeated query is answered by the REST fast path: the same interval, in the schema's field order
    const url = `${await t.listen()}${queryOf(widest.category)}`;
    const executed = (await (await fetch(url)).json()).methodology;
    const fast = (await (await fetch(url)).json()).methodology;
    expect(Object.keys(executed).indexOf('interval')).toBe(Object.keys(executed).indexOf('uncertainty_pct') + 1);
    expect(Object.keys(fast)).toEqual(Object.keys(executed));
    expect(Object.keys(fast.interval)).toEqual(['low_kg', 'high_kg', 'method']);
    expect(fast.interval).toEqual(executed.interval);
  });

  it('states no interval for savings and refurbishment, whose results are differences', async () => {
    const device = { brand: 'Unbranded', model: 'Box', category: 'laptop', country: 'DE' };
    const savings = (await t.json(`/v1/savings?${qs({ ...device, remaining_years: 2 })}`)).body;
    expect(savings.methodology.uncertainty_pct).toBeGreaterThan(0);
    expect(savings.methodology.interval).toBeNull();
    const refurbishment = (await t.json(`/v1/refurbishment?${qs({ ...device, grade: 'B', remaining_years: 2 })}`)).body;
    expect(refurbishment.methodology.interval).toBeNull();
  });

  it('answers for every region code of /reference/countries', async () => {
    const { countries } = (await t.json('/v1/reference/countries')).body;
    expect(countries.length).toBeGreaterThanOrEqual(266);
    for (const { code, grid_factor } of countries) {
      const res = await t.json(`/v1/footprint?${qs({ brand: 'Dell', mpn: 'M1', country: code.toLowerCase() })}`);
      expect(res.status, code).toBe(200);
      expect(res.body.country).toBe(code);
      expect(res.body.methodology.grid_factor_kg_per_kwh).toBe(grid_factor);
    }
  });

  it('answers for every category of /reference/categories', async () => {
    const { categories } = (await t.json('/v1/reference/categories')).body;
    expect(categories).toHaveLength(48);
    for (const { category, lifetime_years } of categories) {
      const res = await t.json(`/v1/footprint?${qs({ brand: 'Generic', model: 'Device', country: 'US', category })}`);
      expect(res.status, category).toBe(200);
      expect(res.body.product.category).toBe(category);
      expect(res.body.total_kg_co2e, category).toBeGreaterThan(0);
      expect(res.body.methodology.lifetime_years).toBe(lifetime_years);
    }
  });

  it('stores a calculation for a key with an organisation and returns its id', async () => {
    const res = await t.json(`/v1/footprint?${qs({ brand: 'Lenovo', model: 'ThinkPad T14', country: 'US-CA' })}`, {
      headers: { authorization: `Bearer ${orgKey}` },
    });
    expect(res.status).toBe(200);
    expect(res.body.calculation_id).toMatch(UUID);
    await t.app.services.calculations.flush();
    const stored = await t.app.services.db.prisma.calculation.findUniqueOrThrow({
      where: { id: res.body.calculation_id },
      include: { factors: true },
    });
    expect(stored).toMatchObject({
      org_id: orgId,
      kind: 'footprint',
      country: 'US-CA',
      category: 'laptop',
      total_kg_co2e: res.body.total_kg_co2e,
      engine_version: res.body.methodology.engine_version,
      confidence: 'estimated_medium',
    }); // the ThinkPad T14 family (issue 15.5)
    expect(stored.inputs).toMatchObject({ brand: 'Lenovo', model: 'ThinkPad T14', country: 'US-CA' });
    expect(stored.factors).toEqual([expect.objectContaining({ role: 'use_grid', factor_id: stored.grid_factor_id })]);
    const factor = await t.app.services.db.prisma.emissionFactor.findUniqueOrThrow({ where: { id: stored.grid_factor_id! } });
    expect(factor.region_code).toBe('US-CA');
    expect(factor.value).toBe(res.body.methodology.grid_factor_kg_per_kwh);
    // The stored factor is eGRID's direct rate converted to lifecycle CO2e, and the record cites the conversion.
    expect(factor.value).toBe(0.241221);
    expect(factor.source).toMatch(/; converted to lifecycle CO2e: published value 0\.207512 x uplift 1\.162442$/);
    expect(res.body.methodology.data_sources).toContain(
      `grid factor US-CA: ${factor.source}, version ${factor.source_version} (0.241221 kg CO2e/kWh)`,
    );
  });

  it('does not store anonymous calculations or those of keys without organisation context', async () => {
    const before = await t.app.services.db.prisma.calculation.count();
    const org = await t.createOrg('pro');
    const { key } = await t.createKey(org.id, { org_context: false });
    const res = await t.json(`/v1/footprint?${qs({ brand: 'Dell', model: 'X', country: 'DE' })}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.body.calculation_id).toBeNull();
    await t.app.services.calculations.flush();
    expect(await t.app.services.db.prisma.calculation.count()).toBe(before);
  });
});

describe('bad input to /v1/footprint is a 400 naming the parameter', () => {
  const ok = { brand: 'Dell', model: 'Latitude', country: 'DE' };
  const get = (params: Record<string, string | number>) => t.json(`/v1/footprint?${qs(params)}`);

  it.each([
    [{ model: 'X', country: 'DE' }, 'brand', /is required/],
    [{ brand: '  ', model: 'X', country: 'DE' }, 'brand', /is required/],
    [{ brand: 'Dell', model: 'X' }, 'country', /is required/],
    [{ brand: 'Dell', country: 'DE' }, 'mpn', /either mpn or model is required/],
    [{ ...ok, country: 'XX' }, 'country', /unknown region code 'XX'; closest valid codes: [A-Z]{2}/],
    [{ ...ok, country: 'Germany' }, 'country', /closest valid codes: DE/],
    [{ ...ok, weight_kg: 0 }, 'weight_kg', /./],
    [{ ...ok, weight_kg: -2 }, 'weight_kg', /./],
    [{ ...ok, weight_kg: 10000 }, 'weight_kg', /./],
    [{ ...ok, weight_kg: 'heavy' }, 'weight_kg', /must be a number, got 'heavy'/],
    [{ ...ok, tdp: -15 }, 'tdp', /./],
    [{ ...ok, ram_gb: 'NaN' }, 'ram_gb', /must be a number/],
    [{ ...ok, screen_type: 'plasma' }, 'screen_type', /^screen_type: must be one of ips, lcd, mini_led, oled, tn, va, got 'plasma'$/],
    [{ ...ok, storage_type: 'floppy' }, 'storage_type', /^storage_type: must be one of emmc, hdd, nvme, ssd, got 'floppy'$/],
    [{ ...ok, category: 'toaster' }, 'category', /unknown category 'toaster'/],
  ])('%j → %s', async (params, field, reason) => {
    const res = await get(params as Record<string, string>);
    expectInvalid(res, field, reason);
    expect(res.headers.get('cache-control')).toBeNull();
  });

  it('reports several problems at once', async () => {
    const res = await get({ brand: ' ', country: 'ZZ', weight_kg: -1 });
    expect(res.status).toBe(400);
    expect(res.body.details).toContain('brand: is required');
    expect(res.body.details).toContain('mpn: either mpn or model is required');
    expect(res.body.details).toContain("country: unknown region code 'ZZ'");
  });
});

describe('GET /v1/savings', () => {
  it('answers the spec fields; avoided = production + transport − extra use', async () => {
    const res = await t.json(`/v1/savings?${qs({ brand: 'Apple', model: 'MacBook Air', country: 'DE', remaining_years: 3 })}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    const b = res.body;
    for (const f of [
      'product',
      'country',
      'remaining_life_years',
      'avoided_co2_kg',
      'avoided_production_kg',
      'avoided_transport_kg',
      'additional_use_phase_kg',
      'equivalents',
      'calculated_at',
    ])
      expect(b).toHaveProperty(f);
    expect(b.product).toMatchObject({ brand: 'Apple', name: 'MacBook Air', mpn: null });
    expect(b.remaining_life_years).toBe(3);
    expect(b.avoided_co2_kg).toBeCloseTo(b.avoided_production_kg + b.avoided_transport_kg - b.additional_use_phase_kg, 1);
    expect(b.equivalents.km_driving_avoided).toBeGreaterThan(0);
    expect(b.equivalents.trees_year_equivalent).toBeGreaterThan(0);
    const footprint = (await t.json(`/v1/footprint?${qs({ brand: 'Apple', model: 'MacBook Air', country: 'DE' })}`)).body;
    expect(b.avoided_production_kg).toBe(footprint.breakdown.production_kg);
  });

  it('defaults remaining_years to 2 and rejects values outside 0..15', async () => {
    expect((await t.json(`/v1/savings?${qs({ brand: 'Dell', model: 'X', country: 'NL' })}`)).body.remaining_life_years).toBe(2);
    expectInvalid(
      await t.json(`/v1/savings?${qs({ brand: 'Dell', model: 'X', country: 'NL', remaining_years: 16 })}`),
      'remaining_years',
      /between 0 and 15/,
    );
    expectInvalid(await t.json(`/v1/savings?${qs({ brand: 'Dell', model: 'X', country: 'NL', remaining_years: -1 })}`), 'remaining_years');
  });
});

describe('GET /v1/refurbishment', () => {
  const base = { brand: 'Lenovo', model: 'ThinkPad X1 Carbon', country: 'DE', category: 'laptop' };

  it('answers overhead by grade, swap costs, adjusted use phase, net savings, break-even and a heatmap', async () => {
    const res = await t.json(
      `/v1/refurbishment?${qs({ ...base, grade: 'B', swaps: 'battery:57,storage:512:nvme,ram:16:2,display:14:ips,keyboard_trackpad', reuse_country: 'pl' })}`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    const b = res.body;
    expect(b).toMatchObject({ grade: 'B', grade_label: 'Good', country: 'DE', reuse_country: 'PL', remaining_life_years: 2 });
    expect(b.swaps.map((s: any) => s.token)).toEqual(['battery:57', 'storage:512:nvme', 'ram:16:2', 'display:14:ips', 'keyboard_trackpad']);
    for (const s of b.swaps) expect(s.production_kg).toBeGreaterThan(0);
    expect(b.swaps_total_kg).toBeCloseTo(
      b.swaps.reduce((n: number, s: any) => n + s.production_kg, 0),
      1,
    );
    expect(b.refurbishment_total_kg).toBeCloseTo(b.overhead.total_kg + b.swaps_total_kg, 1);
    const o = b.overhead;
    expect(o.total_kg).toBeCloseTo(o.cleaning_kg + o.testing_kg + o.parts_kg + o.packaging_kg + o.logistics_kg, 1);
    expect(b.net_savings_kg).toBeCloseTo(b.gross_avoided_kg - b.refurbishment_total_kg - b.adjusted_use_phase.additional_use_phase_kg, 0);
    expect(b.production_heatmap.reduce((n: number, h: any) => n + h.share_pct, 0)).toBeCloseTo(100, 0);
    expect(b.production_heatmap.some((h: any) => h.swapped)).toBe(true);
    const pl = (await t.json('/v1/reference/countries')).body.countries.find((c: any) => c.code === 'PL');
    expect(b.adjusted_use_phase.reuse_grid_factor_kg_per_kwh).toBe(pl.grid_factor);
  });

  it('costs more to refurbish to grade A than to grade C', async () => {
    const a = (await t.json(`/v1/refurbishment?${qs({ ...base, grade: 'A' })}`)).body;
    const c = (await t.json(`/v1/refurbishment?${qs({ ...base, grade: 'C' })}`)).body;
    expect(a.overhead.total_kg).toBeGreaterThan(c.overhead.total_kg);
    expect(a.net_savings_kg).toBeLessThan(c.net_savings_kg);
  });

  it('reads ram:<total_gb>:<modules>: 16 GB in two modules costs two 8 GB modules', async () => {
    const memoryKg = async (swaps: string) =>
      (await t.json(`/v1/refurbishment?${qs({ ...base, grade: 'B', swaps })}`)).body.swaps[0].production_kg;
    expect(await memoryKg('ram:16:2')).toBeCloseTo(2 * (await memoryKg('ram:8:1')), 1);
  });

  it('gives no break-even (null) when refurbishing already emits more than buying new', async () => {
    const swaps = 'display:17:mini_led,display:17:mini_led,display:17:mini_led,storage:20000:ssd';
    const res = await t.json(`/v1/refurbishment?${qs({ ...base, grade: 'A', swaps })}`);
    expect(res.status).toBe(200);
    expect(res.body.net_savings_kg).toBeLessThan(0);
    expect(res.body.break_even_years).toBeNull();
  });

  it.each([
    [
      { ...base, grade: 'B', swaps: 'battery:56,display:99:ips' },
      'swaps[1]',
      /'display:99:ips': display size 99 inches is out of range for category laptop \(allowed 1 to 23 inches\)/,
    ],
    [
      { ...base, grade: 'B', swaps: 'ram:1024:8' },
      'swaps[0]',
      /'ram:1024:8': total memory 1024 GB is out of range for category laptop \(allowed above 0 to 512 GB\)/,
    ],
    [
      { ...base, grade: 'B', swaps: 'ram:2:8' },
      'swaps',
      /invalid token 'ram:2:8': ram:<total_gb>:<modules> puts 2 GB in 8 modules \(0.25 GB each\); a module holds 1 to 1024 GB/,
    ],
    [{ ...base, grade: 'B', swaps: 'battery:abc' }, 'swaps', /invalid token 'battery:abc'/],
    [{ ...base, grade: 'B', swaps: 'battery:50,turbo:9' }, 'swaps', /invalid token 'turbo:9'/],
    [{ ...base, grade: 'B', swaps: 'storage:512:floppy' }, 'swaps', /invalid token 'storage:512:floppy'/],
    [{ ...base, grade: 'Z' }, 'grade', /^grade: must be one of A, B, C, got 'Z'$/],
    [{ ...base }, 'grade', /is required/],
    [{ ...base, grade: 'A', remaining_years: 20 }, 'remaining_years', /between 0 and 15/],
    [{ ...base, grade: 'A', reuse_country: 'QQ' }, 'reuse_country', /unknown region code 'QQ'/],
  ])('%j → 400 %s', async (params, field, reason) => {
    expectInvalid(await t.json(`/v1/refurbishment?${qs(params as Record<string, string>)}`), field, reason);
  });
});

describe('POST /v1/footprint/batch', () => {
  const post = (body: unknown, key?: string) =>
    t.json('/v1/footprint/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(body),
    });

  it('calculates 100 mixed items independently and reports item errors with their index', async () => {
    const countries = ['DE', 'fr', 'US-CA', 'JP', 'BR', 'IN', 'CN-GD', 'se', 'PL', 'ZA'];
    const categories = ['laptop', 'desktop', 'monitor', 'smartphone', 'tablet', 'server', 'printer', 'router'];
    const bad: Record<number, [object, RegExp]> = {};
    const products = Array.from({ length: 100 }, (_, i) => {
      const item: Record<string, unknown> = {
        brand: `Brand${i}`,
        model: `Model ${i}`,
        country: countries[i % countries.length],
        category: categories[i % categories.length],
      };
      if (i % 10 === 3) bad[i] = [{ ...item, brand: undefined }, /^brand: is required/];
      if (i % 10 === 7) bad[i] = [{ ...item, country: 'XX' }, /^country: unknown region code 'XX'/];
      if (i % 25 === 11) bad[i] = [{ ...item, weight_kg: -3 }, /^weight_kg: /];
      if (i % 25 === 24)
        bad[i] = [
          { ...item, model: undefined, category: 'spaceship' },
          /mpn: either mpn or model is required; category: unknown category 'spaceship'/,
        ];
      return bad[i] ? bad[i]![0] : item;
    });
    const res = await post({ products }, orgKey);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(100);
    expect(res.body.successful).toBe(100 - Object.keys(bad).length);
    expect(res.body.results).toHaveLength(100);
    res.body.results.forEach((r: any, i: number) => {
      if (bad[i]) {
        expect(r, `item ${i}`).toEqual({ error: expect.stringMatching(bad[i]![1]), index: i });
      } else {
        expect(r.product.brand).toBe(`Brand${i}`);
        expect(r.country).toBe(countries[i % countries.length]!.toUpperCase());
        expect(r.calculation_id).toMatch(UUID);
        expect(r.total_kg_co2e).toBeGreaterThan(0);
      }
    });
  });

  it('rejects more than 100 items, an empty list and a missing list', async () => {
    const item = { brand: 'Dell', model: 'X', country: 'DE' };
    expectInvalid(await post({ products: Array.from({ length: 101 }, () => item) }), 'products', /1 to 100 items, got 101/);
    expectInvalid(await post({ products: [] }), 'products', /got 0/);
    expectInvalid(await post({}), 'products', /is required/);
  });

  it('answers an item GraphQL would refuse (wrong type, unknown value or field, not an object) as that item’s error', async () => {
    const item = { brand: 'Dell', model: 'Latitude 5440', country: 'DE' };
    const res = await post({
      products: [
        item,
        { ...item, ram_gb: 'lots' },
        { ...item, storage_type: 'flash' },
        { ...item, modle: 'x' },
        7,
        { ...item, storage_type: 'SSD', ram_gb: 16 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 6, successful: 2 });
    expect(res.body.results.slice(1, 5)).toEqual([
      { error: "ram_gb: must be a number, got 'lots'", index: 1 },
      { error: "storage_type: must be one of emmc, hdd, nvme, ssd, got 'flash'", index: 2 },
      { error: "modle: unknown field; did you mean 'model'?", index: 3 },
      { error: 'must be an object', index: 4 },
    ]);
    expect(res.body.results[0].total_kg_co2e).toBeGreaterThan(0);
    // Enum values in any case, as on GET /footprint.
    expect(res.body.results[5].total_kg_co2e).toBeGreaterThan(0);
  });
});

describe('GET /v1/footprint served again for a query already seen (node:http fast path)', () => {
  let base: string;
  beforeAll(async () => {
    base = await t.listen();
  });

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, { headers });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };

  it('answers the same body as the first (GraphQL-executed) response, with the same stored calculation', async () => {
    const path = `/v1/footprint?${qs({ brand: 'Fujitsu', model: 'Lifebook U7', country: 'AT', weight_kg: 1.3 })}`;
    const headers = { authorization: `Bearer ${orgKey}` };
    const first = await get(path, headers);
    const second = await get(path, headers);
    expect(second.status).toBe(200);
    // Content-addressed: the repeat answers the calculation stored by the first (its id and calculated_at).
    expect(second.body).toEqual(first.body);
    expect(second.body.calculation_id).toMatch(UUID);
    for (const name of ['cache-control', 'vary', 'content-type', 'x-ratelimit-limit', 'x-ratelimit-plan']) {
      expect(second.headers.get(name), name).toBe(first.headers.get(name));
    }
    expect(second.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-remaining')) - 1);
    await t.app.services.calculations.flush();
    expect(
      await t.app.services.db.prisma.calculation.count({ where: { id: { in: [first.body.calculation_id, second.body.calculation_id] } } }),
    ).toBe(1);
  });

  it('answers byte for byte what the pipeline answers', async () => {
    const path = `/v1/footprint?${qs({ brand: 'Lenovo', model: 'ThinkPad T14 Gen 4', country: 'US-CA', ram_gb: 16 })}`;
    const headers = { authorization: `Bearer ${orgKey}` };
    const first = await (await fetch(`${base}${path}`, { headers })).text();
    const second = await (await fetch(`${base}${path}`, { headers })).text();
    expect(second).toBe(first);
  });

  it('leaves bad keys and refusals to the full pipeline', async () => {
    const path = `/v1/footprint?${qs({ brand: 'Dell', model: 'Repeat', country: 'DE' })}`;
    expect((await get(path)).status).toBe(200);
    const bad = await get(path, { authorization: 'Bearer nope' });
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe('INVALID_API_KEY');
  });
});
