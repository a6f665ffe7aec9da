import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, qs, type TestApp } from '../support/test-app.ts';
import { startFakeIcecat, type FakeIcecat } from '../support/fake-icecat.ts';
import { SPEC_FIELDS } from '../../src/footprint/engine/index.ts';

const post = (t: TestApp, path: string, body: unknown) =>
  t.json(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

type SpecRow = { field: string; basis: string; url: string | null; note: string | null };
type Result = { specs: Record<string, unknown>; spec_sources: SpecRow[] };

const sourceOf = (result: Result, field: string) => {
  const { basis, note } = result.spec_sources.find((s) => s.field === field)!;
  return { basis, note };
};

/** One provenance row per spec field of 2.6, in the order of `specs`; a null only with a basis saying why, and a note. */
function expectNoSilentNull(result: Result, label: string) {
  expect(Object.keys(result.specs), label).toEqual([...SPEC_FIELDS]);
  expect(
    result.spec_sources.map((s) => s.field),
    label,
  ).toEqual([...SPEC_FIELDS]);
  for (const s of result.spec_sources) {
    const empty = result.specs[s.field] === null;
    expect(['not_applicable', 'not_estimable'].includes(s.basis), `${label} ${s.field} ${s.basis}`).toBe(empty);
    expect(s.note ?? s.url, `${label} ${s.field}`).toBeTruthy();
  }
  expect(result.specs.typical_consumption_kwh, label).toBeGreaterThan(0);
}

describe('the search index, built by the first request that needs it (not at start-up)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('a footprint as the first request after start finds its catalogue device', async () => {
    const res = await t.json(`/v1/footprint?${qs({ brand: 'Dell', model: 'Latitude 5440', country: 'DE' })}`);
    expect(res.status).toBe(200);
    expect(res.body.methodology.data_sources).toContain('built-in catalogue: Dell Latitude 5440 (by model name)');
  });
});

