import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, TEST_DATABASE_KIND } from '../../../test/support/database.ts';
import { openDatabase, type Database } from '../../db/database.ts';
import {
  DatabaseCounterStore,
  MemoryCounterStore,
  QuotaService,
  bucketsFor,
  type CounterStore,
  type Plan,
  type QuotaDecision,
  type QuotaServiceOptions,
  type QuotaSubject,
} from './index.ts';
import { RedisCounterStore } from './redis-store.ts';

/** What each store's suite needs: services over fresh stores, and a way to read a counter back. */
interface Harness {
  label: string;
  /** A service over a new store; `instance` 1 uses a second connection (a second API instance) where possible. */
  service(options?: QuotaServiceOptions, instance?: 0 | 1): QuotaService;
  /** The stored count of a bucket (0 when absent). */
  stored(bucket: string, subject: string): Promise<number>;
  orgId: string;
  teardown(): Promise<void>;
}

const at = (iso: string) => new Date(iso);
const admitted = (decisions: QuotaDecision[]) => decisions.filter((d) => d.allowed).length;
const concurrently = <T>(n: number, fn: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => fn(i)));

/** `shared`: the store is the authority of several instances (not the memory store of a single process). */
function storeSuite(name: string, open: () => Promise<Harness>, { shared = true } = {}) {
  describe(name, () => {
    let h: Harness;
    const services: QuotaService[] = [];
    const service = (options?: QuotaServiceOptions, instance: 0 | 1 = 0) => {
      const s = h.service(options, instance);
      services.push(s);
      return s;
    };
    const keySubject = (plan: Plan = 'pro'): QuotaSubject => ({ kind: 'key', keyId: randomUUID(), orgId: h.orgId, plan });
    const proLimits = (day: number, minute: number): QuotaServiceOptions => ({ limits: { day: { pro: day }, minute: { pro: minute } } });

    beforeAll(async () => {
      h = await open();
    });
    afterAll(async () => {
      for (const s of services) await s.close();
      await h?.teardown();
    });

    it('admits exactly 100 of 200 concurrent checks against a budget of 100', async () => {
      const quota = service(proLimits(100, 1_000));
      const subject = keySubject();
      const now = at('2026-11-22T10:15:10Z');
      const decisions = await concurrently(200, () => quota.check(subject, now));
      console.log(`[quota] ${h.label}: 200 concurrent checks, budget 100 -> admitted ${admitted(decisions)}`);
      expect(admitted(decisions)).toBe(100);
      // Each admitted request saw a distinct remaining value: 99, 98, ..., 0.
      const remaining = decisions
        .filter((d) => d.allowed)
        .map((d) => d.remaining)
        .sort((a, b) => a - b);
      expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i));
      for (const d of decisions.filter((x) => !x.allowed)) {
        expect(d).toMatchObject({ exceeded: 'day', remaining: 0, limit: 100, plan: 'pro' });
        expect(d.retryAfterSeconds).toBe(13 * 3600 + 44 * 60 + 50);
      }
      // Refused requests consumed no daily budget: the day counter stops at exactly 100.
      const b = bucketsFor(subject, now);
      expect(await h.stored(b.day, b.subject)).toBe(100);
      // Nor any minute budget, also for requests that raced the last daily unit (see DatabaseCounterStore).
      const minuteStored = await h.stored(b.minute, b.subject);
      console.log(`[quota] ${h.label}: stored counters after the burst: day ${await h.stored(b.day, b.subject)}, minute ${minuteStored}`);
      expect(minuteStored).toBe(100);
      const after = await quota.check(subject, now);
      expect(after).toMatchObject({ allowed: false, exceeded: 'day', remaining: 0 });
      expect(after.minute.remaining).toBe(1_000 - minuteStored);
      expect(await h.stored(b.day, b.subject)).toBe(100);
      expect(await h.stored(b.minute, b.subject)).toBe(minuteStored);
    });

    it.skipIf(!shared)('two instances (two connections) share one budget: 2 x 100 concurrent checks, budget 100', async () => {
      const a = service(proLimits(100, 1_000), 0);
      const b = service(proLimits(100, 1_000), 1);
      const subject = keySubject();
      const now = at('2026-11-22T10:15:10Z');
      // Connect both first, so neither instance gets a head start while the other is still connecting.
      await Promise.all([a.check(keySubject(), now), b.check(keySubject(), now)]);
      const decisions = await concurrently(200, (i) => (i % 2 === 0 ? a : b).check(subject, now));
      const byA = admitted(decisions.filter((_, i) => i % 2 === 0));
      const byB = admitted(decisions.filter((_, i) => i % 2 === 1));
      console.log(`[quota] ${h.label}: two instances, 200 concurrent checks, budget 100 -> admitted ${byA + byB} (${byA} + ${byB})`);
      expect(byA + byB).toBe(100);
      // Each instance sees what the other counted: 70 through one, then 70 through the other.
      const other = keySubject();
      const first = admitted(await concurrently(70, () => a.check(other, now)));
      const second = admitted(await concurrently(70, () => b.check(other, now)));
      console.log(`[quota] ${h.label}: two instances, 70 then 70 checks, budget 100 -> admitted ${first} + ${second}`);
      expect([first, second]).toEqual([70, 30]);
    });

    it('is exact when the minute window is the tighter one under concurrency', async () => {
      const quota = service(proLimits(50, 30));
      const subject = keySubject();
      const now = at('2026-11-22T10:15:10Z');
      const decisions = await concurrently(100, () => quota.check(subject, now));
      console.log(`[quota] ${h.label}: 100 concurrent checks, minute budget 30 -> admitted ${admitted(decisions)}`);
      expect(admitted(decisions)).toBe(30);
      for (const d of decisions.filter((x) => !x.allowed)) expect(d).toMatchObject({ exceeded: 'minute', remaining: 20 });
      const b = bucketsFor(subject, now);
      expect(await h.stored(b.day, b.subject)).toBe(30);
      expect(await h.stored(b.minute, b.subject)).toBe(30);
    });

    it('gives back the day and minute units of an admitted request, exactly under concurrency, never below zero', async () => {
      const quota = service(proLimits(50, 1_000));
      const subject = keySubject();
      const now = at('2026-11-22T10:15:10Z');
      const b = bucketsFor(subject, now);
      // 100 concurrent requests against a budget of 50, each admitted one given back at once (a refused answer):
      // counting and giving back interleave, and the counters end where they started.
      const decisions = await concurrently(100, async () => {
        const decision = await quota.check(subject, now);
        if (decision.allowed) await quota.release(subject, now);
        return decision;
      });
      expect(admitted(decisions)).toBeGreaterThan(0);
      expect(await h.stored(b.day, b.subject)).toBe(0);
      expect(await h.stored(b.minute, b.subject)).toBe(0);
      // The budget is whole again: exactly 50 of 100 concurrent checks are admitted.
      expect(admitted(await concurrently(100, () => quota.check(subject, now)))).toBe(50);
      // Given back to the day and minute it was counted in, not the current ones; and never below zero.
      await quota.release(subject, now);
      expect(await h.stored(b.day, b.subject)).toBe(49);
      const other = keySubject();
      await quota.release(other, now);
      const o = bucketsFor(other, now);
      expect(await h.stored(o.day, o.subject)).toBe(0);
      expect(await h.stored(o.minute, o.subject)).toBe(0);
    });

    it('starts a new budget on the new UTC day: yesterday does not count today', async () => {
      const quota = service(proLimits(3, 100));
      const subject = keySubject();
      const lateYesterday = at('2026-11-22T23:59:50Z');
      const first = [];
      for (let i = 0; i < 3; i++) first.push(await quota.check(subject, lateYesterday));
      expect(first.map((d) => d.remaining)).toEqual([2, 1, 0]);
      const refused = await quota.check(subject, at('2026-11-22T23:59:55.5Z'));
      expect(refused).toMatchObject({
        allowed: false,
        exceeded: 'day',
        remaining: 0,
        retryAfterSeconds: 5,
        reset: Date.parse('2026-11-23T00:00:00Z') / 1000,
      });

      const today = await quota.check(subject, at('2026-11-23T00:00:05Z'));
      expect(today).toMatchObject({ allowed: true, remaining: 2, reset: Date.parse('2026-11-24T00:00:00Z') / 1000 });
      const yesterday = bucketsFor(subject, lateYesterday);
      expect(await h.stored(yesterday.day, yesterday.subject)).toBe(3);
    });

    it('refuses on the minute window independently of the daily window', async () => {
      const quota = service(proLimits(100, 5));
      const subject = keySubject();
      const minute1 = at('2026-11-22T10:15:10Z');
      const burst = await concurrently(8, () => quota.check(subject, minute1));
      expect(admitted(burst)).toBe(5);
      for (const d of burst.filter((x) => !x.allowed)) {
        expect(d).toMatchObject({ exceeded: 'minute', retryAfterSeconds: 50, remaining: 95 });
        expect(d.minute).toEqual({ limit: 5, remaining: 0, reset: Date.parse('2026-11-22T10:16:00Z') / 1000 });
      }
      // The three refusals used none of the daily budget; the next minute admits again.
      const next = await quota.check(subject, at('2026-11-22T10:16:00Z'));
      expect(next).toMatchObject({ allowed: true, remaining: 94, minute: { limit: 5, remaining: 4 } });
    });

    it('reports the daily refusal when both windows are used up', async () => {
      const quota = service(proLimits(4, 4));
      const subject = keySubject();
      const now = at('2026-11-22T10:15:10Z');
      await concurrently(4, () => quota.check(subject, now));
      expect(await quota.check(subject, now)).toMatchObject({ allowed: false, exceeded: 'day' });
    });

    it('counts anonymous callers per client IP at the free plan, apart from keys', async () => {
      const quota = service();
      const now = at('2026-11-22T10:15:10Z');
      const ip = '198.51.100.23';
      const mine = await concurrently(12, () => quota.check({ kind: 'anonymous', ip }, now));
      expect(admitted(mine)).toBe(10); // free: 10 a minute
      expect(mine.find((d) => d.allowed)).toMatchObject({ plan: 'free', limit: 25 });
      // The same address written as IPv4-mapped IPv6 shares the budget; another address does not.
      expect(await quota.check({ kind: 'anonymous', ip: `::ffff:${ip}` }, now)).toMatchObject({ allowed: false, exceeded: 'minute' });
      expect(await quota.check({ kind: 'anonymous', ip: '192.0.2.99' }, now)).toMatchObject({ allowed: true, remaining: 24 });
      expect(await quota.check(keySubject('free'), now)).toMatchObject({ allowed: true, remaining: 24 });
      // Free daily budget of 25 over several minutes.
      const later: QuotaDecision[] = [];
      for (let m = 16; m < 20; m++)
        later.push(...(await concurrently(10, () => quota.check({ kind: 'anonymous', ip }, at(`2026-11-22T10:${m}:00Z`)))));
      expect(admitted(later)).toBe(15);
      expect(later.filter((d) => !d.allowed).every((d) => d.exceeded === 'day')).toBe(true);
    });

    it('counts failed sign-ins per IP, scope and minute, apart from the request quota, and refuses after 10', async () => {
      const quota = service();
      const now = at('2026-11-22T10:15:10Z');
      const ip = '198.51.100.40';
      await concurrently(14, () => quota.countFailedSignIn('admin', ip, now));
      expect(await quota.signInWait('admin', ip, now)).toBe(50); // until 10:16:00
      expect(await quota.signInWait('console', ip, now)).toBeUndefined();
      expect(await quota.signInWait('admin', ip, at('2026-11-22T10:16:00Z'))).toBeUndefined();
      // Asking counts nothing, and the address's anonymous request budget is untouched.
      await concurrently(5, () => quota.signInWait('console', ip, now));
      expect(await quota.store.minuteCount({ kind: 'failed-sign-in', scope: 'console', ip }, now)).toBe(0);
      expect(await quota.check({ kind: 'anonymous', ip }, now)).toMatchObject({ allowed: true, remaining: 24 });
    });
  });
}

