import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('GET /healthz and GET /readyz', () => {
  it('answer liveness and readiness with the database kind and a request id', async () => {
    const health = await t.json('/healthz', { headers: { 'x-request-id': 'probe-1' } });
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(health.headers.get('x-request-id')).toBe('probe-1');
    const ready = await t.json('/readyz');
    expect(ready).toMatchObject({ status: 200, body: { status: 'ready', database: t.app.services.db.kind } });
    expect(ready.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('take GET only: 405 with Allow on other methods, and no other path answers for them', async () => {
    for (const path of ['/healthz', '/readyz']) {
      for (const method of ['POST', 'DELETE']) {
        const res = await t.json(path, { method });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.body.code).toBe('METHOD_NOT_ALLOWED');
        expect(res.headers.get('allow')).toBe('GET');
      }
      expect((await t.json(`/v1${path}`)).status).toBe(404);
    }
  });

  it('are the only health checks: another path ending in /health is answered as that path', async () => {
    expect((await t.json('/health')).status).toBe(404);
    expect((await fetch(`${await t.listen()}/v1/graphql/health`)).status).toBe(404);
    const footprint = await t.json('/v1/footprint?brand=Dell&country=DE&model=Latitude/health');
    expect(footprint.status).toBe(200);
    expect(footprint.body.product.brand).toBe('Dell');
  });

  it('say unavailable, 503, while the database does not answer', async () => {
    const queryRaw = vi.spyOn(t.app.services.db.prisma, '$queryRaw').mockRejectedValueOnce(new Error('connection refused'));
    try {
      const res = await t.json('/readyz');
      expect(res).toMatchObject({ status: 503, body: { status: 'unavailable', database: t.app.services.db.kind } });
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      queryRaw.mockRestore();
    }
    expect((await t.json('/readyz')).status).toBe(200);
  });

  // Last: draining cannot be undone.
  it('say draining, 503, once the instance drains, while liveness stays 200', async () => {
    t.app.drain();
    expect(await t.json('/readyz')).toMatchObject({ status: 503, body: { status: 'draining' } });
    expect(await t.json('/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });
});
