import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import type { QuotaSubject } from '../../src/auth/quota/index.ts';

const store = process.env.TEST_REDIS_URL ? 'Redis' : `the database (${TEST_DATABASE_KIND})`;
const FOOTPRINT = '/v1/footprint?brand=Dell&model=Latitude&country=DE';
const DAY = 5;
const MINUTE = 3;

// Keys are checked before any budget is spent, and no refusal (4xx) costs a request of the day or the minute.
describe(`auth before quota, refusals free, counters in ${store}`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      QUOTA_LIMITS: `day.free=${DAY},minute.free=1000,day.pro=1000,minute.pro=${MINUTE},day.business=${DAY},minute.business=1000`,
    });
  });
  afterAll(() => t.close());

  /** The subject's counts of the current day and minute, read from the store without counting. */
  async function counts(subject: QuotaSubject) {
    const now = new Date();
    const [day] = await t.app.services.quota.store.dayCounts([subject], now);
    return { day: day!, minute: await t.app.services.quota.store.minuteCount(subject, now) };
  }
  async function keyed(plan: string) {
    const org = await t.createOrg(plan, `Refusals ${plan} ${randomUUID().slice(0, 6)}`);
    const { key, id } = await t.createKey(org.id);
    return { key, auth: { authorization: `Bearer ${key}` }, subject: { kind: 'key', keyId: id, orgId: org.id, plan } as QuotaSubject };
  }

  it('answers a keyed route without a key 401 before any quota, also once the anonymous budget is spent', async () => {
    const ip = '203.0.113.41';
    const anonymous: QuotaSubject = { kind: 'anonymous', ip };
    const keyedRoutes = async () => {
      const assets = await t.json('/v1/assets', {
        ip,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"assets":[]}',
      });
      expect(assets.status).toBe(401);
      expect(assets.body.code).toBe('MISSING_API_KEY');
      const graphql = await t.json('/v1/graphql', {
        ip,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{ __typename }"}',
      });
      expect(graphql.status).toBe(401);
      expect(graphql.body.errors[0].extensions.code).toBe('MISSING_API_KEY');
      // The route's own 401: OData's invites HTTP Basic.
      const odata = await t.request('/v1/odata/Assets', { ip });
      expect(odata.status).toBe(401);
      expect(odata.headers.get('www-authenticate')).toContain('Basic');
      const report = await t.json('/v1/report', { ip, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(report.status).toBe(401);
      for (const answer of [assets, graphql, report]) expect(answer.headers.get('x-ratelimit-remaining')).toBeNull();
    };
    await keyedRoutes();
    expect(await counts(anonymous)).toEqual({ day: 0, minute: 0 });
    for (let i = 0; i < DAY; i++) expect((await t.request(FOOTPRINT, { ip })).status).toBe(200);
    expect((await t.request(FOOTPRINT, { ip })).status).toBe(429);
    await keyedRoutes();
    expect(await counts(anonymous)).toEqual({ day: DAY, minute: DAY });
  });

  it('charges nothing for a 400, 404 or 405 under /v1, keyed or anonymous', async () => {
    const ip = '203.0.113.42';
    const anonymous: QuotaSubject = { kind: 'anonymous', ip };
    const { auth, subject } = await keyed('pro');
    for (const init of [{ ip }, { headers: auth }]) {
      const bad = await t.json('/v1/footprint?brand=Dell&country=DE&ram_gb=lots', init);
      expect(bad.status).toBe(400);
      const missing = await t.json('/v1/no-such-route', init);
      expect(missing.status).toBe(404);
      const wrongMethod = await t.json('/v1/reference/categories', { ...init, method: 'DELETE' });
      expect(wrongMethod.status).toBe(405);
      // The refusal's own headers count the request given back.
      expect(bad.headers.get('x-ratelimit-remaining')).toBe(init.headers ? '1000' : String(DAY));
    }
    expect(await counts(anonymous)).toEqual({ day: 0, minute: 0 });
    expect(await counts(subject)).toEqual({ day: 0, minute: 0 });
    const served = await t.request(FOOTPRINT, { headers: auth });
    expect(served.status).toBe(200);
    expect(served.headers.get('x-ratelimit-remaining')).toBe('999');
  });

  it('charges nothing for a daily 429, and gives it the daily window headers', async () => {
    const ip = '203.0.113.43';
    const anonymous: QuotaSubject = { kind: 'anonymous', ip };
    for (let i = 0; i < DAY; i++) expect((await t.request(FOOTPRINT, { ip })).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const refused = await t.json(FOOTPRINT, { ip });
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('RATE_LIMITED_DAY');
      expect(refused.headers.get('x-ratelimit-limit')).toBe(String(DAY));
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(refused.headers.get('x-ratelimit-reset')) % 86_400).toBe(0);
    }
    expect(await counts(anonymous)).toEqual({ day: DAY, minute: DAY });
  });

  it('charges nothing for a per-minute 429, and gives it the minute window headers', async () => {
    const { auth, subject } = await keyed('pro');
    // Keep the test inside one minute window.
    if (new Date().getUTCSeconds() > 50) await new Promise((resolve) => setTimeout(resolve, (61 - new Date().getUTCSeconds()) * 1000));
    for (let i = 0; i < MINUTE; i++) expect((await t.request(FOOTPRINT, { headers: auth })).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const refused = await t.json(FOOTPRINT, { headers: auth });
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('RATE_LIMITED_MINUTE');
      expect(refused.headers.get('x-ratelimit-limit')).toBe(String(MINUTE));
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      const reset = Number(refused.headers.get('x-ratelimit-reset'));
      expect(reset % 60).toBe(0);
      expect(reset - Date.now() / 1000).toBeLessThanOrEqual(60);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    }
    expect(await counts(subject)).toEqual({ day: MINUTE, minute: MINUTE });
  }, 20_000);

  it("charges no request for a 429 of the export allowance, which carries that allowance's own headers", async () => {
    const { auth, subject } = await keyed('business');
    const submit = () =>
      t.json('/v1/org/export/jobs', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' });
    const accepted = await submit();
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('x-ratelimit-remaining')).toBe(String(DAY - 1));
    const refused = await submit();
    expect(refused.status).toBe(429);
    expect(['TOO_MANY_ACTIVE_EXPORTS', 'EXPORT_TOO_FREQUENT']).toContain(refused.body.code);
    expect(refused.headers.get('x-export-limit')).toBe('1');
    expect(refused.headers.get('x-export-remaining')).toBe('0');
    expect(Number(refused.headers.get('x-export-reset'))).toBeGreaterThan(Date.now() / 1000);
    // The request quota's headers, not the export allowance's: this request was given back.
    expect(refused.headers.get('x-ratelimit-limit')).toBe(String(DAY));
    expect(refused.headers.get('x-ratelimit-remaining')).toBe(String(DAY - 1));
    expect(Number(refused.headers.get('x-ratelimit-reset')) % 86_400).toBe(0);
    expect(await counts(subject)).toEqual({ day: 1, minute: 1 });
  });

  it('counts a footprint once when the fast path hands it on to the pipeline after counting it', async () => {
    const { auth, subject } = await keyed('pro');
    const base = await t.listen();
    const get = () => fetch(`${base}/v1/footprint?brand=Dell&model=Fast%20Path%205420&country=FR`, { headers: auth });
    expect((await get()).status).toBe(200); // the pipeline's answer: the fast path learns the query
    const footprints = t.app.services.footprint;
    const original = footprints.footprint;
    let failed = false;
    footprints.footprint = (...args: Parameters<typeof original>) => {
      if (failed) return original.apply(footprints, args);
      failed = true;
      throw new Error('a fault of the fast path');
    };
    try {
      const again = await get();
      expect(failed).toBe(true);
      expect(again.status).toBe(200);
      expect(again.headers.get('x-ratelimit-remaining')).toBe('998');
    } finally {
      footprints.footprint = original;
    }
    expect(await counts(subject)).toEqual({ day: 2, minute: 2 });
  });

  it('admits exactly the budget under concurrency while refusals run beside it, and charges only what was served', async () => {
    const { auth, subject } = await keyed('business');
    const valid = () => t.request('/v1/reference/categories', { headers: auth }).then((r) => r.status);
    const invalid = () => t.request('/v1/footprint?brand=Dell&country=DE&ram_gb=lots', { headers: auth }).then((r) => r.status);
    const statuses = await Promise.all(Array.from({ length: 4 * DAY }, (_, i) => (i % 2 === 0 ? valid() : invalid())));
    const admitted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s, i) => i % 2 === 1 && s !== 400 && s !== 429)).toEqual([]);
    // A refusal holds its unit until it is given back, so a valid request racing it may be refused; never more are admitted.
    expect(admitted).toBeLessThanOrEqual(DAY);
    expect((await counts(subject)).day).toBe(admitted);
    // What is left is exactly the rest of the budget.
    for (let i = admitted; i < DAY; i++) expect(await valid()).toBe(200);
    expect(await valid()).toBe(429);
    expect((await counts(subject)).day).toBe(DAY);
  });
});