// ---------------------------------------------------------------- database (PGlite or PostgreSQL)

storeSuite(`DatabaseCounterStore on ${TEST_DATABASE_KIND === 'postgres' ? 'PostgreSQL' : 'PGlite'}`, async () => {
  const db = await openTestDatabase();
  // A second API instance: its own connection pool to the same database (PGlite has only the one).
  const second: Database | null = db.url ? await openDatabase({ kind: 'postgres', url: db.url, poolSize: 8 }) : null;
  const orgId = randomUUID();
  await db.prisma.organization.create({ data: { id: orgId, name: 'Quota test org' } });
  const stores: CounterStore[] = [];
  return {
    label: `database (${db.kind})`,
    orgId,
    service(options, instance = 0) {
      const store = new DatabaseCounterStore(instance === 1 && second ? second.prisma : db.prisma);
      stores.push(store);
      return new QuotaService(store, options);
    },
    async stored(bucket) {
      const row = await db.prisma.usageCounter.findUnique({ where: { bucket } });
      return row?.count ?? 0;
    },
    async teardown() {
      await second?.close();
      await db.close();
    },
  };
});

// ---------------------------------------------------------------- memory, written behind (the embedded database)

storeSuite(
  `MemoryCounterStore written behind to ${TEST_DATABASE_KIND === 'postgres' ? 'PostgreSQL' : 'PGlite'}`,
  async () => {
    const db = await openTestDatabase();
    const orgId = randomUUID();
    await db.prisma.organization.create({ data: { id: orgId, name: 'Quota test org' } });
    const stores: MemoryCounterStore[] = [];
    return {
      label: 'memory (written behind)',
      orgId,
      service(options) {
        const store = new MemoryCounterStore(db.prisma);
        stores.push(store);
        return new QuotaService(store, options);
      },
      // What is stored is what a flush wrote: each count checked here went through the database.
      async stored(bucket) {
        for (const store of stores) await store.flush();
        const row = await db.prisma.usageCounter.findUnique({ where: { bucket } });
        return row?.count ?? 0;
      },
      async teardown() {
        await db.close();
      },
    };
  },
  { shared: false },
);

