import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwardedOrigin } from '../../src/app.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { awayFromMinuteEnd } from '../support/minute.ts';

// The console's answers to hostile and malformed requests: never a 500, forms only from the console's
// own origin, security headers on its pages, a brute-force limit on sign-in.
const SELF = 'http://localhost';
const FORM = 'application/x-www-form-urlencoded';

let t: TestApp;
let key: string;
let orgId: string;

beforeAll(async () => {
  t = await createTestApp({ TRUSTED_PROXY: '127.0.0.1', ALLOWED_HOSTS: 'localhost,127.0.0.1,lcf.example.com' });
  const org = await t.createOrg('pro', 'Hardened Org');
  orgId = org.id;
  key = (await t.createKey(org.id)).key;
});
afterAll(() => t?.close());

const post = (path: string, body: string, headers: Record<string, string> = {}, ip?: string) =>
  t.request(`/console${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': FORM, ...headers }, body, ip });

async function signIn(ip?: string): Promise<string> {
  const res = await post('/login', `key=${key}`, { origin: SELF }, ip);
  expect(res.status).toBe(303);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

const keyCount = () => t.app.services.db.prisma.apiKey.count({ where: { org_id: orgId } });

describe('malformed paths', () => {
  it('answers bad percent-encoding in a path parameter with 400 naming it, before the session is looked at', async () => {
    for (const path of ['/keys/%ZZ/revoke', '/keys/%E0%A4/revoke']) {
      const res = await t.json(`/console${path}`, { method: 'POST' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: "Invalid parameter 'id'",
        code: 'INVALID_PARAMETER',
        details: 'id: is not valid percent-encoded UTF-8',
      });
    }
  });

  it('refuses control characters and over-long values in path parameters', async () => {
    const control = await t.json('/console/keys/a%00b/revoke', { method: 'POST' });
    expect(control.status).toBe(400);
    expect(control.body.code).toBe('INVALID_PARAMETER');
    expect(control.body.details).toBe('id: must not contain control characters (U+0000 at character 2)');
    const long = await t.json(`/console/keys/${'a'.repeat(65)}/revoke`, { method: 'POST' });
    expect(long.status).toBe(400);
    expect(long.body.details).toBe('id: must be at most 64 characters, got 65');
  });
});

describe('sign-in bodies', () => {
  it.each([
    ['JSON', 'application/json', JSON.stringify({ key: 'svc_live_x' })],
    ['text', 'text/plain', 'key=svc_live_x'],
    ['broken multipart', 'multipart/form-data; boundary=zz', '--zz\r\nContent-Disposition: form-data; name="key"\r\n\r\nsvc'],
    ['no content type', '', 'key=svc_live_x'],
  ])('answers a %s body with 415 UNSUPPORTED_MEDIA_TYPE', async (_label, contentType, body) => {
    const headers: Record<string, string> = { origin: SELF };
    if (contentType) headers['content-type'] = contentType;
    const res = await t.json('/console/login', { method: 'POST', headers, body });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      error: 'Unsupported media type',
      code: 'UNSUPPORTED_MEDIA_TYPE',
      details: 'body: console forms are sent as application/x-www-form-urlencoded',
    });
  });

  it('checks each field: length before any work, no control characters, known values only', async () => {
    const long = await post('/login', `key=${'k'.repeat(101)}`, { origin: SELF });
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ code: 'INVALID_PARAMETER', details: 'key: must be at most 100 characters, got 101' });
    const control = await post('/login', 'key=svc_live_%01', { origin: SELF });
    expect(control.status).toBe(400);
    expect(await control.json()).toMatchObject({
      code: 'INVALID_PARAMETER',
      details: 'key: must not contain control characters (U+0001 at character 10)',
    });
    const missing = await post('/login', '', { origin: SELF });
    expect(missing.status).toBe(400);
    expect((await missing.json()).details).toMatch(/^key: /);

    const cookie = await signIn();
    const before = await keyCount();
    const name = await post('/keys', 'name=ci%0Dpipeline&environment=live', { origin: SELF, cookie });
    expect(name.status).toBe(400);
    expect(await name.json()).toMatchObject({
      code: 'INVALID_PARAMETER',
      details: 'name: must not contain control characters (U+000D at character 3)',
    });
    const longName = await post('/keys', `name=${'n'.repeat(201)}`, { origin: SELF, cookie });
    expect((await longName.json()).details).toBe('name: must be at most 200 characters, got 201');
    const environment = await post('/keys', 'environment=production', { origin: SELF, cookie });
    expect(environment.status).toBe(400);
    expect((await environment.json()).details).toMatch(/^environment: /);
    expect(await keyCount()).toBe(before);
  });
});

describe('cross-site requests', () => {
  it('refuses a state-changing request without Origin or Sec-Fetch-Site, and one from another site: 403, nothing changes', async () => {
    const cookie = await signIn();
    const before = await keyCount();
    const refused: Record<string, string>[] = [
      {},
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of refused) {
      const res = await post('/keys', 'name=csrf&environment=live', { cookie, ...headers });
      expect(res.status).toBe(403);
      expect((await res.json()).code).toBe('CROSS_ORIGIN_FORM');
    }
    const target = await t.app.services.db.prisma.apiKey.findFirstOrThrow({ where: { org_id: orgId } });
    expect((await post(`/keys/${target.id}/revoke`, '', { cookie })).status).toBe(403);
    expect((await post('/logout', '', { cookie })).status).toBe(403);
    expect(await keyCount()).toBe(before);
    expect((await t.app.services.db.prisma.apiKey.findUniqueOrThrow({ where: { id: target.id } })).revoked_at).toBeNull();
    // Sign-in too (login CSRF would sign a victim into the attacker's organisation).
    expect((await post('/login', `key=${key}`)).status).toBe(403);
  });

  it('accepts the console’s own Origin, or Sec-Fetch-Site: same-origin', async () => {
    const cookie = await signIn();
    const before = await keyCount();
    expect((await post('/keys', 'name=by-origin', { cookie, origin: SELF })).status).toBe(200);
    expect((await post('/keys', 'name=by-fetch-metadata', { cookie, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect(await keyCount()).toBe(before + 2);
  });

  it('ignores X-Forwarded-* from a peer that is not a trusted proxy', async () => {
    const res = await post('/login', `key=${key}`, {
      origin: 'https://lcf.example.com',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'lcf.example.com',
    });
    expect(res.status).toBe(403);
    const peer = (address: string, headers: Record<string, string>) =>
      ({ socket: { remoteAddress: address }, headers }) as unknown as IncomingMessage;
    expect(
      forwardedOrigin(peer('203.0.113.9', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' }), ['10.0.0.1']),
    ).toBeUndefined();
    expect(
      forwardedOrigin(peer('10.0.0.1', { 'x-forwarded-proto': 'HTTPS, http', 'x-forwarded-host': 'lcf.example.com' }), ['10.0.0.1']),
    ).toEqual({
      proto: 'https',
      host: 'lcf.example.com',
    });
  });
});

describe('behind a trusted proxy (real server, TRUSTED_PROXY=127.0.0.1)', () => {
  let base: string;
  beforeAll(async () => {
    base = await t.listen();
  });

  const login = (headers: Record<string, string>) =>
    fetch(`${base}/console/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': FORM, ...headers },
      body: `key=${key}`,
    });

  it('takes the origin from X-Forwarded-Proto/Host and marks the session cookie Secure over https', async () => {
    const proxied = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'lcf.example.com', 'x-forwarded-for': '198.51.100.20' };
    const res = await login({ ...proxied, origin: 'https://lcf.example.com' });
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toMatch(
      /^lcf_console=[\w.-]+; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=28800; Secure$/,
    );
    // The address the proxy saw is no longer this console's origin.
    expect((await login({ ...proxied, origin: base })).status).toBe(403);
  });

  it('leaves the cookie without Secure over plain http', async () => {
    const res = await login({ origin: base });
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).not.toMatch(/Secure/);
  });
});

