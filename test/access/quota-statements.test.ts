import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCountingTestApp } from '../support/counting-app.ts';
import type { TestApp } from '../support/test-app.ts';
import type { StatementLog } from '../support/counting-database.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';

const redis = Boolean(process.env.TEST_REDIS_URL);
// Where the counts live decides what a keyed request costs the database: the embedded database's
// counters are in memory (written behind), PostgreSQL's are one statement per request (several instances).
const inMemory = TEST_DATABASE_KIND === 'pglite' && !redis;

describe(`database work of a keyed request, ${TEST_DATABASE_KIND}${redis ? ' + Redis' : ''}`, () => {
  let t: TestApp & { statements: StatementLog };
  beforeAll(async () => {
    t = await createCountingTestApp({ QUOTA_LIMITS: 'day.pro=1000,minute.pro=1000' });
  });
  afterAll(() => t?.close());

  it(`counts the quota and finds the key ${inMemory ? 'without a statement' : 'with one statement (the quota)'}`, async () => {
    const { key } = await t.createKey((await t.createOrg('pro')).id);
    const call = async () => {
      const res = await t.request('/v1/reference/categories', { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      return Number(res.headers.get('x-ratelimit-remaining'));
    };
    await call(); // the key is looked up once
    t.statements.reset();
    const n = 20;
    let remaining = 0;
    for (let i = 0; i < n; i++) remaining = await call();
    expect(remaining).toBe(1000 - 1 - n);
    const quota = t.statements.statements.filter((sql) => sql.includes('usage_counters'));
    console.log(
      `${n} keyed requests (${TEST_DATABASE_KIND}${redis ? ' + Redis' : ''}): ${t.statements.count} statements, ${quota.length} on usage_counters`,
    );
    expect(quota).toHaveLength(inMemory || redis ? 0 : n);
    // Besides, only the key's lookup when its cache entry (1 s) expires: nothing else per request.
    expect(t.statements.ownWork).toBe(0);
  });
});
