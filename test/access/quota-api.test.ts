import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';

const FOOTPRINT = '/v1/footprint?brand=Dell&model=Latitude&country=DE';
const nextUtcMidnight = () =>
  Math.floor(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1) / 1000);

describe(`plan quotas over REST and GraphQL on ${TEST_DATABASE_KIND}`, () => {
  let t: TestApp;
  beforeAll(async () => {
    // Spec daily limits; per-minute limits high except for pro, to test each window on its own.
    t = await createTestApp({ QUOTA_LIMITS: 'minute.free=1000,minute.business=1000,minute.enterprise=3,minute.pro=3' });
  });
  afterAll(() => t.close());

  it('gives anonymous callers 25 requests a day per client IP, then a 429 with the spec body and headers', async () => {
    const ip = '198.51.100.7';
    for (let i = 1; i <= 25; i++) {
      const res = await t.request(FOOTPRINT, { ip });
      expect(res.status, `request ${i}`).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('25');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(25 - i));
      expect(res.headers.get('x-ratelimit-plan')).toBe('free');
    }
    const refused = await t.json(FOOTPRINT, { ip });
    expect(refused.status).toBe(429);
    expect(Object.keys(refused.body).sort()).toEqual(['code', 'error', 'message', 'retry_after_seconds']);
    expect(refused.body.code).toBe('RATE_LIMITED_DAY');
    expect(Number.isInteger(refused.body.retry_after_seconds)).toBe(true);
    const reset = Number(refused.headers.get('x-ratelimit-reset'));
    expect(reset).toBe(nextUtcMidnight());
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBe(refused.body.retry_after_seconds);
    expect(Math.abs(Math.floor(Date.now() / 1000) + retryAfter - reset)).toBeLessThanOrEqual(2);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('25');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('cache-control')).toBeNull();
    // Another client is not affected.
    expect((await t.request(FOOTPRINT, { ip: '198.51.100.8' })).status).toBe(200);
  });

  it('shares one budget between REST and GraphQL and counts a batch as one request', async () => {
    const org = await t.createOrg('free');
    const { key } = await t.createKey(org.id);
    const auth = { authorization: `Bearer ${key}` };
    const batch = await t.json('/v1/footprint/batch', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ products: Array.from({ length: 50 }, () => ({ brand: 'Dell', model: 'X', country: 'DE' })) }),
    });
    expect(batch.status).toBe(200);
    expect(batch.headers.get('x-ratelimit-remaining')).toBe('24');
    const graphql = (query: string, variables = {}) =>
      t.json('/v1/graphql', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
    // An ad-hoc query is refused on the free plan (403), which costs nothing; an approved template is served.
    const adHoc = await graphql('{ organization { plan } }');
    expect(adHoc.status).toBe(403);
    expect(adHoc.headers.get('x-ratelimit-remaining')).toBe('24');
    const template = await readFile(new URL('../../templates/factor-lookup.graphql', import.meta.url), 'utf8');
    const gql = await graphql(template, { regionCode: 'DE' });
    expect(gql.status).toBe(200);
    expect(gql.headers.get('x-ratelimit-remaining')).toBe('23');
    const rest = await t.request('/v1/reference/categories', { headers: auth });
    expect(rest.headers.get('x-ratelimit-remaining')).toBe('22');
  });

  it('applies the per-minute quota on its own, resetting at the minute boundary', async () => {
    const org = await t.createOrg('pro');
    const { key } = await t.createKey(org.id);
    const auth = { authorization: `Bearer ${key}` };
    for (let i = 0; i < 3; i++) expect((await t.request(FOOTPRINT, { headers: auth })).status).toBe(200);
    const refused = await t.json(FOOTPRINT, { headers: auth });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMITED_MINUTE');
    expect(refused.body.message).toMatch(/per-minute limit of 3/);
    const reset = Number(refused.headers.get('x-ratelimit-reset'));
    expect(reset % 60).toBe(0);
    expect(reset - Date.now() / 1000).toBeLessThanOrEqual(60);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  });

  it('answers GraphQL refusals as GraphQL errors with the same status and headers', async () => {
    const org = await t.createOrg('enterprise');
    const { key } = await t.createKey(org.id);
    const send = () => t.graphql('{ organization { plan } }', {}, key);
    for (let i = 0; i < 3; i++) expect((await send()).status).toBe(200);
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED_MINUTE');
    expect(refused.body.errors[0].extensions.retry_after_seconds).toBeGreaterThan(0);
  });

  it('does not count requests with a bad key, and requires a key for GraphQL', async () => {
    const bad = await t.json(FOOTPRINT, { headers: { authorization: `Bearer svc_live_${'A'.repeat(32)}` }, ip: '203.0.113.50' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('x-ratelimit-remaining')).toBeNull();
    const anonymousGraphQL = await t.graphql('{ organization { plan } }');
    expect(anonymousGraphQL.status).toBe(401);
    expect(anonymousGraphQL.body.errors[0].extensions.code).toBe('MISSING_API_KEY');
    const first = await t.request(FOOTPRINT, { ip: '203.0.113.50' });
    expect(first.headers.get('x-ratelimit-remaining')).toBe('24');
  });
});
