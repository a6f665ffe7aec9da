import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';

// One strict input layer: exact JSON types, unknown names refused with a suggestion, bounded nesting, batch items on their own.
describe(`strict input on ${TEST_DATABASE_KIND}`, () => {
  let t: TestApp;
  let key: string;
  const keyed = (init: RequestInit = {}): RequestInit => ({
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
  });
  const post = (path: string, body: unknown) =>
    t.json(path, keyed({ method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) }));
  const laptop = { brand: 'HP', model: 'EliteBook 840 G8', country: 'DE' };

  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.createKey((await t.createOrg('enterprise')).id)).key;
  });
  afterAll(() => t.close());

  describe('deep nesting', () => {
    // 5 000 levels in 10 KB: formatting the refusal of such a value used to overflow the stack (500).
    const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    const routes: [string, string][] = [
      ['/v1/identify', 'model_string'],
      ['/v1/assets/csv', 'csv'],
      ['/v1/certificate', 'calculation_id'],
      ['/v1/certificate/revoke', 'id'],
      ['/v1/webhooks/endpoints', 'url'],
      ['/v1/blancco/sync', 'limit'],
    ];
    it.each(routes)('answers a value nested 5 000 deep on %s with 400 INVALID_JSON at once', async (path, field) => {
      const started = performance.now();
      const res = await post(path, `{"${field}": ${deep}}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_JSON', details: 'body: nested deeper than 32 levels' });
      expect(performance.now() - started).toBeLessThan(1_000);
    });

    it('bounds nesting in hand-written bodies and GraphQL variables too, and counts no bracket inside a string', async () => {
      expect((await post('/v1/report', `{"type": ${deep}}`)).body.code).toBe('INVALID_JSON');
      const graphql = await post('/v1/graphql', `{"query": "{ __typename }", "variables": {"x": ${deep}}}`);
      expect(graphql.body.errors[0].extensions.code).toBe('INVALID_JSON');
      const brackets = await post('/v1/identify', { model_string: `${'['.repeat(300)}"\\` });
      expect(brackets.body.code).not.toBe('INVALID_JSON');
    });

    it('refuses a too-deep value by its kind, not by printing it', async () => {
      const res = await post('/v1/identify', { model_string: [[[1]]] });
      expect(res.body).toMatchObject({ code: 'INVALID_PARAMETER', details: 'model_string: must be a string, got an array' });
    });
  });

  describe('exact types', () => {
    it('refuses "limit": "5" in a JSON body: numbers in bodies are JSON numbers', async () => {
      const res = await post('/v1/blancco/sync', { limit: '5' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_PARAMETER', details: "limit: must be an integer, got '5'" });
    });

    it('reads query-string numbers as decimals only', async () => {
      const ok = await t.json('/v1/footprint?brand=HP&model=EliteBook%20840%20G8&country=DE&ram_gb=16', keyed());
      expect(ok.status).toBe(200);
      for (const value of ['0x10', '1e1', '%2016']) {
        const res = await t.json(`/v1/footprint?brand=HP&model=EliteBook%20840%20G8&country=DE&ram_gb=${value}`, keyed());
        expect(res.status, value).toBe(400);
        expect(res.body.details).toMatch(/^ram_gb: must be a number/);
      }
    });
  });

  describe('unknown fields and parameters', () => {
    it('refuses an unknown query parameter on a SOFA GET route with a suggestion', async () => {
      const res = await t.json('/v1/footprint?brand=HP&model=EliteBook%20840%20G8&country=DE&ramgb=16', keyed());
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: "Unknown parameter 'ramgb'",
        code: 'UNKNOWN_PARAMETER',
        details: "ramgb: unknown parameter, did you mean 'ram_gb'?",
      });
    });

    it('refuses an unknown field of a SOFA POST body, naming each', async () => {
      const res = await post('/v1/identify', { model_string: 'HP EliteBook 840 G8', modelstring: 'x', zzzzzzzz: 1 });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'UNKNOWN_PARAMETER',
        details: "modelstring: unknown parameter, did you mean 'model_string'?; zzzzzzzz: unknown parameter",
      });
    });

    it('refuses an unknown field of a hand-written route body', async () => {
      const res = await post('/v1/report', { type: 'portfolio', datefrom: '2026-01-01' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'UNKNOWN_PARAMETER', details: "datefrom: unknown parameter, did you mean 'dateFrom'?" });
    });

    it('refuses an unknown field beside a list of items', async () => {
      const res = await post('/v1/assets', { assets: [{ brand: 'HP', model: 'x' }], extra: true });
      expect(res.body).toMatchObject({ code: 'UNKNOWN_PARAMETER', details: 'extra: unknown parameter' });
    });

    it('keeps GraphQL refusing an unknown argument as a validation error', async () => {
      const res = await t.graphql('{ footprint(brand: "HP", model: "x", country: "DE", ramgb: 16) { total_kg_co2e } }', undefined, key);
      expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(res.body.errors[0].message).toMatch(/^Unknown argument "ramgb"/);
    });

    it('refuses an unknown input field of a GraphQL variable with UNKNOWN_PARAMETER', async () => {
      const res = await t.graphql(
        'mutation($p: [FootprintBatchItem!]!) { footprintBatch(products: $p) { total } }',
        { p: [{ ...laptop, ramgb: 16 }] },
        key,
      );
      expect(res.body.errors[0].extensions).toMatchObject({
        code: 'UNKNOWN_PARAMETER',
        details: "p[0].ramgb: unknown parameter, did you mean 'ram_gb'?",
      });
    });

    it("makes an unknown field of a batch item that item's error", async () => {
      const res = await post('/v1/footprint/batch', { products: [{ ...laptop, ramgb: 16 }, laptop] });
      expect(res.status).toBe(200);
      expect(res.body.results[0]).toEqual({ error: "ramgb: unknown field; did you mean 'ram_gb'?", index: 0 });
      expect(res.body.results[1].total_kg_co2e).toBeGreaterThan(0);
    });
  });

  describe('batch items', () => {
    it('makes a string item an error at its index and calculates the others', async () => {
      const res = await post('/v1/footprint/batch', { products: ['x', laptop, '{"brand": "HP"}', 5] });
      expect(res.status).toBe(200);
      expect(res.body.successful).toBe(1);
      expect(res.body.results[0]).toEqual({ error: 'must be an object', index: 0 });
      expect(res.body.results[2]).toEqual({ error: 'must be an object', index: 2 });
      expect(res.body.results[3]).toEqual({ error: 'must be an object', index: 3 });
    });

    it('refuses products given as an object', async () => {
      const res = await post('/v1/footprint/batch', { products: laptop });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_PARAMETER', details: 'products: must be an array, got an object' });
    });

    it("makes one over-long brand among valid items that item's error", async () => {
      const products = [...Array.from({ length: 99 }, () => laptop)];
      products.splice(42, 0, { ...laptop, brand: 'H'.repeat(500) });
      const res = await post('/v1/footprint/batch', { products });
      expect(res.status).toBe(200);
      expect(res.body.successful).toBe(99);
      expect(res.body.results[42]).toEqual({ error: 'brand: must be at most 100 characters, got 500', index: 42 });
    });
  });
});
