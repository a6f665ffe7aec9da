import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app.ts';
import { awayFromMinuteEnd } from '../support/minute.ts';

// The admin API under malformed paths and token guessing.
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

const admin = (path: string, token: string, init: RequestInit & { ip?: string } = {}) =>
  t.json(`/admin/v1${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });

describe('malformed paths', () => {
  it('answers bad percent-encoding with 400 naming the parameter, before authentication', async () => {
    for (const [method, path] of [
      ['GET', '/orgs/%ZZ'],
      ['DELETE', '/keys/%C0%AF'],
      ['GET', '/orgs/%'],
    ] as const) {
      const res = await t.json(`/admin/v1${path}`, { method });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: "Invalid parameter 'id'",
        code: 'INVALID_PARAMETER',
        details: 'id: is not valid percent-encoded UTF-8',
      });
    }
  });

  it('refuses control characters and over-long ids with 400', async () => {
    const control = await admin('/orgs/%7F', TEST_ADMIN_TOKEN);
    expect(control.status).toBe(400);
    expect(control.body).toMatchObject({
      code: 'INVALID_PARAMETER',
      details: 'id: must not contain control characters (U+007F at character 1)',
    });
    const long = await admin(`/keys/${'f'.repeat(65)}`, TEST_ADMIN_TOKEN, { method: 'DELETE' });
    expect(long.status).toBe(400);
    expect(long.body.details).toBe('id: must be at most 64 characters, got 65');
  });

  it('still answers a well-formed unknown id with 404', async () => {
    const res = await admin('/orgs/00000000-0000-4000-8000-000000000000', TEST_ADMIN_TOKEN);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });
});

describe('failed admin-token attempts', () => {
  it('are limited to 10 a minute per client IP: then 429 with the rate-limit body, even for the right token', async () => {
    await awayFromMinuteEnd();
    const ip = '203.0.113.10';
    for (let i = 0; i < 10; i++) {
      const res = await admin('/orgs', `wrong-${i}`, { method: 'POST', body: '{}', ip });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('INVALID_ADMIN_TOKEN');
    }
    const missing = await t.json('/admin/v1/orgs', { method: 'POST', body: '{}', ip });
    expect(missing.status).toBe(429);
    const limited = await admin('/orgs', TEST_ADMIN_TOKEN, { method: 'POST', body: JSON.stringify({ name: 'Guessed', plan: 'pro' }), ip });
    expect(limited.status).toBe(429);
    const wait = limited.body.retry_after_seconds;
    expect(limited.body).toEqual({
      error: 'Rate limit exceeded',
      code: 'RATE_LIMITED_SIGN_IN',
      message: `Too many failed admin-token attempts from this address; retry after ${wait} s.`,
      retry_after_seconds: wait,
    });
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(limited.headers.get('retry-after')).toBe(String(wait));
    // Like every 429: the refusing window (10 failures a minute) and when it resets.
    expect(limited.headers.get('x-ratelimit-limit')).toBe('10');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('x-ratelimit-reset')) - Date.now() / 1000).toBeGreaterThan(0);
    expect(Number(limited.headers.get('x-ratelimit-reset')) - Date.now() / 1000).toBeLessThanOrEqual(60);
    expect(await t.app.services.db.prisma.organization.count({ where: { name: 'Guessed' } })).toBe(0);

    // Another address keeps working.
    expect(
      (
        await admin('/orgs', TEST_ADMIN_TOKEN, {
          method: 'POST',
          body: JSON.stringify({ name: 'Elsewhere', plan: 'pro' }),
          ip: '203.0.113.11',
        })
      ).status,
    ).toBe(201);
  });

  it('do not include successful requests', async () => {
    await awayFromMinuteEnd();
    const ip = '203.0.113.12';
    const org = await admin('/orgs', TEST_ADMIN_TOKEN, { method: 'POST', body: JSON.stringify({ name: 'Busy', plan: 'pro' }), ip });
    for (let i = 0; i < 15; i++) expect((await admin(`/orgs/${org.body.id}`, TEST_ADMIN_TOKEN, { ip })).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await admin(`/orgs/${org.body.id}`, 'wrong', { ip })).status).toBe(401);
    expect((await admin(`/orgs/${org.body.id}`, 'wrong', { ip })).status).toBe(429);
  });
});
