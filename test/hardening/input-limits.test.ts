import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { printedSchema } from '../../src/graphql/schema.ts';

// Issue 9, findings 1-3, 6 and 7: hostile input is refused at the edge, by name, before any work.
describe(`hostile input on ${TEST_DATABASE_KIND}`, () => {
  let t: TestApp;
  let key: string;
  const json = (body: unknown) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const keyed = (init: RequestInit = {}) => ({
    ...init,
    headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${key}` },
  });
  const timed = async <T>(fn: () => Promise<T>) => {
    const started = performance.now();
    const result = await fn();
    return { result, ms: performance.now() - started };
  };

  beforeAll(async () => {
    t = await createTestApp();
    const org = await t.createOrg('enterprise');
    key = (await t.createKey(org.id)).key;
  });
  afterAll(() => t.close());

  describe('finding 1: string lengths are checked before any work', () => {
    it("refuses a 100 000-character country in a batch item as that item's error, naming it, at once", async () => {
      const { result, ms } = await timed(() =>
        t.json('/v1/footprint/batch', json({ products: [{ brand: 'HP', model: 'x', country: 'X'.repeat(100_000) }] })),
      );
      expect(result.status).toBe(200);
      expect(result.body.results).toEqual([{ error: 'country: must be at most 64 characters, got 100000', index: 0 }]);
      expect(ms).toBeLessThan(1_000);
    });

    it('refuses a 1 MB category and a 5 000-character country on GET /v1/footprint', async () => {
      const category = await t.json(
        '/v1/footprint/batch',
        json({ products: [{ brand: 'HP', model: 'x', country: 'DE', category: 'c'.repeat(200_000) }] }),
      );
      expect(category.body.results[0].error).toBe('category: must be at most 64 characters, got 200000');
      const country = await t.json(`/v1/footprint?brand=HP&model=x&country=${'X'.repeat(5_000)}`);
      expect(country.status).toBe(400);
      expect(country.body.details).toBe('country: must be at most 64 characters, got 5000');
    });

    it('refuses a 30 000-character regionCode in GraphQL with extensions.code', async () => {
      const { result, ms } = await timed(() =>
        t.graphql(`{ factorByRegion(regionCode: "${'X'.repeat(30_000)}") { value } }`, undefined, key),
      );
      expect(result.body.errors[0].extensions).toMatchObject({
        code: 'INVALID_PARAMETER',
        details: 'regionCode: must be at most 64 characters, got 30000',
      });
      expect(ms).toBeLessThan(1_000);
    });

    it('checks each item of a list argument, naming it', async () => {
      const ids = await t.graphql(
        'mutation($ids: [ID!]!) { simulateRefurbish(assetIds: $ids) { grade } }',
        { ids: ['a', 'X'.repeat(65)] },
        key,
      );
      expect(ids.body.errors[0].extensions).toMatchObject({
        code: 'INVALID_PARAMETER',
        details: 'assetIds[1]: must be at most 64 characters, got 65',
      });
    });

    it('answers a 100 KB model_string on /v1/identify with 400, not 500', async () => {
      const res = await t.json('/v1/identify', json({ model_string: 'a'.repeat(100_000) }));
      expect(res.status).toBe(400);
      expect(res.body.details).toBe('model_string: must be at most 200 characters, got 100000');
    });

    it('documents each limit in the printed schema and in OpenAPI', async () => {
      expect(printedSchema()).toContain('"""Manufacturer name. At most 100 characters."""\n    brand: String!');
      const openapi = await t.json('/v1/openapi.json');
      const country = openapi.body.paths['/v1/footprint'].get.parameters.find((p: { name: string }) => p.name === 'country');
      expect(country.schema).toMatchObject({ type: 'string', maxLength: 64 });
      expect(openapi.body.paths['/v1/identify'].post.requestBody.content['application/json'].schema.properties.model_string.maxLength).toBe(
        200,
      );
      expect(openapi.body.components.schemas.AssetInput.properties.serial_number.maxLength).toBe(100);
      expect(openapi.body.paths['/v1/assets/csv'].post.requestBody.content['application/json'].schema.properties.csv.maxLength).toBe(
        2_000_000,
      );
    });
  });

  describe('finding 2: body and URL limits', () => {
    it('answers an oversized JSON body with 413 and the ApiError body', async () => {
      const res = await t.json('/v1/footprint/batch', json({ products: [], padding: 'x'.repeat(300 * 1024) }));
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: expect.stringMatching(/^body: at most 262144 bytes/) });
    });

    it('refuses by Content-Length before reading, and GraphQL gets a GraphQL error document', async () => {
      const res = await t.json(
        '/v1/graphql',
        keyed({ method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(3 * 1024 * 1024) }, body: '{}' }),
      );
      expect(res.status).toBe(413);
      expect(res.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('accepts a CSV import body above the default limit (its route allows 4 MiB)', async () => {
      const rows = Array.from({ length: 1_000 }, (_, i) => `HP,EliteBook 840 G9 ${'x'.repeat(150)},SN-${i}-${'y'.repeat(90)},DE`);
      const res = await t.json('/v1/assets/csv', keyed(json({ csv: ['brand,model,serial_number,country', ...rows].join('\n') })));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ total_rows: 1_000, created: 1_000, failed: 0 });
    });

    it('answers a request target over 8 KiB with JSON 414', async () => {
      const res = await t.json(`/v1/search?q=${'a'.repeat(9_000)}`);
      expect(res.status).toBe(414);
      expect(res.body.code).toBe('URI_TOO_LONG');
    });
  });

  describe('finding 3: control characters and invalid Unicode are refused, naming the field', () => {
    it('refuses a NUL byte in a query parameter', async () => {
      const res = await t.json('/v1/footprint?brand=HP%00&model=x&country=DE');
      expect(res.status).toBe(400);
      expect(res.body.details).toBe('brand: must not contain control characters (U+0000 at character 3)');
    });

    it('refuses invalid percent-encoded UTF-8 in a query parameter', async () => {
      const res = await t.json('/v1/footprint?brand=HP%ED%A0%80&model=x&country=DE');
      expect(res.status).toBe(400);
      expect(res.body.details).toBe('brand: invalid percent-encoding (each %XX must form valid UTF-8)');
    });

    it('refuses invalid percent-encoded UTF-8 in a path parameter of a schema route, naming it', async () => {
      for (const [method, path] of [
        ['GET', '/v1/inventory/instruments/%ED%A0%80'],
        ['PATCH', '/v1/inventory/instruments/%ZZ'],
        ['DELETE', '/v1/org/export/jobs/%E0%A4'],
        ['GET', '/v1/assets/a%ED%A0%80'],
      ]) {
        const res = await t.json(
          path!,
          keyed({ method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' }),
        );
        expect([method, path, res.status, res.body.code, res.body.details]).toEqual([
          method,
          path,
          400,
          'INVALID_PARAMETER',
          'id: is not valid percent-encoded UTF-8',
        ]);
      }
    });

    it('refuses a lone surrogate in a batch item and a NUL in a GraphQL variable', async () => {
      const batch = await t.json('/v1/footprint/batch', json('{"products":[{"brand":"HP\\ud800","model":"x","country":"DE"}]}'));
      expect(batch.status).toBe(200);
      expect(batch.body.results[0].error).toBe('brand: must be well-formed Unicode (a lone UTF-16 surrogate was sent)');
      const gql = await t.graphql('query($c: String!) { factorByRegion(regionCode: $c) { value } }', { c: 'D\u0000E' }, key);
      expect(gql.status).toBe(400);
      expect(gql.body.errors[0].extensions.details).toBe('regionCode: must not contain control characters (U+0000 at character 2)');
    });

    it("refuses NUL bytes in JSON (as that row's error) and CSV asset imports (400) before storing them (PostgreSQL would fail with 22P05)", async () => {
      const jsonImport = await t.json(
        '/v1/assets',
        keyed(json({ assets: [{ brand: 'HP', model: 'x', serial_number: 'a\u0000b', country: 'DE' }] })),
      );
      expect(jsonImport.status).toBe(200);
      expect(jsonImport.body).toMatchObject({
        created: 0,
        failed: 1,
        errors: [{ index: 0, field: 'serial_number', reason: 'must not contain control characters (U+0000 at character 2)' }],
      });
      const csvImport = await t.json('/v1/assets/csv', keyed(json({ csv: 'brand,model,serial_number,country\nHP,x,a\u0000b,DE\n' })));
      expect(csvImport.status).toBe(400);
      expect(csvImport.body.details).toBe('csv: must not contain control characters (U+0000 on line 2)');
    });

    it('refuses a body that is not UTF-8', async () => {
      const res = await t.json('/v1/footprint/batch', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: new Uint8Array([0x7b, 0xff, 0x7d]),
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_ENCODING');
    });
  });

  describe('findings 6 and 7: malformed requests get a 4xx with a code', () => {
    it('answers invalid JSON in GET /v1/graphql variables or extensions with 400', async () => {
      for (const field of ['variables', 'extensions']) {
        const res = await t.json(`/v1/graphql?query=%7B__typename%7D&${field}=%7Bbad`, keyed());
        expect(res.status).toBe(400);
        expect(res.body.errors[0].extensions).toMatchObject({ code: 'INVALID_JSON', details: `${field}: could not be parsed as JSON` });
      }
    });

    it('answers a text/plain GraphQL POST with 415 and a body', async () => {
      const res = await t.json('/v1/graphql', keyed({ method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{ __typename }' }));
      expect(res.status).toBe(415);
      expect(res.body.errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers a null, array or malformed batch body with 400 INVALID_JSON and no internals', async () => {
      for (const [body, details] of [
        ['null', 'body: expected a JSON object, got null'],
        ['[1]', 'body: expected a JSON object, got an array'],
        ['{"products": [', 'body: could not be parsed as JSON'],
      ]) {
        const res = await t.json('/v1/footprint/batch', json(body));
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: expect.any(String), code: 'INVALID_JSON', details });
      }
    });

    it('answers GraphQL limit rejections with 400, counting __typename aliases', async () => {
      const aliases = `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
      const res = await t.graphql(aliases, undefined, key);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('MAX_ALIASES_EXCEEDED');
    });

    it('answers the token limit with 400 as well', async () => {
      const res = await t.graphql(`{ ${Array.from({ length: 2_100 }, () => '__typename').join(' ')} }`, undefined, key);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'MAX_TOKENS_EXCEEDED', details: 'query: Token limit of 2000 exceeded.' });
    });

    it('bounds introspection depth but lets the standard introspection query through', async () => {
      const standard = await t.graphql(getIntrospectionQuery(), undefined, key);
      expect(standard.status).toBe(200);
      expect(standard.body.data.__schema.queryType.name).toBe('Query');
      const nested = (depth: number): string => (depth === 0 ? 'name' : `fields { type { ${nested(depth - 1)} } }`);
      const deep = await t.graphql(`{ __schema { types { ${nested(10)} } } }`, undefined, key);
      expect(deep.status).toBe(400);
      expect(deep.body.errors[0].extensions.code).toBe('MAX_DEPTH_EXCEEDED');
    });
  });
});