describe('DatabaseCounterStore housekeeping', () => {
  let db: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeAll(async () => {
    db = await openTestDatabase();
  });
  afterAll(async () => {
    await db?.close();
  });

  it('stores the window, start, key and organisation of each counter', async () => {
    const orgId = randomUUID();
    const keyId = randomUUID();
    await db.prisma.organization.create({ data: { id: orgId, name: 'Rows org' } });
    const quota = new QuotaService(new DatabaseCounterStore(db.prisma, { pruneEveryMs: 0 }));
    await quota.check({ kind: 'key', keyId, orgId, plan: 'business' }, at('2026-11-22T10:15:10Z'));
    await quota.check({ kind: 'anonymous', ip: '203.0.113.9' }, at('2026-11-22T10:15:10Z'));
    const rows = await db.prisma.usageCounter.findMany({ orderBy: { bucket: 'asc' } });
    expect(rows).toEqual([
      {
        bucket: 'day:2026-11-22:ip:203.0.113.9',
        org_id: null,
        api_key_id: null,
        window: 'day',
        window_start: at('2026-11-22T00:00:00Z'),
        count: 1,
      },
      {
        bucket: `day:2026-11-22:key:${keyId}`,
        org_id: orgId,
        api_key_id: keyId,
        window: 'day',
        window_start: at('2026-11-22T00:00:00Z'),
        count: 1,
      },
      {
        bucket: 'minute:2026-11-22T10:15:ip:203.0.113.9',
        org_id: null,
        api_key_id: null,
        window: 'minute',
        window_start: at('2026-11-22T10:15:00Z'),
        count: 1,
      },
      {
        bucket: `minute:2026-11-22T10:15:key:${keyId}`,
        org_id: orgId,
        api_key_id: keyId,
        window: 'minute',
        window_start: at('2026-11-22T10:15:00Z'),
        count: 1,
      },
    ]);
    await quota.close();
  });

  it('with asyncCommit, stays exact and leaves synchronous_commit alone outside its own transactions', async () => {
    const store = new DatabaseCounterStore(db.prisma, { asyncCommit: true, pruneEveryMs: 0 });
    const quota = new QuotaService(store, { limits: { day: { free: 20 } } });
    const now = at('2026-11-22T10:15:10Z');
    const decisions = await concurrently(50, (i) =>
      quota.check({ kind: 'anonymous', ip: '203.0.113.60' }, new Date(now.getTime() + (i % 5) * 60_000)),
    );
    expect(admitted(decisions)).toBe(20);
    const [setting] = await db.prisma.$queryRawUnsafe<{ synchronous_commit: string }[]>('SHOW synchronous_commit');
    expect(setting?.synchronous_commit).toBe('on');
  });

  it('deletes minute rows older than an hour in the background and keeps day rows', async () => {
    const store = new DatabaseCounterStore(db.prisma, { pruneEveryMs: 10 * 60_000, keepMinuteRowsMs: 60 * 60_000 });
    const quota = new QuotaService(store);
    const subject = { kind: 'anonymous', ip: '203.0.113.50' } as const;
    for (const time of ['08:00', '09:00', '09:45']) {
      await quota.check(subject, at(`2026-11-23T${time}:00Z`)); // each starts a clean-up of rows before time - 1 h
      await store.idle();
    }
    const rows = await db.prisma.usageCounter.findMany({ where: { bucket: { endsWith: 'ip:203.0.113.50' } }, orderBy: { bucket: 'asc' } });
    expect(rows.map((r) => `${r.bucket}=${r.count}`)).toEqual([
      'day:2026-11-23:ip:203.0.113.50=3',
      'minute:2026-11-23T09:00:ip:203.0.113.50=1',
      'minute:2026-11-23T09:45:ip:203.0.113.50=1',
    ]);
  });
});

