/**
 * Identification never crosses brands: generated requests (brands in scripts the catalogue does
 * not use, brands it does not know, numbers alone, one brand with another brand's model names,
 * brands in other scripts with their own and others' models) sent through POST /v1/footprint/batch
 * and POST /v1/identify. Every answer is of the caller's brand or parametric (match none).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { loadCatalogue } from '../../src/catalogue/catalogue-data.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  const org = await t.createOrg('business', 'Cross Brand Org');
  // no organisation context: nothing is stored for 300 probes
  key = (await t.createKey(org.id, { org_context: false })).key;
});
afterAll(() => t.close());

/** A request and the brand an answer may have: the catalogue's spelling, or null when only a parametric answer will do. */
interface Probe {
  brand: string;
  model: string;
  allowed: string | null;
}

const catalogue = loadCatalogue();
const namesOf = (brand: string, n: number) =>
  catalogue
    .filter((e) => e.brand === brand)
    .filter((_, i) => i % 7 === 0)
    .slice(0, n)
    .map((e) => e.name.slice(brand.length + 1));

// Models of real devices, numbers alone and numbers as other scripts write models around them.
const MODEL_NUMBERS = ['14', '13', '5440', '15', '7', '840', 'X1', 'S23', '12', '2022'];
const FOREIGN_MODELS = [
  'מחשב נייד דגם 14 פרו',
  'ノート 13',
  'ノートパソコン 14',
  '노트북 15',
  '笔记本 14 Pro',
  'ноутбук 13',
  'حاسوب محمول 14',
  'φορητός 15',
  'แล็ปท็อป 14',
  'ラップトップ 5440',
];
const UNREADABLE_BRANDS = [
  'שרת ישראלי',
  '日本',
  'ノートパソコン',
  '한국전자',
  '中国电脑',
  'Компьютер',
  'شركة عربية',
  'Ελληνική',
  'บริษัท',
  '---',
];
const UNKNOWN_BRANDS = ['Zorblax', 'Acme', 'Brand12', 'Nordcomp', 'Tuxedo Computers', 'Medion Xtreme', 'Q', 'Dellx', 'Appel', 'Lenova'];
const CROSS = ['Dell', 'Lenovo', 'HP', 'Apple', 'Samsung', 'Microsoft', 'Google', 'Xiaomi', 'Asus', 'Acer'];
const ALIASES: [string, string][] = [
  ['小米', 'Xiaomi'],
  ['アップル', 'Apple'],
  ['联想', 'Lenovo'],
  ['戴尔', 'Dell'],
  ['삼성', 'Samsung'],
  ['惠普', 'HP'],
];

function probes(): Probe[] {
  const out: Probe[] = [];
  const realModels = CROSS.flatMap((b) => namesOf(b, 3));
  for (const brand of UNREADABLE_BRANDS) {
    for (const model of [...FOREIGN_MODELS.slice(0, 4), ...MODEL_NUMBERS.slice(0, 4), ...realModels.slice(0, 6)])
      out.push({ brand, model, allowed: null });
  }
  for (const brand of UNKNOWN_BRANDS)
    for (const model of [...MODEL_NUMBERS.slice(0, 3), ...realModels.filter((_, i) => i % 3 === 0)])
      out.push({ brand, model, allowed: null });
  // a known brand with another brand's model names, and with bare numbers
  CROSS.forEach((brand, i) => {
    for (const other of [CROSS[(i + 1) % CROSS.length]!, CROSS[(i + 4) % CROSS.length]!])
      for (const model of namesOf(other, 3)) out.push({ brand, model, allowed: brand });
    for (const model of MODEL_NUMBERS.slice(0, 3)) out.push({ brand, model, allowed: brand });
  });
  // a brand under its name in another script: its own models may match, others' never
  for (const [alias, brand] of ALIASES) {
    for (const model of [...namesOf(brand, 3), ...namesOf(brand === 'Apple' ? 'Dell' : 'Apple', 3), ...FOREIGN_MODELS.slice(0, 2)])
      out.push({ brand: alias, model, allowed: brand });
  }
  return out;
}

const post = (path: string, body: unknown) =>
  t.json(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });

describe(`no cross-brand identification on ${TEST_DATABASE_KIND}`, () => {
  const all = probes();

  it("sends at least 300 generated names and answers each with the caller's brand or a parametric estimate", async () => {
    expect(all.length).toBeGreaterThanOrEqual(300);
    const crossed: string[] = [];
    let matched = 0;
    for (let i = 0; i < all.length; i += 100) {
      const chunk = all.slice(i, i + 100);
      const res = await post('/v1/footprint/batch', { products: chunk.map((p) => ({ brand: p.brand, model: p.model, country: 'DE' })) });
      expect(res.status).toBe(200);
      res.body.results.forEach((r: any, j: number) => {
        const p = chunk[j]!;
        expect(r.error, `${p.brand} / ${p.model}`).toBeUndefined();
        const { match } = r.methodology;
        if (match.status === 'none') {
          expect(r.product.brand).toBe(p.brand);
          return;
        }
        matched++;
        const brands = [r.product.brand, ...(match.chosen ? [match.chosen.brand] : []), ...match.candidates.map((c: any) => c.brand)];
        if (p.allowed === null || brands.some((b) => b !== p.allowed)) crossed.push(`${p.brand} / ${p.model} → ${r.product.name}`);
      });
    }
    console.log(
      `cross-brand probes: ${all.length} sent, ${matched} matched a device of the caller's brand, ${crossed.length} crossed brands`,
    );
    expect(crossed).toEqual([]);
    // the alias probes with their own models do match: the rule does not refuse everything
    expect(matched).toBeGreaterThanOrEqual(ALIASES.length * 2);
  });

  it('POST /v1/identify with a brand answers no device of another brand', async () => {
    const crossed: string[] = [];
    for (const p of all.filter((_, i) => i % 3 === 0)) {
      const res = await post('/v1/identify', { manufacturer: p.brand, model_string: p.model });
      expect([200, 404]).toContain(res.status);
      if (res.status === 200 && res.body.brand !== p.allowed) crossed.push(`${p.brand} / ${p.model} → ${res.body.brand} ${res.body.name}`);
    }
    expect(crossed).toEqual([]);
  });
});
