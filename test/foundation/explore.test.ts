import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { loadApprovedOperations } from '../../src/graphql/approved-operations.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp({ PUBLIC_BASE_URL: 'https://api.example.com' });
  key = (await t.createKey((await t.createOrg('business')).id)).key;
});
afterAll(() => t.close());

const HTML = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

/** The same-origin scripts, style sheets and icons a page loads; anything with a scheme would come from elsewhere. */
const resources = (html: string) => [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);

describe('GET / and GET /v1', () => {
  it('answer API clients with JSON links to the docs, OpenAPI, GraphQL and health', async () => {
    for (const path of ['/', '/v1', '/v1/']) {
      const res = await t.json(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('vary')).toBe('Accept');
      expect(res.body).toEqual({
        service: 'Lifecycle Carbon Footprint Service',
        version: expect.any(String),
        links: {
          docs: 'https://api.example.com/v1/docs',
          openapi: 'https://api.example.com/v1/openapi.json',
          graphql: 'https://api.example.com/v1/graphql',
          health: 'https://api.example.com/healthz',
          console: 'https://api.example.com/console',
        },
      });
    }
  });

  it('answer browsers with a page of the same links, its style admitted by hash', async () => {
    const res = await t.request('/v1', { headers: HTML });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'/);
    const page = await res.text();
    for (const href of ['/v1/docs', '/v1/openapi.json', '/v1/graphql', '/healthz'])
      expect(page).toContain(`href="https://api.example.com${href}"`);
  });

  it('are GET (and HEAD) only, and cost no quota', async () => {
    const res = await t.json('/', { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect((await t.request('/v1')).headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('GET /v1/docs', () => {
  it('is Swagger UI on /v1/openapi.json, every script and style from this server, nothing inline', async () => {
    const res = await t.request('/v1/docs', { headers: HTML });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const page = await res.text();
    expect(page).toContain('data-openapi="/v1/openapi.json"');
    expect(page).not.toMatch(/<style|<script>|https?:/);
    expect(resources(page)).toEqual([
      '/v1/docs/assets/favicon-32x32.png',
      '/v1/docs/assets/swagger-ui.css',
      '/v1/docs/assets/swagger-ui-bundle.js',
      '/v1/docs/assets/reference.js',
    ]);
    for (const url of resources(page)) {
      const asset = await t.request(url);
      expect(asset.status, url).toBe(200);
      expect(asset.headers.get('content-type'), url).toMatch(/^(text\/javascript|text\/css|image\/png)/);
    }
  });

  it('serves its assets gzipped when asked, revalidated by ETag', async () => {
    const plain = await t.request('/v1/docs/assets/swagger-ui.css');
    const css = await plain.text();
    expect(css).toContain('.swagger-ui');
    expect(plain.headers.get('cache-control')).toBe('no-cache');
    const gzipped = await t.request('/v1/docs/assets/swagger-ui.css', { headers: { 'accept-encoding': 'gzip, br' } });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gzipped.arrayBuffer())).toString()).toBe(css);
    const etag = plain.headers.get('etag')!;
    const again = await t.request('/v1/docs/assets/swagger-ui.css', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('answers an unknown asset with a JSON 404', async () => {
    const res = await t.json('/v1/docs/assets/package.json');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('ROUTE_NOT_FOUND');
  });
});

describe('GraphiQL at GET /v1/graphql', () => {
  it('is served to browsers with the approved templates as tabs and the Authorization header to fill in', async () => {
    const res = await t.request('/v1/graphql', { headers: HTML });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('vary')).toContain('Accept');
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'; style-src 'self' 'unsafe-inline';.*worker-src 'self'/);
    const page = await res.text();
    expect(page).not.toMatch(/https?:/);
    expect(resources(page)).toEqual([
      '/v1/docs/assets/favicon-32x32.png',
      '/v1/docs/assets/graphiql.css',
      '/v1/docs/assets/graphiql-start.js',
      '/v1/docs/assets/graphiql.js',
    ]);
    const options = JSON.parse(/<script type="application\/json" id="graphiql-options">(.*?)<\/script>/s.exec(page)![1]!);
    expect(options.headers).toContain('"Authorization": "Bearer <your API key>"');
    expect(options.shouldPersistHeaders).toBe(false);
    expect(options.defaultTabs.map((tab: { query: string }) => tab.query).sort()).toEqual(
      loadApprovedOperations()
        .map((op) => op.text)
        .sort(),
    );
    expect(JSON.parse(options.defaultTabs[0].variables)).toEqual({ regionCode: 'DE' });
  });

  it('serves the bundle and the editor workers it names from this server', async () => {
    const start = await (await t.request('/v1/docs/assets/graphiql-start.js')).text();
    const workers = [...start.matchAll(/'(graphiql-[\w.-]+\.js)'/g)].map((m) => m[1]!);
    expect(workers).toHaveLength(3);
    for (const name of ['graphiql.js', 'graphiql.css', ...workers]) {
      const res = await t.request(`/v1/docs/assets/${name}`);
      expect(res.status, name).toBe(200);
      expect((await res.text()).length, name).toBeGreaterThan(10_000);
    }
  });

  it('leaves API clients GET unchanged: JSON, the key required', async () => {
    const anonymous = await t.json('/v1/graphql?query={__typename}', { headers: { accept: 'application/json' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errors[0].extensions.code).toBe('MISSING_API_KEY');
    expect(anonymous.headers.get('vary')).toContain('Accept');
    const keyed = await t.json('/v1/graphql?query={__typename}', {
      headers: { accept: 'application/json', authorization: `Bearer ${key}` },
    });
    expect(keyed.status).toBe(200);
    expect(keyed.body.data).toEqual({ __typename: 'Query' });
  });
});
