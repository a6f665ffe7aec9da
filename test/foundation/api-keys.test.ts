import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app.ts';
import { KEY_CACHE_TTL_MS } from '../../src/auth/caller.ts';
import { hashApiKey } from '../../src/auth/api-keys.ts';
import { sandboxOrgId } from '../../src/sandbox/sandbox.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const ORG_QUERY = '{ organization { id name plan asset_count total_kg_co2e } }';

describe('organisations and API keys', () => {
  it('issues live and test keys of the documented shape, shown once', async () => {
    const org = await t.createOrg('business', 'Acme Refurb');
    expect(org).toMatchObject({ name: 'Acme Refurb', plan: 'business' });
    const live = await t.createKey(org.id);
    const test = await t.createKey(org.id, { environment: 'test' });
    expect(live.key).toMatch(/^svc_live_[A-Za-z0-9]{32}$/);
    expect(test.key).toMatch(/^svc_test_[A-Za-z0-9]{32}$/);
    expect(live.prefix).toBe(live.key.slice(0, 13));
    expect(live.key).not.toBe((await t.createKey(org.id)).key);
    const detail = await t.json(`/admin/v1/orgs/${org.id}`, { headers: { authorization: 'Bearer test-admin-token-0123456789abcdef' } });
    expect(JSON.stringify(detail.body)).not.toContain(live.key);
  });

  it('lets a valid key read its organisation over GraphQL', async () => {
    const org = await t.createOrg('business', 'Reader');
    const { key } = await t.createKey(org.id);
    const res = await t.graphql(ORG_QUERY, {}, key);
    expect(res.status).toBe(200);
    expect(res.body.data.organization).toEqual({ id: org.id, name: 'Reader', plan: 'business', asset_count: 0, total_kg_co2e: 0 });
  });

  it('rejects unknown, malformed and revoked keys with 401 ApiErrors', async () => {
    const org = await t.createOrg('business');
    const { id, key } = await t.createKey(org.id);
    expect((await t.graphql(ORG_QUERY, {}, key)).status).toBe(200);

    const unknown = await t.json('/v1/reference/countries', { headers: { authorization: `Bearer svc_live_${'x'.repeat(32)}` } });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ error: 'Unauthorized', code: 'INVALID_API_KEY', details: 'API key is not known' });
    expect(unknown.headers.get('www-authenticate')).toMatch(/^Bearer/);

    const malformed = await t.json('/v1/reference/countries', { headers: { authorization: 'Bearer abc' } });
    expect(malformed.status).toBe(401);
    expect(malformed.body.code).toBe('INVALID_API_KEY');

    const scheme = await t.json('/v1/reference/countries', { headers: { authorization: `Basic ${key}` } });
    expect(scheme.status).toBe(401);
    expect(scheme.body.code).toBe('INVALID_AUTHORIZATION');

    const revoked = await t.json(`/admin/v1/keys/${id}`, {
      method: 'DELETE',
      headers: { authorization: 'Bearer test-admin-token-0123456789abcdef' },
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toMatch(/^\d{4}-/);

    const rest = await t.json('/v1/reference/countries', { headers: { authorization: `Bearer ${key}` } });
    expect(rest.status).toBe(401);
    expect(rest.body).toEqual({ error: 'Unauthorized', code: 'API_KEY_REVOKED', details: 'API key has been revoked' });

    const gql = await t.graphql(ORG_QUERY, {}, key);
    expect(gql.status).toBe(401);
    expect(gql.body.errors[0].extensions.code).toBe('API_KEY_REVOKED');
  });

  it('takes a revocation through another instance into account within the key cache bound (1 s)', async () => {
    const other = await createTestApp({}, { database: t.app.services.db });
    try {
      const org = await t.createOrg('business');
      const { id, key } = await t.createKey(org.id);
      const call = (app: TestApp) => app.json('/v1/reference/countries', { headers: { authorization: `Bearer ${key}` } });
      // Created through one instance, the key works on the other at once; now both have it cached.
      expect((await call(other)).status).toBe(200);
      expect((await call(t)).status).toBe(200);
      const revoked = await t.json(`/admin/v1/keys/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
      expect(revoked.status).toBe(200);
      const revokedAt = Date.now();
      expect((await call(t)).body.code).toBe('API_KEY_REVOKED');
      let status = 200;
      while (status === 200 && Date.now() - revokedAt < 5 * KEY_CACHE_TTL_MS) {
        status = (await call(other)).status;
        if (status === 200) await new Promise((r) => setTimeout(r, 25));
      }
      const elapsed = Date.now() - revokedAt;
      console.log(`revocation seen by the other instance after ${elapsed} ms (bound ${KEY_CACHE_TTL_MS} ms)`);
      expect(status).toBe(401);
      // The bound, plus the time of one request on a busy machine.
      expect(elapsed).toBeLessThanOrEqual(KEY_CACHE_TTL_MS + 250);
    } finally {
      await other.close();
    }
  });

  it('records when each key was last used, at most once a minute, and shows it to the operator', async () => {
    const org = await t.createOrg('business', 'Last Used');
    const used = await t.createKey(org.id);
    const idle = await t.createKey(org.id);
    const usage = t.app.services.keys.usage!;
    const lastUsed = async (id: string) => (await t.app.services.db.prisma.apiKey.findUniqueOrThrow({ where: { id } })).last_used_at;
    expect(await lastUsed(used.id)).toBeNull();

    const before = Date.now();
    expect((await t.graphql(ORG_QUERY, {}, used.key)).status).toBe(200);
    // Noted by the request, written by the flush (a timer in the server), not by the request itself.
    expect(await lastUsed(used.id)).toBeNull();
    await usage.flush();
    const first = await lastUsed(used.id);
    expect(first!.getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(first!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(await lastUsed(idle.id)).toBeNull();

    // Within the minute another request writes nothing; a refused key is never noted.
    expect((await t.graphql(ORG_QUERY, {}, used.key)).status).toBe(200);
    await t.app.services.db.prisma.apiKey.update({ where: { id: idle.id }, data: { revoked_at: new Date() } });
    t.app.services.keys.forget(idle.id);
    expect((await t.graphql(ORG_QUERY, {}, idle.key)).status).toBe(401);
    await usage.flush();
    expect(await lastUsed(used.id)).toEqual(first);
    expect(await lastUsed(idle.id)).toBeNull();

    const detail = await t.json(`/admin/v1/orgs/${org.id}`, { headers: { authorization: 'Bearer test-admin-token-0123456789abcdef' } });
    const keys = detail.body.api_keys as { id: string; last_used_at: string | null }[];
    expect(keys.find((k) => k.id === used.id)!.last_used_at).toBe(first!.toISOString());
    expect(keys.find((k) => k.id === idle.id)!.last_used_at).toBeNull();
  });

  it('requires a key for the organisation query', async () => {
    const res = await t.graphql(ORG_QUERY);
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('MISSING_API_KEY');
  });

  it('refuses organisation data to a key without organisation context', async () => {
    const org = await t.createOrg('enterprise');
    const { key } = await t.createKey(org.id, { org_context: false });
    const res = await t.graphql(ORG_QUERY, {}, key);
    expect(res.status).toBe(403);
    expect(res.body.errors[0].extensions.code).toBe('NO_ORGANIZATION_CONTEXT');
  });

  it('stores keys only as SHA-256 hashes, nowhere in clear text', async () => {
    const org = await t.createOrg('pro');
    const { key } = await t.createKey(org.id);
    await t.graphql(ORG_QUERY, {}, key);
    const stored = await t.app.services.db.prisma.apiKey.findFirst({ where: { org_id: org.id } });
    expect(stored?.key).toBe(hashApiKey(key));
    // Every row of every table, as text: the key must not appear anywhere.
    const tables = await t.app.services.db.prisma.$queryRaw<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`;
    expect(tables.length).toBeGreaterThan(20);
    for (const { table_name } of tables) {
      const hits = await t.app.services.db.prisma.$queryRawUnsafe<{ n: bigint }[]>(
        `SELECT count(*) AS n FROM "${table_name}" t WHERE t::text LIKE $1`,
        `%${key.slice(9)}%`,
      );
      expect(Number(hits[0]!.n), table_name).toBe(0);
    }
  });

  it('guards the admin API with the admin token', async () => {
    const none = await t.json('/admin/v1/orgs', { method: 'POST', body: '{}' });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('INVALID_ADMIN_TOKEN');
    const wrong = await t.json('/admin/v1/orgs', { method: 'POST', body: '{}', headers: { authorization: 'Bearer wrong' } });
    expect(wrong.status).toBe(401);
  });
});

describe('svc_test_ keys', () => {
  it('read their organisation’s sandbox in GraphQL, never the real one', async () => {
    const org = await t.createOrg('business', 'Real Org');
    const live = await t.createKey(org.id);
    const test = await t.createKey(org.id, { environment: 'test' });
    const real = await t.graphql('{ organization { id name } }', {}, live.key);
    expect(real.body.data.organization).toEqual({ id: org.id, name: 'Real Org' });
    const sandbox = await t.graphql('{ organization { id name } }', {}, test.key);
    expect(sandbox.body.data.organization).toEqual({ id: sandboxOrgId(org.id), name: 'Sandbox of Real Org' });
  });
});

describe('sandbox data', () => {
  it('is a generated demo inventory, the same on every start', async () => {
    const org = await t.createOrg('free');
    const test = await t.createKey(org.id, { environment: 'test' });
    const query = '{ organization { asset_count total_kg_co2e } }';
    // Test keys get sandbox data also through the approved templates of their plan; business to send ad-hoc.
    const business = await t.createKey((await t.createOrg('business')).id, { environment: 'test' });
    const res = await t.graphql(query, {}, business.key);
    expect(res.body.data.organization.asset_count).toBe(120);
    expect(res.body.data.organization.total_kg_co2e).toBeGreaterThan(0);
    const other = await createTestApp();
    try {
      const again = await other.graphql(
        query,
        {},
        (await other.createKey((await other.createOrg('business')).id, { environment: 'test' })).key,
      );
      expect(again.body.data.organization).toEqual(res.body.data.organization);
    } finally {
      await other.close();
    }
    expect(test.key).toMatch(/^svc_test_/);
  });
});
