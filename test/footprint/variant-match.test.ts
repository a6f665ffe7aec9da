// Issue 14 point 7: a model name that fits several variants of one catalogue model (ThinkPad T14
// Gen 3 Intel and AMD) resolves to the variant a hint picks, else to the specs the variants share,
// and says so in methodology.match, data_sources and confidence, instead of category defaults.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, qs, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const footprint = async (params: Record<string, string | number>) => {
  const res = await t.json(`/v1/footprint?${qs({ brand: 'Lenovo', country: 'DE', ...params })}`);
  expect(res.status).toBe(200);
  return res.body;
};

const INTEL = { brand: 'Lenovo', mpn: '21AH', name: 'Lenovo ThinkPad T14 Gen 3 Intel' };
const AMD = { brand: 'Lenovo', mpn: '21CF', name: 'Lenovo ThinkPad T14 Gen 3 AMD' };

describe(`footprint of a model name with several catalogue variants on ${TEST_DATABASE_KIND}`, () => {
  it('without a hint: the specs the variants share, the candidates listed, confidence between exact and defaults', async () => {
    const shared = await footprint({ model: 'ThinkPad T14 Gen 3' });
    expect(shared.product).toEqual({ brand: 'Lenovo', mpn: null, name: 'Lenovo ThinkPad T14 Gen 3', category: 'laptop', weight_kg: 1.21 });
    expect(shared.methodology.match).toEqual({
      status: 'shared',
      chosen: null,
      candidates: [INTEL, AMD],
      basis: 'model name matches several variants; no processor or supplied spec tells them apart',
      differing_specs: ['processor_tdp_w'],
    });
    expect(shared.methodology.data_sources[0]).toBe(
      'built-in catalogue: Lenovo ThinkPad T14 Gen 3, specs shared by its 2 variants (Lenovo ThinkPad T14 Gen 3 Intel, Lenovo ThinkPad T14 Gen 3 AMD); processor_tdp_w differs and is estimated',
    );
    expect(shared.methodology.confidence).toBe('estimated_medium');

    const exact = await footprint({ model: 'ThinkPad T14 Gen 3 Intel' });
    const none = await footprint({ model: 'Unknown Laptop 9' });
    // The variants differ in a chosen configuration (processor TDP), which confidence does not count
    // (docs/methodology.md section 8): the one device and the shared specs know the same of a unit.
    expect(exact.methodology.confidence).toBe('estimated_medium');
    expect(none.methodology.confidence).toBe('estimated_low');
    expect(none.methodology.match).toEqual({ status: 'none', chosen: null, candidates: [], basis: null, differing_specs: [] });
    expect(shared.methodology.uncertainty_pct).toBe(exact.methodology.uncertainty_pct);
    expect(shared.methodology.uncertainty_pct).toBeLessThan(none.methodology.uncertainty_pct);
    // Specs the caller supplies count: with the processor and three more, the exact device is estimated_high.
    const specified = await footprint({ model: 'ThinkPad T14 Gen 3 Intel', tdp: 15, ram_gb: 16, storage_gb: 512, storage_type: 'nvme' });
    expect(specified.methodology.confidence).toBe('estimated_high');
    expect(specified.methodology.uncertainty_pct).toBeLessThan(exact.methodology.uncertainty_pct);
    // Not the category defaults: the shared weight and battery of the T14 Gen 3, with the laptop default TDP.
    expect(shared.total_kg_co2e).not.toBe(none.total_kg_co2e);
  });

  it('an AMD processor in the model name picks the AMD variant', async () => {
    const b = await footprint({ model: 'ThinkPad T14 Gen 3 Ryzen 5 PRO 6650U' });
    expect(b.product).toEqual({ ...AMD, category: 'laptop', weight_kg: 1.21 });
    expect(b.methodology.match).toEqual({
      status: 'variant',
      chosen: AMD,
      candidates: [INTEL, AMD],
      basis: "processor 'ryzen 5 pro 6650u' in the model name",
      differing_specs: ['processor_tdp_w'],
    });
    expect(b.methodology.data_sources[0]).toBe(
      "built-in catalogue: Lenovo ThinkPad T14 Gen 3 AMD (by model name; 2 variants match (Lenovo ThinkPad T14 Gen 3 Intel, Lenovo ThinkPad T14 Gen 3 AMD), chosen by the processor 'ryzen 5 pro 6650u' in the model name)",
    );
    expect(b.methodology.confidence).toBe('estimated_medium');
    // The same footprint as naming the AMD device exactly.
    const exact = await footprint({ model: 'ThinkPad T14 Gen 3 AMD' });
    expect(b.total_kg_co2e).toBeCloseTo(exact.total_kg_co2e, 6);
    expect(exact.methodology.match).toEqual({ status: 'exact', chosen: AMD, candidates: [], basis: 'model name', differing_specs: [] });
  });

  it('an Intel processor in the model name picks the Intel variant', async () => {
    for (const model of ['ThinkPad T14 Gen 3 i5-1245U', 'ThinkPad T14 Gen 3 Intel Core i7-1260P']) {
      const b = await footprint({ model });
      expect(b.product.mpn, model).toBe('21AH');
      expect(b.methodology.match.status).toBe('variant');
      expect(b.methodology.match.chosen).toEqual(INTEL);
      expect(b.methodology.match.basis).toMatch(/^processor '.*i[57]-12[46]\dp?u?' in the model name$/);
    }
    const exact = await footprint({ model: 'ThinkPad T14 Gen 3 Intel' });
    const hinted = await footprint({ model: 'ThinkPad T14 Gen 3 i5-1245U' });
    expect(hinted.total_kg_co2e).toBeCloseTo(exact.total_kg_co2e, 6);
  });

  it('a supplied spec the variants differ in picks the closest variant', async () => {
    const b = await footprint({ model: 'ThinkPad T14 Gen 3', tdp: 28 });
    expect(b.product.mpn).toBe('21CF');
    expect(b.methodology.match.status).toBe('variant');
    expect(b.methodology.match.basis).toBe('closest to the supplied processor_tdp_w');
    const intel = await footprint({ model: 'ThinkPad T14 Gen 3', tdp: 17 });
    expect(intel.methodology.match.chosen).toEqual(INTEL);
  });

  it('a name that matches one device stays exact; unknown names still match nothing', async () => {
    const one = await footprint({ model: 'ThinkPad X1 Carbon Gen 11' });
    expect(one.methodology.match.status).toBe('exact');
    expect(one.methodology.match.chosen.name).toBe('Lenovo ThinkPad X1 Carbon Gen 11');
    expect(one.methodology.match.candidates).toEqual([]);
    const dell = await footprint({ brand: 'Dell', model: 'Latitude 5440' });
    expect(dell.methodology.match).toEqual({
      status: 'exact',
      chosen: { brand: 'Dell', mpn: 'LAT5440', name: 'Dell Latitude 5440' },
      candidates: [],
      basis: 'model name',
      differing_specs: [],
    });
    for (const model of ['ThinkPad T14 Gen 9', 'ThinkPad T14 Gen 9 Ryzen 5', 'ThinkPad T14s Gen 6 Intel Core Ultra 7', 'ThinkPad']) {
      const b = await footprint({ model });
      expect(b.methodology.match.status, model).toBe('none');
      expect(b.methodology.data_sources[0], model).toBe('category defaults (laptop)');
    }
  });

  it('identify does not pick one of the variants it cannot tell apart', async () => {
    const res = await t.json('/v1/identify', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ manufacturer: 'Lenovo', model_string: 'ThinkPad T14 Gen 3' }),
    });
    expect(res.status).toBe(404);
    const hinted = await t.json('/v1/identify', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ manufacturer: 'Lenovo', model_string: 'ThinkPad T14 Gen 3 i5-1245U' }),
    });
    expect(hinted.status).toBe(200);
    expect(hinted.body.mpn).toBe('21AH');
  });
});
