import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, TEST_ADMIN_TOKEN } from '../support/test-app.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = (await t.createKey((await t.createOrg('business')).id)).key;
});
afterAll(() => t.close());

const expectApiError = (body: any, code: string) => {
  expect(Object.keys(body).sort()).toEqual(['code', 'details', 'error']);
  expect(body.code).toBe(code);
  expect(typeof body.error).toBe('string');
  expect(typeof body.details).toBe('string');
};

describe('error model', () => {
  it('answers an unknown route under /v1 with a JSON 404 ApiError', async () => {
    const res = await t.json('/v1/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expectApiError(res.body, 'ROUTE_NOT_FOUND');
    expect(res.body.details).toContain('/v1/no-such-thing');
  });

  it('answers an unknown route outside /v1 with a JSON 404 ApiError', async () => {
    const res = await t.json('/nothing/here', { method: 'POST' });
    expect(res.status).toBe(404);
    expectApiError(res.body, 'ROUTE_NOT_FOUND');
  });

  it('answers a wrong method on a REST route with 405 and Allow', async () => {
    const res = await t.json('/v1/reference/countries', { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expectApiError(res.body, 'METHOD_NOT_ALLOWED');
  });

  it('answers a wrong method on a hand-written route with 405 and Allow', async () => {
    const res = await t.json('/admin/v1/orgs', { method: 'GET', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it("lists every method of a path in Allow, whoever answers each (GET /v1/certificate is hand-written, POST is SOFA's)", async () => {
    const res = await t.json('/v1/certificate', { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    expectApiError(res.body, 'METHOD_NOT_ALLOWED');
  });

  it('answers malformed JSON with 400, never 500', async () => {
    const res = await t.json('/admin/v1/orgs', {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{"name": "Acme", ',
    });
    expect(res.status).toBe(400);
    expectApiError(res.body, 'INVALID_JSON');
  });

  it('answers malformed JSON on a SOFA route with 400 ApiError', async () => {
    const res = await t.json('/v1/footprint/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"products": [',
    });
    expect(res.status).toBe(400);
    expectApiError(res.body, 'INVALID_JSON');
    expect(res.body.details).toBe('body: could not be parsed as JSON');
  });

  it('answers malformed JSON on GraphQL with 400 and a GraphQL error', async () => {
    const res = await t.json('/v1/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: '{"query": ',
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/JSON/i);
  });

  it('names the field and the reason on invalid admin input', async () => {
    const res = await t.json('/admin/v1/orgs', {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Acme', plan: 'platinum' }),
    });
    expect(res.status).toBe(400);
    expectApiError(res.body, 'INVALID_PARAMETER');
    expect(res.body.details).toMatch(/^plan: must be one of free, pro, business, enterprise/);
  });

  it('gives GraphQL errors an extensions.code', async () => {
    const res = await t.graphql('{ organization { id } }');
    expect(res.body.errors[0].extensions.code).toBe('MISSING_API_KEY');
    const syntax = await t.graphql('{ organization { ', {}, key);
    expect(syntax.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it('echoes a request id, or makes one', async () => {
    const given = await t.request('/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const made = await t.request('/healthz');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports health and readiness', async () => {
    expect((await t.json('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await t.json('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
  });
});
