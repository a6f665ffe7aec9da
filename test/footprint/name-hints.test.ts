// Issue 15 point 5: a name the catalogue does not know still says what it can ("AW9999H Monitor",
// "ThinkVision T99i-10", "15.6-inch"): the footprint takes that category and screen size, says so
// in data_sources, and never overrides what the caller supplied.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, qs, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const footprint = async (params: Record<string, string | number>) => {
  const res = await t.json(`/v1/footprint?${qs({ country: 'DE', ...params })}`);
  expect(res.status).toBe(200);
  return res.body;
};

describe(`footprint of a name the catalogue does not know on ${TEST_DATABASE_KIND}`, () => {
  it('takes the category its words name', async () => {
    const named = await footprint({ brand: 'Dell', model: 'AW9999H Monitor' });
    const asked = await footprint({ brand: 'Dell', model: 'AW9999H', category: 'monitor' });
    expect(named.methodology.match.status).toBe('none');
    expect(named.product).toMatchObject({ name: 'AW9999H Monitor', category: 'monitor' });
    expect(named.methodology.data_sources).toEqual(expect.arrayContaining(["category monitor named by the model name ('monitor')"]));
    expect(named.total_kg_co2e).toBeCloseTo(asked.total_kg_co2e, 2);
  });

  it("takes the category of the brand's product line in the built-in catalogue", async () => {
    const b = await footprint({ brand: 'Lenovo', model: 'ThinkVision T99i-10' });
    expect(b.product.category).toBe('monitor');
    expect(b.methodology.data_sources).toEqual(
      expect.arrayContaining(["category monitor: the built-in catalogue's Lenovo thinkvision devices are of this kind"]),
    );
    // a line of desk computers of several forms (Tiny, SFF, Tower, all-in-one) is a desktop, not the laptop default
    const desk = await footprint({ brand: 'Lenovo', model: 'ThinkCentre M99z' });
    expect(desk.product.category).toBe('desktop');
    expect(desk.methodology.data_sources.join(' | ')).toMatch(
      /category desktop: the built-in catalogue's Lenovo thinkcentre devices are desk computers \([a-z_, ]+\): estimated as a desktop/,
    );
    // a line the brand's successor sells today: HP's sheets and asset lists still say HP for HPE's ProLiant servers
    const proliant = await footprint({ brand: 'HP', model: 'ProLiant DL999 Gen10' });
    expect(proliant.product.category).toBe('server');
    expect(proliant.methodology.data_sources).toEqual(
      expect.arrayContaining(["category server: the built-in catalogue's HPE proliant devices are of this kind"]),
    );
  });

  it('takes a screen size written in the name, as if supplied', async () => {
    const named = await footprint({ brand: 'HP', model: 'ProBook 999 G9 15.6-inch Notebook PC' });
    const supplied = await footprint({ brand: 'HP', model: 'ProBook 999 G9', category: 'laptop', screen_size_inch: 15.6 });
    expect(named.product.category).toBe('laptop');
    expect(named.methodology.data_sources).toEqual(expect.arrayContaining(['screen_size_inch 15.6 read from the model name']));
    expect(named.breakdown.production_kg).toBeCloseTo(supplied.breakdown.production_kg, 2);
    expect(named.methodology.confidence).toBe(supplied.methodology.confidence);
  });

  it("takes the screen size the model number gives, as for the brand's catalogue devices numbered alike, and its weight follows", async () => {
    const named = await footprint({ brand: 'Dell', model: 'P2799H Monitor' });
    const supplied = await footprint({ brand: 'Dell', model: 'P2799H', category: 'monitor', screen_size_inch: 27 });
    expect(named.methodology.match.status).toBe('none');
    expect(named.methodology.data_sources).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^screen_size_inch 27 read from the model number as for Dell P27\w+ Monitor, .*\(digits 1-2 give the screen size of (\d+) of the \1 devices of the built-in catalogue numbered so\)$/,
        ),
      ]),
    );
    // as if supplied: 5 kg x (27 / 24)^2
    expect(named.product.weight_kg).toBe(6.33);
    expect(named.breakdown.production_kg).toBeCloseTo(supplied.breakdown.production_kg, 2);
    // a size written in the name wins; a caller's size wins over both; a laptop takes no 43-inch screen from "P43s"
    expect((await footprint({ brand: 'Dell', model: 'P2799H 24" Monitor' })).methodology.data_sources).toEqual(
      expect.arrayContaining(['screen_size_inch 24 read from the model name']),
    );
    expect(
      (await footprint({ brand: 'Dell', model: 'P2799H Monitor', screen_size_inch: 25 })).methodology.data_sources.join(' | '),
    ).not.toMatch(/screen_size_inch \d+ read/);
    expect((await footprint({ brand: 'Lenovo', model: 'ThinkPad P49s' })).methodology.data_sources.join(' | ')).not.toMatch(
      /screen_size_inch/,
    );
  });

  it('takes the release year of the catalogue devices numbered like it, and says which they are', async () => {
    const named = await footprint({ brand: 'Dell', model: 'Latitude 5411' });
    expect(named.methodology.match.status).toBe('none');
    expect(named.methodology.data_sources).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^release_year 2020 read from the model number: that of the built-in catalogue's Dell Latitude \d{4}, .*\(digit 3 of the model number, 1; that digit dates \d+ % of the line's devices\)$/,
        ),
      ]),
    );
    // The year enters the estimate (the calibration's brand-year terms): a 2018 Latitude differs.
    const older = await footprint({ brand: 'Dell', model: 'Latitude 5491' });
    expect(older.methodology.data_sources.join(' | ')).toMatch(/release_year 2018 read from the model number/);
    expect(Math.abs(named.breakdown.production_kg - older.breakdown.production_kg)).toBeGreaterThan(5);
    // A name the catalogue knows keeps the catalogue's own year; one without a model number has none.
    const known = await footprint({ brand: 'Dell', model: 'Latitude 5410' });
    expect(known.methodology.data_sources.join(' | ')).not.toMatch(/release_year/);
    const unnumbered = await footprint({ brand: 'Dell', model: 'Latitude Notebook' });
    expect(unnumbered.methodology.data_sources.join(' | ')).not.toMatch(/release_year/);
  });

  it('takes the memory and storage the name states, for a device of the catalogue too, as if supplied', async () => {
    const named = await footprint({ brand: 'Apple', model: 'iPhone 13 Pro 1TB' });
    const supplied = await footprint({ brand: 'Apple', model: 'iPhone 13 Pro', storage_gb: 1000 });
    const base = await footprint({ brand: 'Apple', model: 'iPhone 13 Pro' });
    expect(named.methodology.match.status).toBe('exact');
    expect(named.product.name).toBe('Apple iPhone 13 Pro');
    expect(named.methodology.data_sources).toEqual(expect.arrayContaining(["storage_gb 1000 read from the model name ('1tb')"]));
    expect(named.breakdown.production_kg).toBeCloseTo(supplied.breakdown.production_kg, 2);
    // the catalogue's 128 GB base configuration is smaller
    expect(named.breakdown.production_kg).toBeGreaterThan(base.breakdown.production_kg + 10);
    const unknown = await footprint({ brand: 'Acme', model: 'Book 9 32GB RAM 2TB SSD Notebook' });
    const unknownSupplied = await footprint({ brand: 'Acme', model: 'Book 9 Notebook', ram_gb: 32, storage_gb: 2000, storage_type: 'ssd' });
    expect(unknown.methodology.data_sources).toEqual(
      expect.arrayContaining([
        "ram_gb 32 read from the model name ('32gb')",
        "storage_gb 2000 read from the model name ('2tb'), storage_type ssd",
      ]),
    );
    expect(unknown.breakdown.production_kg).toBeCloseTo(unknownSupplied.breakdown.production_kg, 2);
    expect(unknown.methodology.confidence).toBe(unknownSupplied.methodology.confidence);
  });

  it("uses a manufacturer's published footprint only for the configuration it describes", async () => {
    const published = await footprint({ brand: 'Apple', model: 'iPhone 13 128GB' });
    expect(published.methodology.confidence).toBe('manufacturer_verified');
    const larger = await footprint({ brand: 'Apple', model: 'iPhone 13 512GB' });
    expect(larger.methodology.confidence).not.toBe('manufacturer_verified');
    expect(larger.methodology.data_sources).toEqual(expect.arrayContaining(["storage_gb 512 read from the model name ('512gb')"]));
    expect(larger.methodology.data_sources.join(' | ')).not.toMatch(/manufacturer-published footprint/);
  });

  it("never takes a capacity over the caller's, nor one the category does not have or limits", async () => {
    const caller = await footprint({ brand: 'Apple', model: 'iPhone 13 Pro 1TB', storage_gb: 256 });
    expect(caller.methodology.data_sources.join(' | ')).not.toMatch(/storage_gb \d+ read/);
    const monitor = await footprint({ brand: 'Dell', model: 'P2799H 512GB Monitor' });
    expect(monitor.methodology.data_sources.join(' | ')).not.toMatch(/read from the model name \('512gb'\)/);
    const tooBig = await footprint({ brand: 'Apple', model: 'iPhone 13 Pro 99999TB' });
    expect(tooBig.methodology.data_sources.join(' | ')).not.toMatch(/storage_gb \d+ read/);
  });

  it('never overrides what the caller supplied, and ignores a size outside the category', async () => {
    const b = await footprint({ brand: 'Dell', model: 'AW9999H 27-inch Monitor', category: 'laptop', screen_size_inch: 14 });
    expect(b.product.category).toBe('laptop');
    expect(b.methodology.data_sources.join(' | ')).not.toMatch(/model name/);
    const big = await footprint({ brand: 'Acme', model: 'Book 99-inch Notebook' });
    expect(big.product.category).toBe('laptop');
    expect(big.methodology.data_sources.join(' | ')).not.toMatch(/screen_size_inch .* read from the model name/);
  });
});