describe('PUBLIC_BASE_URL', () => {
  let pub: TestApp;
  beforeAll(async () => {
    pub = await createTestApp({ PUBLIC_BASE_URL: 'https://console.example.com/base' }, { database: t.app.services.db });
  });
  afterAll(() => pub?.close());

  const login = (origin: string) =>
    pub.request('/console/login', { method: 'POST', redirect: 'manual', headers: { 'content-type': FORM, origin }, body: `key=${key}` });

  it('is the only origin forms are accepted from, and makes the cookie Secure when https', async () => {
    expect((await login(SELF)).status).toBe(403);
    const res = await login('https://console.example.com');
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toMatch(/; Secure$/);
  });
});

describe('security headers', () => {
  it('sends CSP, X-Frame-Options, nosniff and no-referrer on console pages; the CSP admits exactly the page’s style sheet', async () => {
    for (const res of [await t.request('/console'), await t.request('/console', { headers: { cookie: await signIn() } })]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      const csp = res.headers.get('content-security-policy')!;
      const style = /<style>([\s\S]*?)<\/style>/.exec(await res.text())![1]!;
      const hash = createHash('sha256').update(style).digest('base64');
      expect(csp).toBe(`default-src 'none'; style-src 'sha256-${hash}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`);
    }
  });

  it('sends them on refusals too', async () => {
    const res = await post('/keys', '');
    expect(res.status).toBe(403);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
  });
});

describe('failed sign-ins', () => {
  it('refuses an address with 429 and Retry-After after 10 failures in a minute, before the key is looked at', async () => {
    await awayFromMinuteEnd();
    const ip = '198.51.100.7';
    for (let i = 0; i < 10; i++) {
      const res = await post('/login', 'key=svc_live_wrongwrongwrongwrongwrongwrong12', { origin: SELF }, ip);
      expect(res.status).toBe(401);
      expect(await res.text()).toMatch(/not a live API key/);
    }
    const limited = await post('/login', `key=${key}`, { origin: SELF }, ip);
    expect(limited.status).toBe(429);
    const wait = Number(limited.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await limited.text()).toContain(`Too many failed sign-ins from your address: try again in ${wait} seconds.`);
    expect(limited.headers.get('set-cookie')).toBeNull();
    // Other addresses are unaffected.
    expect((await post('/login', `key=${key}`, { origin: SELF }, '198.51.100.8')).status).toBe(303);
  });

  it('does not count successful sign-ins', async () => {
    await awayFromMinuteEnd();
    const ip = '198.51.100.9';
    for (let i = 0; i < 12; i++) await signIn(ip);
    for (let i = 0; i < 10; i++) expect((await post('/login', 'key=wrong', { origin: SELF }, ip)).status).toBe(401);
    expect((await post('/login', 'key=wrong', { origin: SELF }, ip)).status).toBe(429);
  });
});