// ---------------------------------------------------------------- Redis

const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) {
  storeSuite('RedisCounterStore', async () => {
    const prefix = `lcf-test:quota:${randomUUID()}:`;
    const stores: RedisCounterStore[] = [];
    const probe = new RedisCounterStore(redisUrl, { keyPrefix: prefix });
    return {
      label: 'redis',
      orgId: randomUUID(),
      // Every service gets its own store, i.e. its own Redis connection: instance 0 and 1 are two clients.
      service(options) {
        const store = new RedisCounterStore(redisUrl, { keyPrefix: prefix });
        stores.push(store);
        return new QuotaService(store, options);
      },
      async stored(bucket, subject) {
        return Number((await probe.redis.get(probe.key(bucket, subject))) ?? 0);
      },
      async teardown() {
        let cursor = '0';
        let deleted = 0;
        do {
          const [next, keys] = await probe.redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
          if (keys.length > 0) deleted += await probe.redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
        console.log(`[quota] redis: removed ${deleted} test keys under ${prefix}`);
        await probe.close();
      },
    };
  });

  describe('RedisCounterStore keys', () => {
    it('expire after their window (plus grace), so old windows vanish by themselves', async () => {
      const prefix = `lcf-test:quota:${randomUUID()}:`;
      const store = new RedisCounterStore(redisUrl, { keyPrefix: prefix });
      try {
        const subject = { kind: 'anonymous', ip: '203.0.113.77' } as const;
        const now = at('2026-11-22T23:59:10Z');
        await new QuotaService(store).check(subject, now);
        const b = bucketsFor(subject, now);
        expect(store.key(b.day, b.subject)).toBe(`${prefix}day:2026-11-22:{ip:203.0.113.77}`);
        const dayTtl = await store.redis.ttl(store.key(b.day, b.subject));
        const minuteTtl = await store.redis.ttl(store.key(b.minute, b.subject));
        expect(dayTtl).toBeGreaterThan(50);
        expect(dayTtl).toBeLessThanOrEqual(50 + 300);
        expect(minuteTtl).toBeGreaterThan(0);
        expect(minuteTtl).toBeLessThanOrEqual(50 + 300);
        await store.redis.del(store.key(b.day, b.subject), store.key(b.minute, b.subject));
      } finally {
        await store.close();
      }
    });
  });
} else {
  describe.skip('RedisCounterStore (skipped: set TEST_REDIS_URL, e.g. redis://127.0.0.1:6379, to run)', () => {
    it('needs a Redis server', () => {});
  });
  console.warn('[quota] RedisCounterStore tests skipped: TEST_REDIS_URL is not set');
}
