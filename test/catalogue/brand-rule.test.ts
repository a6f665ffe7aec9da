/**
 * Identification never crosses brands, and a category the caller gives is never overridden
 * silently: through every path that resolves a product (footprint, savings, refurbishment, batch,
 * identify, asset import, GraphQL). docs/catalogue.md "Brands" and "Category given and device found".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, qs, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  const org = await t.createOrg('business', 'Brand Rule Org');
  key = (await t.createKey(org.id)).key;
});
afterAll(() => t.close());

const auth = () => ({ authorization: `Bearer ${key}` });
const post = (path: string, body: unknown) =>
  t.json(path, { method: 'POST', headers: { 'content-type': 'application/json', ...auth() }, body: JSON.stringify(body) });
const footprint = async (params: Record<string, string | number>) => {
  const res = await t.json(`/v1/footprint?${qs(params)}`, { headers: auth() });
  expect(res.status).toBe(200);
  return res.body;
};

const NO_LETTERS =
  /^brand '.+' has no Latin letters or digits and is not in the brand alias table \(docs\/catalogue\.md\): no catalogue device is used, since one of another brand could be$/;
const UNKNOWN =
  /^brand '.+' is not a brand of the built-in catalogue: no catalogue device is used, since a device of another brand never is$/;

describe(`brands and categories in identification on ${TEST_DATABASE_KIND}`, () => {
  it('never answers another brand for a brand written in a script the catalogue does not use, and says why', async () => {
    const hebrew = await footprint({ brand: 'שרת ישראלי', model: 'מחשב נייד דגם 14 פרו', category: 'laptop', country: 'DE' });
    expect(hebrew.product).toMatchObject({ brand: 'שרת ישראלי', mpn: null, name: 'מחשב נייד דגם 14 פרו', category: 'laptop' });
    expect(hebrew.methodology.match.status).toBe('none');
    expect(hebrew.methodology.confidence).not.toBe('manufacturer_verified');
    expect(hebrew.methodology.data_sources).toEqual(expect.arrayContaining([expect.stringMatching(NO_LETTERS)]));
    expect(hebrew.methodology.warnings).toEqual([]);

    const japanese = await footprint({ brand: '日本', model: 'ノート 13', country: 'DE' });
    expect(japanese.product).toMatchObject({ brand: '日本', name: 'ノート 13', category: 'laptop' });
    expect(japanese.methodology.match.status).toBe('none');
    expect(japanese.methodology.data_sources).toEqual(expect.arrayContaining([expect.stringMatching(NO_LETTERS)]));

    // Latin model words do not help a brand the catalogue cannot read
    const latinModel = await footprint({ brand: 'عربي', model: 'iPhone 14', country: 'DE' });
    expect(latinModel.product.name).toBe('iPhone 14');
    expect(latinModel.methodology.match.status).toBe('none');

    // nor does a known brand make a name of unreadable words its device: "laptop model 14 pro" is no iPhone 14
    const unreadableModel = await footprint({ brand: 'Apple', model: 'מחשב נייד דגם 14 פרו', country: 'DE' });
    expect(unreadableModel.product).toMatchObject({ brand: 'Apple', mpn: null, name: 'מחשב נייד דגם 14 פרו' });
    expect(unreadableModel.methodology.match.status).toBe('none');
    expect(unreadableModel.methodology.data_sources).toContain(
      "model name words in a script the catalogue's names are not written in (מחשב נייד דגם פרו): no catalogue device is used, since none can be checked against them",
    );

    const unknown = await footprint({ brand: 'Zorblax', model: 'iPhone 14', country: 'DE' });
    expect(unknown.product).toMatchObject({ brand: 'Zorblax', name: 'iPhone 14' });
    expect(unknown.methodology.match.status).toBe('none');
    expect(unknown.methodology.data_sources).toEqual(expect.arrayContaining([expect.stringMatching(UNKNOWN)]));
  });

  it("matches the brand's own devices under its name in another script (alias table), and never another brand's", async () => {
    const xiaomi = await footprint({ brand: '小米', model: 'Redmi Note 13', country: 'DE' });
    expect(xiaomi.product).toMatchObject({ brand: 'Xiaomi', name: 'Xiaomi Redmi Note 13', category: 'smartphone' });
    expect(xiaomi.methodology.match.status).toBe('exact');
    const apple = await footprint({ brand: 'アップル', model: 'iPhone XR', country: 'DE' });
    expect(apple.product).toMatchObject({ brand: 'Apple', name: 'Apple iPhone XR' });
    const lenovo = await footprint({ brand: '联想', model: 'iPhone XR', country: 'DE' });
    expect(lenovo.methodology.match.status).toBe('none');
    expect(lenovo.product.brand).toBe('联想');
    // a known brand is no unknown one: no brand sentence
    expect(lenovo.methodology.data_sources.some((s: string) => s.startsWith('brand '))).toBe(false);
  });

  it('uses a device of a more specific category of the kind the caller gave, and says so', async () => {
    const res = await footprint({ brand: 'Lenovo', model: 'ThinkPad X1 Yoga Gen 8', category: 'laptop', country: 'DE' });
    expect(res.product).toMatchObject({ name: 'Lenovo ThinkPad X1 Yoga Gen 8', category: 'convertible' });
    expect(res.methodology.match.status).toBe('exact');
    expect(res.methodology.warnings).toEqual([
      "category 'laptop' given; the identified device Lenovo ThinkPad X1 Yoga Gen 8 (Lenovo) is a convertible, a more specific category of the same kind: estimated as convertible",
    ]);
  });

  it('estimates the category the caller gave when the name matched a device of another kind, and says so', async () => {
    const res = await footprint({ brand: 'Apple', model: 'iPhone XR', category: 'laptop', country: 'DE' });
    expect(res.product).toMatchObject({ brand: 'Apple', mpn: null, name: 'iPhone XR', category: 'laptop' });
    expect(res.methodology.match.status).toBe('none');
    expect(res.methodology.warnings).toEqual([
      "category 'laptop' given, but the model name matched Apple iPhone XR (Apple), a smartphone: that device is not used and the estimate is for a laptop; send category 'smartphone' or none to use it",
    ]);
    const agreed = await footprint({ brand: 'Apple', model: 'iPhone XR', category: 'smartphone', country: 'DE' });
    expect(agreed.product.name).toBe('Apple iPhone XR');
    expect(agreed.methodology.warnings).toEqual([]);
    // the REST fast path (a repeated query) answers the same fields in the same order
    const again = await footprint({ brand: 'Apple', model: 'iPhone XR', category: 'laptop', country: 'DE' });
    expect(Object.keys(again.methodology)).toEqual(Object.keys(res.methodology));
    expect(again.methodology.warnings).toEqual(res.methodology.warnings);
  });

  it('applies both rules to savings, refurbishment, batch, asset import and GraphQL', async () => {
    const savings = await t.json(`/v1/savings?${qs({ brand: 'Apple', model: 'iPhone XR', category: 'laptop', country: 'DE' })}`, {
      headers: auth(),
    });
    expect(savings.status).toBe(200);
    expect(savings.body.product.category).toBe('laptop');
    expect(savings.body.methodology.warnings).toHaveLength(1);
    const refurb = await t.json(`/v1/refurbishment?${qs({ brand: 'שרת ישראלי', model: 'דגם 14', country: 'DE', grade: 'A' })}`, {
      headers: auth(),
    });
    expect(refurb.status).toBe(200);
    expect(refurb.body.product.brand).toBe('שרת ישראלי');
    expect(refurb.body.methodology.match.status).toBe('none');

    const batch = await post('/v1/footprint/batch', {
      products: [
        { brand: 'שרת ישראלי', model: 'מחשב נייד דגם 14 פרו', category: 'laptop', country: 'DE' },
        { brand: 'Apple', model: 'iPhone XR', category: 'laptop', country: 'DE' },
      ],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.results[0].methodology.match.status).toBe('none');
    expect(batch.body.results[1].product.category).toBe('laptop');
    expect(batch.body.results[1].methodology.warnings[0]).toMatch(/^category 'laptop' given, but the model name matched Apple iPhone XR/);

    const imported = await post('/v1/assets', {
      assets: [
        { brand: '日本', model: 'ノート 13', serial_number: 'BR-1', country: 'DE' },
        { brand: 'Apple', model: 'iPhone XR', category: 'laptop', serial_number: 'BR-2', country: 'DE' },
      ],
    });
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({ created: 2, failed: 0 });
    const asset = async (i: number) =>
      (await t.graphql(`query A($id: ID!) { asset(id: $id) { brand category product { name } } }`, { id: imported.body.assets[i].id }, key))
        .body.data.asset;
    expect(await asset(0)).toEqual({ brand: '日本', category: 'laptop', product: null });
    expect(await asset(1)).toEqual({ brand: 'Apple', category: 'laptop', product: null });

    const gql = await t.graphql(
      `{ footprint(brand: "日本", model: "ノート 13", country: "DE") { product { brand name } methodology { match { status } warnings } } }`,
      undefined,
      key,
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.footprint).toEqual({
      product: { brand: '日本', name: 'ノート 13' },
      methodology: { match: { status: 'none' }, warnings: [] },
    });
  });

  it('POST /v1/identify with a brand never answers a device of another brand', async () => {
    for (const [brand, model] of [
      ['Dell', 'iPhone XR'],
      ['日本', 'Redmi Note 13'],
      ['שרת', '14'],
      ['Zorblax', 'Latitude 5440'],
    ]) {
      const res = await post('/v1/identify', { manufacturer: brand, model_string: model });
      expect(res.status, `${brand} ${model}`).toBe(404);
      expect(res.body).toMatchObject({ found: false, code: 'PRODUCT_NOT_FOUND' });
    }
    const own = await post('/v1/identify', { manufacturer: '小米', model_string: 'Redmi Note 13' });
    expect(own.status).toBe(200);
    expect(own.body.brand).toBe('Xiaomi');
  });
});
