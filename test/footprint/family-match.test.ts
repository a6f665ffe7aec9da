// Issue 15 point 5: a model name without its generation ("ThinkPad E14") resolves to the family's
// devices with family-level specs (the median of the values they state), says so in
// methodology.match, data_sources and a confidence of at most estimated_medium, over REST and GraphQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue, type CatalogueEntry } from '../../src/catalogue/catalogue-data.ts';
import { familySpecs } from '../../src/catalogue/service.ts';
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

/** The ThinkPad E14 generations of the catalogue, in catalogue order. */
const E14 = loadCatalogue().filter((e) => /^Lenovo ThinkPad E14 Gen \d+ (?:Intel|AMD)$/.test(e.name));
const lowerMedian = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

describe('family-level specs (familySpecs)', () => {
  const device = (name: string, specs: CatalogueEntry['specs']): CatalogueEntry => ({
    brand: 'X',
    mpn: name,
    name,
    category: 'laptop',
    release_year: 2022,
    aliases: [],
    specs,
    source: {},
  });

  it('takes the lower median of the stated numbers, a text value all agree on, nothing stated by one device only', () => {
    const { specs, differing } = familySpecs([
      device('A Gen 1', { weight_kg: 1.6, screen_size_inch: 14, ram_gb: 8, screen_type: 'ips', storage_type: 'ssd', battery_wh: 45 }),
      device('A Gen 2', { weight_kg: 1.4, screen_size_inch: 15.6, ram_gb: 16, screen_type: 'ips', storage_type: 'nvme' }),
      device('A Gen 3', { weight_kg: 1.5, screen_size_inch: 14, screen_type: 'ips' }),
      device('A Gen 4', { screen_size_inch: 15.6, screen_type: 'ips' }),
    ]);
    // weight 1.4/1.5/1.6 → 1.5; screen 14/14/15.6/15.6 → 14 (a stated size, not 14.8); ram 8/16 → 8
    expect(specs).toEqual({ weight_kg: 1.5, screen_size_inch: 14, ram_gb: 8, screen_type: 'ips' });
    expect(differing.sort()).toEqual(['battery_wh', 'ram_gb', 'screen_size_inch', 'storage_type', 'weight_kg']);
  });
});

describe(`footprint of a model name that names a family on ${TEST_DATABASE_KIND}`, () => {
  const candidates = E14.map((e) => ({ brand: e.brand, mpn: e.mpn, name: e.name }));
  const weights = E14.map((e) => e.specs.weight_kg).filter((w): w is number => w !== undefined);

  it('REST: the family, its devices, the median weight, estimated_medium', async () => {
    expect(E14.length).toBeGreaterThanOrEqual(2);
    const b = await footprint({ model: 'ThinkPad E14' });
    const { differing } = familySpecs(E14);
    expect(b.methodology.match).toEqual({
      status: 'family',
      chosen: null,
      candidates,
      basis: 'model name names the Lenovo ThinkPad E14 family, not a generation',
      differing_specs: differing,
    });
    expect(b.product).toEqual({
      brand: 'Lenovo',
      mpn: null,
      name: 'Lenovo ThinkPad E14',
      category: 'laptop',
      weight_kg: weights.length >= 2 ? lowerMedian(weights) : expect.any(Number),
    });
    expect(b.methodology.data_sources[0]).toMatch(
      new RegExp(
        `^built-in catalogue: Lenovo ThinkPad E14 family \\(by model name; no generation given\\), family-level specs of its ${E14.length} devices \\(Lenovo ThinkPad E14 Gen 2 Intel, `,
      ),
    );
    expect(b.methodology.confidence).toBe('estimated_medium');

    // Not narrower than one generation, narrower than the category defaults.
    const one = await footprint({ model: 'ThinkPad E14 Gen 4 Intel' });
    const none = await footprint({ model: 'Unknown Laptop 9' });
    expect(one.methodology.confidence).toBe('estimated_medium');
    expect(b.methodology.uncertainty_pct).toBeGreaterThanOrEqual(one.methodology.uncertainty_pct);
    expect(b.methodology.uncertainty_pct).toBeLessThan(none.methodology.uncertainty_pct);
  });

  it('GraphQL: the same match', async () => {
    const org = await t.createOrg('business', 'Family Org');
    const { key } = await t.createKey(org.id);
    const res = await t.graphql(
      `{ footprint(brand: "Lenovo", model: "ThinkPad E14", country: "DE") { product { name mpn } methodology { confidence match { status chosen { name } candidates { mpn name } basis differing_specs } } } }`,
      undefined,
      key,
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const f = res.body.data.footprint;
    expect(f.product).toEqual({ name: 'Lenovo ThinkPad E14', mpn: null });
    expect(f.methodology.confidence).toBe('estimated_medium');
    expect(f.methodology.match).toEqual({
      status: 'family',
      chosen: null,
      candidates: candidates.map(({ mpn, name }) => ({ mpn, name })),
      basis: 'model name names the Lenovo ThinkPad E14 family, not a generation',
      differing_specs: familySpecs(E14).differing,
    });
  });

  it('identify does not pick one device of a family', async () => {
    const res = await t.json('/v1/identify', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ manufacturer: 'Lenovo', model_string: 'ThinkPad E14' }),
    });
    expect(res.status).toBe(404);
  });
});
