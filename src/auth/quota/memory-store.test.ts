import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/support/database.ts';
import { MemoryCounterStore, QuotaService, bucketsFor, type QuotaSubject } from './index.ts';

// The embedded database's store: counts in memory, written behind. What matters beyond exactness
// (counter-stores.test.ts): a restart continues the day, and a crash never counts more than was admitted.
describe('MemoryCounterStore across restarts and crashes', () => {
  let db: Awaited<ReturnType<typeof openTestDatabase>>;
  let orgId: string;
  const limits = { limits: { day: { pro: 100 }, minute: { pro: 1_000 } } };
  const keySubject = (): QuotaSubject => ({ kind: 'key', keyId: randomUUID(), orgId, plan: 'pro' });
  const stored = async (bucket: string) => (await db.prisma.usageCounter.findUnique({ where: { bucket } }))?.count ?? 0;
  const checks = async (quota: QuotaService, subject: QuotaSubject, n: number) => {
    const decisions = await Promise.all(Array.from({ length: n }, () => quota.check(subject)));
    return decisions.filter((d) => d.allowed).length;
  };

  beforeAll(async () => {
    db = await openTestDatabase();
    orgId = randomUUID();
    await db.prisma.organization.create({ data: { id: orgId, name: 'Memory quota org' } });
  });
  afterAll(async () => {
    await db?.close();
  });

  it('writes nothing while counting; a clean stop writes the counts and a new process continues the day', async () => {
    const subject = keySubject();
    const b = bucketsFor(subject, new Date());
    const first = new MemoryCounterStore(db.prisma, { flushEveryMs: 0 });
    expect(await checks(new QuotaService(first, limits), subject, 30)).toBe(30);
    expect(await stored(b.day)).toBe(0);
    await first.close();
    expect(await stored(b.day)).toBe(30);

    const second = new QuotaService(new MemoryCounterStore(db.prisma, { flushEveryMs: 0 }), limits);
    expect(await second.check(subject)).toMatchObject({ allowed: true, remaining: 69 });
    expect(await checks(second, subject, 100)).toBe(69);
    expect(await second.usageToday([{ keyId: (subject as { keyId: string }).keyId, orgId, plan: 'pro' }])).toEqual([
      { used: 100, limit: 100 },
    ]);
    await second.close();
    expect(await stored(b.day)).toBe(100);
  });

  it('writes behind on its timer', async () => {
    const subject = keySubject();
    const store = new MemoryCounterStore(db.prisma, { flushEveryMs: 50 });
    await checks(new QuotaService(store, limits), subject, 7);
    await new Promise((r) => setTimeout(r, 300));
    expect(await stored(bucketsFor(subject, new Date()).day)).toBe(7);
    await store.close();
  });

  it('after a crash, forgets at most the counts since the last flush: remaining is never less than the true remaining', async () => {
    const subject = keySubject();
    const store = new MemoryCounterStore(db.prisma, { flushEveryMs: 0 });
    const before = new QuotaService(store, limits);
    await checks(before, subject, 40);
    await store.flush();
    // Admitted after the last flush, then the process dies before the next one.
    await checks(before, subject, 25);
    store.abandon();

    const after = new QuotaService(new MemoryCounterStore(db.prisma, { flushEveryMs: 0 }), limits);
    const decision = await after.check(subject);
    const trueRemaining = 100 - 40 - 25 - 1;
    expect(decision.remaining).toBeGreaterThanOrEqual(trueRemaining);
    // What was flushed is kept: the loss is only what came after it.
    expect(decision.remaining).toBe(100 - 40 - 1);
    await after.close();
  });

  it('leaves out the counters of an organisation deleted meanwhile and writes the others', async () => {
    const goneOrg = randomUUID();
    await db.prisma.organization.create({ data: { id: goneOrg, name: 'Deleted soon' } });
    const gone: QuotaSubject = { kind: 'key', keyId: randomUUID(), orgId: goneOrg, plan: 'pro' };
    const kept = keySubject();
    const store = new MemoryCounterStore(db.prisma, { flushEveryMs: 0 });
    const quota = new QuotaService(store, limits);
    await quota.check(gone);
    await quota.check(kept);
    await db.prisma.organization.delete({ where: { id: goneOrg } });
    await store.close();
    expect(await stored(bucketsFor(gone, new Date()).day)).toBe(0);
    expect(await stored(bucketsFor(kept, new Date()).day)).toBe(1);
  });
});
