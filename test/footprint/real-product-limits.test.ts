/**
 * Range checks from the range of real products (issue 15.4): a desktop with a screen size is an
 * all-in-one, large-format monitors and interactive panels past 100 kg and thin clients with a
 * stand are accepted, a value beyond the real products but inside the margin is said, a typo of
 * another order is still a 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, qs, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const get = (params: Record<string, string | number>) => t.json(`/v1/footprint?${qs({ country: 'DE', ...params })}`);

describe(`limits from real products on /v1/footprint (${TEST_DATABASE_KIND})`, () => {
  it('a desktop with a screen size is estimated as an all-in-one, and says so', async () => {
    const res = await get({ brand: 'Acme', model: 'Office One 24', category: 'desktop', weight_kg: 9.9, screen_size_inch: 24 });
    expect(res.status).toBe(200);
    expect(res.body.product.category).toBe('all_in_one');
    expect(res.body.methodology.data_sources).toContain(
      'category desktop with screen_size_inch 24: estimated as all_in_one (screen built in)',
    );
    const aio = await get({ brand: 'Acme', model: 'Office One 24', category: 'all_in_one', weight_kg: 9.9, screen_size_inch: 24 });
    expect(res.body.total_kg_co2e).toBe(aio.body.total_kg_co2e);
    // without a screen (or with 0) a desktop stays a desktop
    const plain = await get({ brand: 'Acme', model: 'Office Tower', category: 'desktop', screen_size_inch: 0 });
    expect(plain.status).toBe(200);
    expect(plain.body.product.category).toBe('desktop');
  });

  it.each([
    ['a 75-inch 64 kg large-format monitor', { category: 'monitor', weight_kg: 64, screen_size_inch: 75 }],
    ['a 98-inch 140 kg interactive panel', { category: 'interactive_display', weight_kg: 140, screen_size_inch: 98 }],
    ['a thin client with stand and screen', { category: 'thin_client', weight_kg: 6, screen_size_inch: 21.5 }],
    ['a rack server with a 4-inch status panel', { category: 'server', weight_kg: 17, screen_size_inch: 4 }],
  ])('accepts %s', async (_, specs) => {
    const res = await get({ brand: 'Acme', model: 'X', ...specs });
    expect(res.status).toBe(200);
    expect(res.body.product.category).toBe(specs.category);
    expect(res.body.total_kg_co2e).toBeGreaterThan(0);
  });

  it('accepts a weight beyond the heaviest real laptops with a note, refuses one of another order', async () => {
    const slip = await get({ brand: 'Acme', model: 'X', category: 'laptop', weight_kg: 15.6 });
    expect(slip.status).toBe(200);
    expect(slip.body.methodology.data_sources).toContain(
      'check weight_kg: 15.6 kg is beyond the heaviest real products of category laptop (6 kg)',
    );
    const typo = await get({ brand: 'Acme', model: 'X', category: 'laptop', weight_kg: 5000 });
    expect(typo.status).toBe(400);
    expect(typo.body.details).toBe('weight_kg: must be below 18 kg for category laptop');
    const big = await get({ brand: 'Acme', model: 'X', category: 'monitor', screen_size_inch: 200 });
    expect(big.status).toBe(400);
    expect(big.body.details).toBe('screen_size_inch: must be at most 107.5 inches for category monitor');
    const panel = await get({ brand: 'Acme', model: 'X', category: 'server', screen_size_inch: 24 });
    expect(panel.status).toBe(400);
    expect(panel.body.details).toBe('screen_size_inch: must be at most 5 inches (a status panel): a server has no built-in screen');
  });
});
