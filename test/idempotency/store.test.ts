import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, TEST_DATABASE_KIND } from '../support/database.ts';
import type { Database } from '../../src/db/database.ts';
import { IdempotencyStore } from '../../src/idempotency/store.ts';

// The store on its own, with a clock of the test's: reservation, answer, lifetime, lease and clean-up.

const HOUR = 3_600_000;
let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db?.close());

describe(`IdempotencyStore on ${TEST_DATABASE_KIND}`, () => {
  it('reserves once, replays the stored answer for 24 hours, then forgets the key', async () => {
    let now = new Date('2026-11-29T23:30:00Z');
    const store = new IdempotencyStore(db.prisma, { now: () => now, pruneEveryMs: 0 });
    const answer = { status: 201, headers: { 'content-type': 'application/pdf' }, body: new Uint8Array([0, 1, 2, 255]) };
    expect(await store.claim('org/live/a', 'k', 'f1')).toEqual({ kind: 'reserved' });
    expect(await store.claim('org/live/a', 'k', 'f1')).toEqual({ kind: 'in-progress' });
    expect(await store.claim('org/live/a', 'k', 'f2')).toEqual({ kind: 'reused' });
    expect(await store.claim('org/live/b', 'k', 'f1')).toEqual({ kind: 'reserved' });
    await store.complete('org/live/a', 'k', answer);
    const replay = await store.claim('org/live/a', 'k', 'f1');
    expect(replay.kind).toBe('replay');
    if (replay.kind === 'replay') {
      expect(replay.answer.status).toBe(201);
      expect(replay.answer.headers).toEqual(answer.headers);
      expect([...replay.answer.body]).toEqual([0, 1, 2, 255]);
    }
    // Past midnight, within the 24 hours: still the same answer.
    now = new Date(now.getTime() + 23 * HOUR);
    expect((await store.claim('org/live/a', 'k', 'f1')).kind).toBe('replay');
    now = new Date(now.getTime() + HOUR);
    expect(await store.claim('org/live/a', 'k', 'f2')).toEqual({ kind: 'reserved' });
  });

  it('a reservation whose request died is taken over after its lease; a released one at once; prune deletes expired keys', async () => {
    let now = new Date('2026-11-29T10:00:00Z');
    const store = new IdempotencyStore(db.prisma, { now: () => now, leaseMs: 60_000, ttlMs: HOUR, pruneEveryMs: 0 });
    expect(await store.claim('s', 'lease', 'f')).toEqual({ kind: 'reserved' });
    now = new Date(now.getTime() + 61_000);
    expect(await store.claim('s', 'lease', 'other')).toEqual({ kind: 'reused' });
    expect(await store.claim('s', 'lease', 'f')).toEqual({ kind: 'reserved' });
    await store.release('s', 'lease');
    expect(await store.claim('s', 'lease', 'other')).toEqual({ kind: 'reserved' });
    now = new Date(now.getTime() + 2 * HOUR);
    expect(await store.prune()).toBeGreaterThanOrEqual(1);
    const [row] = await db.prisma.$queryRawUnsafe<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM idempotency_records WHERE scope = 's'`,
    );
    expect(row?.count).toBe(0);
  });
});
