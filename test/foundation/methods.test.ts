import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { rawRequest } from '../support/raw-request.ts';

// Every HTTP method gets an answer from the route table: HEAD wherever GET works, 405 with Allow for a
// method a route does not take (TRACE included, which the Fetch API cannot carry, and CONNECT),
// always with a JSON body, never a 500 or a closed connection.
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await createTestApp();
  base = await t.listen();
});
afterAll(() => t.close());

const raw = (method: string, target: string) => rawRequest(base, method, target);

const FOOTPRINT = '/v1/footprint?brand=Lenovo&model=ThinkPad%20T14&category=laptop&country=DE';

describe('HTTP methods', () => {
  it('answers HEAD wherever GET works: the GET headers, no body', async () => {
    for (const path of [FOOTPRINT, '/healthz', '/readyz', '/v1/openapi.json', '/v1/reference/categories', '/v1/docs']) {
      const get = await fetch(`${base}${path}`);
      const head = await fetch(`${base}${path}`, { method: 'HEAD' });
      expect(get.status, path).toBe(200);
      expect(head.status, path).toBe(200);
      expect(head.headers.get('content-type'), path).toBe(get.headers.get('content-type'));
      expect(await head.text(), path).toBe('');
      expect(head.headers.get('x-request-id'), path).toMatch(/\S/);
    }
    const inProcess = await t.app.fetch(new Request(`http://localhost${FOOTPRINT}`, { method: 'HEAD' }));
    expect(inProcess.status).toBe(200);
    expect(await inProcess.text()).toBe('');
  });

  it('answers a method a route does not take with 405, Allow (HEAD beside GET) and a JSON body', async () => {
    for (const method of ['TRACE', 'PROPFIND', 'DELETE']) {
      const answer = await raw(method, FOOTPRINT);
      expect(answer.status, method).toBe(405);
      expect(answer.headers.allow, method).toBe('GET, HEAD');
      expect(JSON.parse(answer.body), method).toMatchObject({
        code: 'METHOD_NOT_ALLOWED',
        details: `${method} /v1/footprint: allowed GET, HEAD`,
      });
    }
    const head = await fetch(`${base}/v1/footprint/batch`, { method: 'HEAD' });
    expect([head.status, head.headers.get('allow')]).toEqual([405, 'POST']);
  });

  it('answers TRACE on a path of no route with 404, and CONNECT with 405, both in JSON', async () => {
    const trace = await raw('TRACE', '/nowhere');
    expect(trace.status).toBe(404);
    expect(JSON.parse(trace.body)).toMatchObject({ code: 'ROUTE_NOT_FOUND' });
    const connect = await raw('CONNECT', 'example.com:443');
    expect([connect.status, connect.headers.allow]).toEqual([405, 'DELETE, GET, HEAD, PATCH, POST, PUT']);
    expect(JSON.parse(connect.body)).toMatchObject({ code: 'METHOD_NOT_ALLOWED', details: expect.stringContaining('not a proxy') });
  });
});