describe('built-in catalogue (no external catalogue configured)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('GET /v1/search answers the spec shape, best first, at most 15', async () => {
    const res = await t.json('/v1/search?q=latitude%205440');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['count', 'query', 'results', 'returned', 'source']);
    expect(res.body.query).toBe('latitude 5440');
    expect(res.body.source).toBe('built-in catalogue');
    expect(res.body.returned).toBe(res.body.results.length);
    expect(res.body.results.length).toBeGreaterThan(0);
    const top = res.body.results[0];
    expect(top).toMatchObject({ brand: 'Dell', category: 'laptop' });
    expect(top.name).toMatch(/Latitude 5440/);
    expect(Object.keys(top).sort()).toEqual(['brand', 'category', 'mpn', 'name', 'release_year', 'spec_sources', 'specs']);
    expect(Object.keys(top.specs).sort()).toEqual([
      'battery_wh',
      'processor_tdp_w',
      'ram_gb',
      'screen_size_inch',
      'screen_type',
      'storage_gb',
      'storage_type',
      'typical_consumption_kwh',
      'weight_kg',
    ]);
    // One provenance row per spec the device has: its own published figures, and the configuration it describes.
    const note = 'Dell Latitude 5440 Setup and Specifications guide / spec sheet (dell.com support manuals); typical configuration';
    const basis = Object.fromEntries(
      top.spec_sources.map((s: { field: string; basis: string; note: string }) => [s.field, [s.basis, s.note]]),
    );
    expect(basis).toEqual({
      weight_kg: ['published', note],
      screen_size_inch: ['published', note],
      screen_type: ['published', note],
      battery_wh: ['published', note],
      processor_tdp_w: ['configuration', note],
      ram_gb: ['configuration', note],
      storage_gb: ['configuration', note],
      storage_type: ['configuration', note],
      // No catalogue device publishes it: the energy model's estimate, the figure its footprint uses.
      typical_consumption_kwh: [
        'estimated',
        expect.stringMatching(/^energy model: category laptop, screen size, TDP, weight and release year/),
      ],
    });
    expect(top.specs.typical_consumption_kwh).toBeGreaterThan(0);
    const broad = await t.json('/v1/search?q=dell');
    expect(broad.body).toMatchObject({ count: 438, returned: 15 }); // every Dell device matches
  });

  it('GET /v1/search: every result carries every spec field, or null with a reason; printers and monitors get the estimates', async () => {
    for (const q of ['latitude 5440', 'laserjet', 'dell p2422h', 'optiplex micro', 'catalyst', 'iphone 8', 'synology', 'apc smart-ups']) {
      const res = await t.json(`/v1/search?${qs({ q, limit: 15 })}`);
      expect(res.body.returned, q).toBeGreaterThan(0);
      for (const result of res.body.results) expectNoSilentNull(result, `${q}: ${result.name}`);
    }
    const printer = (await t.json(`/v1/search?${qs({ q: 'laserjet pro m404dn', limit: 1 })}`)).body.results[0];
    expect(printer).toMatchObject({ name: 'HP LaserJet Pro M404dn', category: 'printer' });
    expect(printer.specs).toMatchObject({ processor_tdp_w: 5, ram_gb: 0.5, storage_gb: 8, screen_size_inch: null, battery_wh: null });
    expect(sourceOf(printer, 'ram_gb')).toEqual({ basis: 'category_typical', note: 'category default (printer)' });
    expect(sourceOf(printer, 'screen_size_inch')).toEqual({
      basis: 'not_applicable',
      note: 'a printer has no screen: the footprint counts none',
    });
    expect(sourceOf(printer, 'typical_consumption_kwh')).toMatchObject({
      basis: 'estimated',
      note: expect.stringMatching(/^energy model: category printer/),
    });
    const monitor = (await t.json(`/v1/search?${qs({ q: 'dell p2422h', limit: 1 })}`)).body.results[0];
    expect(monitor).toMatchObject({ name: 'Dell P2422H Monitor', category: 'monitor' });
    expect(sourceOf(monitor, 'weight_kg')).toEqual({ basis: 'estimated', note: 'category default 5 kg scaled with the screen size' });
    expect(monitor.specs.weight_kg).toBeGreaterThan(0);
    expect(sourceOf(monitor, 'processor_tdp_w').basis).toBe('not_applicable');
  });

  it("search, identify, GraphQL and the device's footprint give the same specs (typical consumption as the footprint's annual kWh)", async () => {
    const key = (await t.createKey((await t.createOrg('business')).id)).key;
    for (const q of ['latitude 5440', 'dell p2422h', 'laserjet pro m404dn', 'optiplex 7090 micro', 'catalyst 9200']) {
      const hit = (await t.json(`/v1/search?${qs({ q, limit: 1 })}`)).body.results[0];
      const footprint = (await t.json(`/v1/footprint?${qs({ brand: hit.brand, mpn: hit.mpn, country: 'DE' })}`)).body;
      expect(footprint.product.name, q).toBe(hit.name);
      expect(hit.specs.typical_consumption_kwh, q).toBe(footprint.methodology.annual_kwh);
      expect(hit.specs.weight_kg, q).toBe(footprint.product.weight_kg);
      const identified = (await post(t, '/v1/identify', { manufacturer: hit.brand, model_string: hit.mpn })).body;
      expect({ specs: identified.specs, spec_sources: identified.spec_sources }, q).toEqual({
        specs: hit.specs,
        spec_sources: hit.spec_sources,
      });
      const graphql = await t.graphql(
        'query ($q: String!) { search(q: $q, limit: 1) { results { specs { weight_kg screen_size_inch screen_type processor_tdp_w ram_gb storage_gb storage_type battery_wh typical_consumption_kwh } spec_sources { field basis url note } } } }',
        { q },
        key,
      );
      expect(graphql.body.data.search.results[0], q).toEqual({ specs: hit.specs, spec_sources: hit.spec_sources });
    }
  });

  it('GET /v1/search counts every match, returns `limit` of them, and ranks siblings by the closest model number', async () => {
    const names = (body: { results: { name: string }[] }) => body.results.map((r) => r.name);
    const three = await t.json(`/v1/search?${qs({ q: 'latitud 5440', limit: 3 })}`);
    expect(three.status).toBe(200);
    // 91: every Latitude in the catalogue matches the misspelt family name.
    expect(three.body).toMatchObject({ query: 'latitud 5440', count: 91, returned: 3 });
    expect(names(three.body)).toEqual(['Dell Latitude 5440', 'Dell Latitude 5430', 'Dell Latitude 5450']);
    const page = await t.json(`/v1/search?${qs({ q: 'latitud 5440' })}`);
    expect(page.body).toMatchObject({ count: 91, returned: 15 });
    expect(names(page.body).slice(0, 3)).toEqual(names(three.body));
    expect(names(page.body)).not.toContain('Dell Latitude 3120'); // the score alone ranked it second
    const unknown = await t.json(`/v1/search?${qs({ q: 'latitude 5441', limit: 3 })}`);
    expect(names(unknown.body)).toEqual(['Dell Latitude 5440', 'Dell Latitude 5450', 'Dell Latitude 5430']);
    const one = await t.json(`/v1/search?${qs({ q: 'fairphone', limit: 1 })}`);
    expect(one.body).toMatchObject({ count: 4, returned: 1 });
  });

  it('GET /v1/search rejects a limit outside 1 to 15, naming it', async () => {
    for (const limit of ['0', '16', '-1', '2.5', 'ten']) {
      const res = await t.json(`/v1/search?${qs({ q: 'latitude', limit })}`);
      expect(res.status, limit).toBe(400);
      expect(res.body.details, limit).toMatch(/^limit: must be an integer/);
    }
  });

  it('GraphQL search takes the same limit and answers count and returned', async () => {
    const query = 'query ($limit: Int) { search(q: "latitud 5440", limit: $limit) { count returned results { name } } }';
    const key = (await t.createKey((await t.createOrg('business')).id)).key;
    const res = await t.graphql(query, { limit: 2 }, key);
    expect(res.body.data.search).toEqual({
      count: 91,
      returned: 2,
      results: [{ name: 'Dell Latitude 5440' }, { name: 'Dell Latitude 5430' }],
    });
    const refused = await t.graphql(query, { limit: 16 }, key);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER' });
  });

  it('GET /v1/search is typo-, accent- and case-tolerant', async () => {
    const res = await t.json(`/v1/search?${qs({ q: 'THINKPAD x1 CARBÓN' })}`);
    expect(res.body.results[0].name).toMatch(/ThinkPad X1 Carbon/);
    const typo = await t.json(`/v1/search?${qs({ q: 'lattitude 5440' })}`);
    expect(typo.body.results[0].name).toMatch(/Latitude 5440/);
  });

  it('GET /v1/search rejects q shorter than 2 characters', async () => {
    for (const q of ['a', ' b ', '']) {
      const res = await t.json(`/v1/search?${qs({ q })}`);
      expect(res.status).toBe(400);
      expect(res.body.details).toMatch(/^q: /);
    }
    expect((await t.json('/v1/search')).status).toBe(400);
  });

  it('POST /v1/identify answers from the built-in catalogue and says so', async () => {
    const res = await post(t, '/v1/identify', { manufacturer: 'Dell', model_string: 'Latitude 5440' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      found: true,
      icecat_id: null,
      brand: 'Dell',
      mapped_category: 'laptop',
      icecat_category: null,
      source: 'built-in catalogue',
    });
    const byAlias = await post(t, '/v1/identify', { brand: 'Dell', mpn: res.body.mpn });
    expect(byAlias.body.name).toBe(res.body.name);
  });

  it('a footprint says where each catalogue value comes from; a family-template weight is gone and estimated', async () => {
    const res = await t.json(`/v1/footprint?${qs({ brand: 'Dell', model: 'OptiPlex 7090 Micro', country: 'DE' })}`);
    expect(res.status).toBe(200);
    const note = 'Dell OptiPlex 7090 Micro Setup and Specifications guide; typical configuration';
    expect(res.body.methodology.data_sources).toContain(
      `catalogue processor_tdp_w, ram_gb, storage_gb, storage_type: configuration (${note})`,
    );
    expect(res.body.methodology.data_sources.filter((s: string) => s.startsWith('catalogue') && s.includes('weight_kg'))).toEqual([]);
    expect(res.body.methodology.data_sources).toContain(
      'not published for this model, estimated by the engine (category mini_pc): weight_kg, typical_consumption_kwh',
    );
    expect(res.body.product.weight_kg).toBe(1.2); // the mini_pc default, no longer a catalogue value
    const phone = await t.json(`/v1/footprint?${qs({ brand: 'Apple', model: 'iPhone 8', country: 'DE' })}`);
    expect(phone.body.methodology.data_sources).toContain('catalogue battery_wh: derived (battery_wh = rated mAh x 3.85 V nominal)');
    const stored = await t.app.services.db.prisma.product.findFirstOrThrow({ where: { brand: 'Dell', name: 'Dell OptiPlex 7090 Micro' } });
    expect(stored.weight_kg).toBeNull();
    expect(stored.spec_sources).toEqual({
      processor_tdp_w: { basis: 'configuration', note },
      ram_gb: { basis: 'configuration', note },
      storage_gb: { basis: 'configuration', note },
      storage_type: { basis: 'configuration', note },
    });
  });

  it('POST /v1/identify answers 404 with the not-found body', async () => {
    const res = await post(t, '/v1/identify', { manufacturer: 'Nokia', model_string: 'Zork 9000 Turbo' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      found: false,
      brand: 'Nokia',
      mpn: 'Zork 9000 Turbo',
      message: expect.any(String),
      code: 'PRODUCT_NOT_FOUND',
    });
  });

  it('POST /v1/identify needs a model string', async () => {
    const res = await post(t, '/v1/identify', { manufacturer: 'Dell' });
    expect(res.status).toBe(400);
    expect(res.body.details).toMatch(/^model_string: /);
  });

  it('a footprint by mpn, by model name and by a misspelt model name uses the catalogue device, with more confidence than an unknown mpn', async () => {
    const device = (await post(t, '/v1/identify', { manufacturer: 'Lenovo', model_string: 'ThinkPad T14 Gen 4 Intel' })).body;
    expect(device.found).toBe(true);
    const unknown = (await t.json(`/v1/footprint?${qs({ brand: 'Lenovo', mpn: 'ZZ-UNKNOWN-1', country: 'DE' })}`)).body;
    expect(unknown.methodology.confidence).toBe('estimated_low');
    const rank = ['estimated_low', 'estimated_medium', 'estimated_high', 'manufacturer_verified'];
    for (const params of [{ mpn: device.mpn }, { model: device.name }, { model: device.name.replace('ThinkPad', 'Thinkpadd') }] as Record<
      string,
      string
    >[]) {
      const res = (await t.json(`/v1/footprint?${qs({ brand: 'Lenovo', country: 'DE', ...params })}`)).body;
      expect(res.product, JSON.stringify(params)).toMatchObject({
        brand: 'Lenovo',
        mpn: device.mpn,
        name: device.name,
        category: device.mapped_category,
      });
      expect(rank.indexOf(res.methodology.confidence), JSON.stringify(params)).toBeGreaterThan(
        rank.indexOf(unknown.methodology.confidence),
      );
      expect(res.methodology.data_sources[0]).toMatch(/^built-in catalogue: /);
    }
  });

  it('lets supplied specs override catalogue values', async () => {
    const base = (await t.json(`/v1/footprint?${qs({ brand: 'Dell', model: 'Latitude 5440', country: 'DE' })}`)).body;
    const heavier = (await t.json(`/v1/footprint?${qs({ brand: 'Dell', model: 'Latitude 5440', country: 'DE', weight_kg: 3 })}`)).body;
    expect(heavier.product.weight_kg).toBe(3);
    expect(heavier.breakdown.production_kg).toBeGreaterThan(base.breakdown.production_kg);
    expect(heavier.methodology.data_sources).toContain('supplied specs override catalogue values');
  });

  it('uses a manufacturer-published footprint when the catalogue has one', async () => {
    const res = (await t.json(`/v1/footprint?${qs({ brand: 'Apple', model: 'iPhone 15', country: 'US' })}`)).body;
    expect(res.product.category).toBe('smartphone');
    expect(res.methodology.confidence).toBe('manufacturer_verified');
  });
});

describe('POST /v1/identify with the external catalogue (fake Icecat on 127.0.0.1)', () => {
  let t: TestApp;
  let icecat: FakeIcecat;
  beforeAll(async () => {
    icecat = await startFakeIcecat();
    t = await createTestApp({ ICECAT_BASE_URL: icecat.url, ICECAT_USERNAME: 'lcf-test', ICECAT_TIMEOUT_MS: '300' });
  });
  afterAll(async () => {
    await t.close();
    await icecat.close();
  });

  it('identifies a product with Icecat ids and mapped specs, and caches the answer', async () => {
    const res = await post(t, '/v1/identify', { manufacturer: 'HP', model_string: '3C6D4EA' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      found: true,
      icecat_id: 85000001,
      brand: 'HP',
      mpn: '3C6D4EA',
      icecat_category: 'Notebooks',
      mapped_category: 'laptop',
      source: 'icecat',
      specs: {
        weight_kg: 1.39,
        screen_size_inch: 14,
        screen_type: 'ips',
        processor_tdp_w: 15,
        ram_gb: 16,
        storage_gb: 512,
        storage_type: 'nvme',
        battery_wh: 54,
        typical_consumption_kwh: 18.5,
      },
    });
    const before = icecat.requests();
    expect((await post(t, '/v1/identify', { manufacturer: 'HP', model_string: '3C6D4EA' })).body.icecat_id).toBe(85000001);
    expect(icecat.requests()).toBe(before);
  });

  it("an Icecat monitor's unpublished fields carry the engine's values, as its footprint uses them, or null with a reason", async () => {
    const res = await post(t, '/v1/identify', { manufacturer: 'Dell', model_string: 'DELL-P2422H' });
    expect(res.body).toMatchObject({ icecat_id: 85000002, mapped_category: 'monitor' });
    expectNoSilentNull(res.body, 'Icecat DELL-P2422H');
    expect(sourceOf(res.body, 'screen_size_inch')).toEqual({ basis: 'published', note: 'Icecat product 85000002' });
    expect(sourceOf(res.body, 'ram_gb').basis).toBe('not_applicable');
    const footprint = (await t.json(`/v1/footprint?${qs({ brand: 'Dell', mpn: 'DELL-P2422H', country: 'DE' })}`)).body;
    expect(footprint.methodology.data_sources[0]).toBe('external catalogue: Icecat product 85000002 (Dell DELL-P2422H)');
    expect(res.body.specs.typical_consumption_kwh).toBe(footprint.methodology.annual_kwh);
    expect(res.body.specs.weight_kg).toBe(footprint.product.weight_kg);
  });

  it("a footprint of an Icecat part number counts its data sheet's memory and storage as the unit's", async () => {
    const res = (await t.json(`/v1/footprint?${qs({ brand: 'HP', mpn: '3C6D4EA', country: 'DE' })}`)).body;
    expect(res.methodology.data_sources[0]).toBe('external catalogue: Icecat product 85000001 (HP 3C6D4EA)');
    expect(res.methodology.data_sources).toContain(
      'catalogue weight_kg, screen_size_inch, screen_type, processor_tdp_w, ram_gb, storage_gb, storage_type, battery_wh, typical_consumption_kwh: published (Icecat product 85000001)',
    );
    // (the fields in their order, though the cached product's jsonb keeps them in another)
    // one part number is one configuration: all nine fields describe the unit (a built-in device's typical configuration does not)
    expect(res.methodology.confidence).toBe('estimated_high');
  });

  it('caches a not-found answer too and answers 404', async () => {
    icecat.setMode('not_found');
    const res = await post(t, '/v1/identify', { manufacturer: 'Acme', model_string: 'NOPE-123' });
    expect(res.status).toBe(404);
    expect(res.body.found).toBe(false);
    const before = icecat.requests();
    icecat.setMode('normal');
    expect((await post(t, '/v1/identify', { manufacturer: 'Acme', model_string: 'NOPE-123' })).status).toBe(404);
    expect(icecat.requests()).toBe(before);
  });

  it.each(['server_error', 'timeout', 'malformed', 'rate_limited'] as const)(
    'answers 503 with a code when Icecat fails (%s), never 500 or a hang',
    async (mode) => {
      icecat.setMode(mode);
      const started = Date.now();
      const res = await post(t, '/v1/identify', { manufacturer: 'HP', model_string: `UNCACHED-${mode}` });
      icecat.setMode('normal');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: 'CATALOGUE_UNAVAILABLE', error: 'External catalogue unavailable' });
      expect(res.body.details).toMatch(/Icecat could not be reached/);
      expect(Date.now() - started).toBeLessThan(10_000);
    },
  );

  it('keeps footprints working from the built-in catalogue while Icecat is down', async () => {
    icecat.setMode('server_error');
    const res = await t.json(`/v1/footprint?${qs({ brand: 'Dell', model: 'Latitude 5440', country: 'DE', mpn: 'LAT5440' })}`);
    icecat.setMode('normal');
    expect(res.status).toBe(200);
    expect(res.body.methodology.data_sources[0]).toMatch(/^built-in catalogue: /);
  });
});
