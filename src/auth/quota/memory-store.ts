import type { PrismaClient } from '../../db/database.ts';
import { DatabaseCounterStore } from './database-store.ts';
import {
  DAY_MS,
  MINUTE_MS,
  bucketsFor,
  utcDayStart,
  utcMinuteStart,
  type Buckets,
  type CounterResult,
  type CounterStore,
  type MonthBucket,
  type MonthCounterResult,
  type QuotaSubject,
  type WindowLimits,
} from './policy.ts';

/** How often counts are written behind to the database by default: the most a crash can forget. */
export const FLUSH_EVERY_MS = 1_000;
// Minute rows older than this are deleted from the database (as DatabaseCounterStore does), this often.
const KEEP_MINUTE_ROWS_MS = 60 * 60_000;
const PRUNE_EVERY_MS = 10 * 60_000;
// Rows per INSERT of a flush (6 parameters each, well below PostgreSQL's 65 535).
const FLUSH_BATCH = 1_000;

type Window = 'day' | 'minute';

interface SubjectCounters {
  buckets: Buckets;
  day: Counter;
  minute: Counter;
}

interface Counter {
  count: number;
  /** The count last written to the database. */
  persisted: number;
  window: Window;
  windowStart: Date;
  orgId: string | null;
  keyId: string | null;
}

export interface MemoryCounterStoreOptions {
  /** How often counts are written to the database. Default FLUSH_EVERY_MS; 0: only by flush() and close(). */
  flushEveryMs?: number;
  /** Called when a flush fails (its counts stay in memory and are written by the next one). */
  onFlushError?: (error: unknown) => void;
  /** The clock of the flush's clean-up (tests). */
  now?: () => Date;
}

/**
 * The request quota counted in this process's memory, for a deployment where one process owns the data
 * (the embedded database): a check is a synchronous check-and-increment in the event loop, so it is exact
 * under any concurrency and costs no I/O. Counts are written behind to `usage_counters` (the rows the
 * database store keeps) every `flushEveryMs` and on close(); a counter not yet in memory is read from there
 * on first use, so a restart continues the day's counts. A crash forgets at most the requests admitted since
 * the last flush: counts are only ever under-counted, never over (docs/quotas.md, "Where the counts live").
 * Monthly allowances stay atomic statements in the database (DatabaseCounterStore): they are rare, and a
 * report's unit must survive a crash.
 */
export class MemoryCounterStore implements CounterStore {
  private readonly counters = new Map<string, Counter>();
  private readonly dirty = new Set<string>();
  private readonly loading = new Map<string, Promise<void>>();
  /**
   * Per window: every counter of a window starting at or after this is in memory (absent: zero). Earlier
   * windows (before this process started, or dropped from memory after a flush) are read from the database.
   */
  private readonly completeFrom: Record<Window, number>;
  private readonly database: DatabaseCounterStore;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly onFlushError: (error: unknown) => void;
  private readonly now: () => Date;
  private flushing: Promise<void> | null = null;
  private lastPruneAt: number;
  private closed = false;

  constructor(
    private readonly prisma: PrismaClient,
    options: MemoryCounterStoreOptions = {},
  ) {
    this.database = new DatabaseCounterStore(prisma, { pruneEveryMs: 0 });
    this.onFlushError = options.onFlushError ?? (() => {});
    this.now = options.now ?? (() => new Date());
    const start = this.now();
    // The current day and minute may already have counts in the database (a restart): read on first use.
    this.completeFrom = {
      day: utcDayStart(start).getTime() + DAY_MS,
      minute: utcMinuteStart(start).getTime() + MINUTE_MS,
    };
    this.lastPruneAt = start.getTime();
    const every = options.flushEveryMs ?? FLUSH_EVERY_MS;
    if (every > 0) {
      this.timer = setInterval(() => void this.flush().catch(this.onFlushError), every);
      this.timer.unref();
    }
  }

  consume(subject: QuotaSubject, now: Date, limits: WindowLimits): Promise<CounterResult> {
    // The check and the increment run in one step of the event loop, with nothing awaited between them.
    return this.withCounter(subject, now, ({ day, minute, buckets }) => {
      if (day.count >= limits.day)
        return { allowed: false, exceeded: 'day', dayCount: Math.max(day.count, limits.day), minuteCount: minute.count };
      if (minute.count >= limits.minute) {
        return { allowed: false, exceeded: 'minute', dayCount: day.count, minuteCount: Math.max(minute.count, limits.minute) };
      }
      this.add(buckets.day, day, 1);
      this.add(buckets.minute, minute, 1);
      return { allowed: true, dayCount: day.count, minuteCount: minute.count };
    });
  }

  release(subject: QuotaSubject, at: Date): Promise<void> {
    return this.withCounter(subject, at, ({ day, minute, buckets }) => {
      if (minute.count > 0) this.add(buckets.minute, minute, -1);
      if (day.count > 0) this.add(buckets.day, day, -1);
    });
  }

  dayCounts(subjects: QuotaSubject[], now: Date): Promise<number[]> {
    return this.withCounters(subjects, now, (all) => all.map(({ day }) => day.count));
  }

  minuteCount(subject: QuotaSubject, now: Date): Promise<number> {
    return this.withCounter(subject, now, ({ minute }) => minute.count);
  }

  reserveMonthly(bucket: MonthBucket, limit: number): Promise<MonthCounterResult> {
    return this.database.reserveMonthly(bucket, limit);
  }

  releaseMonthly(bucket: MonthBucket): Promise<void> {
    return this.database.releaseMonthly(bucket);
  }

  /**
   * Writes every count changed since the last flush to the database (one statement per 1 000 counters),
   * then drops from memory the counters of past windows that are written. A flush already running is
   * waited for first, so what was counted before this call is written when it resolves.
   */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.dirty.size === 0 && this.now().getTime() - this.lastPruneAt < PRUNE_EVERY_MS) return;
    this.flushing = this.write().finally(() => {
      this.flushing = null;
    });
    await this.flushing;
  }

  /** Stops the timer and writes what is left (at shutdown; the Prisma client belongs to the caller). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.flush().catch(this.onFlushError);
  }

  /** Stops counting without writing (a crash, for tests): what was not flushed is lost. */
  abandon(): void {
    this.closed = true;
    clearInterval(this.timer);
  }

  private add(bucket: string, counter: Counter, delta: number): void {
    counter.count += delta;
    this.dirty.add(bucket);
  }

  private withCounter<T>(subject: QuotaSubject, at: Date, use: (counters: SubjectCounters) => T): Promise<T> {
    return this.withCounters([subject], at, (all) => use(all[0]!));
  }

  /**
   * Runs `use` on the day and minute counters of each subject at `at`, synchronously once all are in
   * memory: at once when they are (the hot path), else after reading the missing ones from the database.
   */
  private async withCounters<T>(subjects: QuotaSubject[], at: Date, use: (counters: SubjectCounters[]) => T): Promise<T> {
    const all = subjects.map((subject) => ({ subject, buckets: bucketsFor(subject, at) }));
    for (;;) {
      const pending = all.flatMap(({ subject, buckets }) => this.missing(subject, buckets));
      // A flush may drop a counter just read before this continues: look again until none is missing.
      if (pending.length > 0) {
        await Promise.all(pending);
        continue;
      }
      return use(all.map(({ buckets }) => ({ buckets, day: this.counters.get(buckets.day)!, minute: this.counters.get(buckets.minute)! })));
    }
  }

  /** Reads of the counters of `buckets` not in memory; counters known to be zero are put there at once. */
  private missing(subject: QuotaSubject, buckets: Buckets): Promise<void>[] {
    const pending: Promise<void>[] = [];
    for (const window of ['day', 'minute'] as const) {
      const bucket = buckets[window];
      if (this.counters.has(bucket)) continue;
      const start = window === 'day' ? buckets.dayStart : buckets.minuteStart;
      if (start.getTime() >= this.completeFrom[window]) {
        this.counters.set(bucket, this.counter(subject, window, start, 0));
        continue;
      }
      let loading = this.loading.get(bucket);
      if (!loading) {
        loading = this.read(subject, bucket, window, start).finally(() => this.loading.delete(bucket));
        this.loading.set(bucket, loading);
      }
      pending.push(loading);
    }
    return pending;
  }

  private async read(subject: QuotaSubject, bucket: string, window: Window, start: Date): Promise<void> {
    const row = await this.prisma.usageCounter.findUnique({ where: { bucket }, select: { count: true } });
    if (!this.counters.has(bucket)) {
      const count = row?.count ?? 0;
      const counter = this.counter(subject, window, start, count);
      counter.persisted = count;
      this.counters.set(bucket, counter);
    }
  }

  private counter(subject: QuotaSubject, window: Window, windowStart: Date, count: number): Counter {
    const key = subject.kind === 'key';
    return { count, persisted: 0, window, windowStart, orgId: key ? subject.orgId : null, keyId: key ? subject.keyId : null };
  }

  private async write(): Promise<void> {
    const buckets = [...this.dirty];
    this.dirty.clear();
    const written = buckets.map((bucket) => ({ bucket, counter: this.counters.get(bucket)!, count: this.counters.get(bucket)!.count }));
    try {
      for (let i = 0; i < written.length; i += FLUSH_BATCH) await this.upsert(written.slice(i, i + FLUSH_BATCH));
    } catch (error) {
      for (const { bucket } of written) this.dirty.add(bucket);
      throw error;
    }
    for (const { counter, count } of written) counter.persisted = count;
    this.dropPast();
    const now = this.now().getTime();
    if (now - this.lastPruneAt >= PRUNE_EVERY_MS) {
      this.lastPruneAt = now;
      await this.database.prune(new Date(now - KEEP_MINUTE_ROWS_MS));
    }
  }

  /**
   * One statement writing absolute counts (this process is the only writer). A counter of an organisation
   * deleted meanwhile is left out: its rows went with it.
   */
  private async upsert(rows: { bucket: string; counter: Counter; count: number }[]): Promise<void> {
    const values = rows.map(
      (_, i) => `($${6 * i + 1}, $${6 * i + 2}::uuid, $${6 * i + 3}::uuid, $${6 * i + 4}, $${6 * i + 5}::timestamptz, $${6 * i + 6}::int)`,
    );
    const params = rows.flatMap(({ bucket, counter, count }) => [
      bucket,
      counter.orgId,
      counter.keyId,
      counter.window,
      counter.windowStart.toISOString(),
      count,
    ]);
    await this.prisma.$executeRawUnsafe(
      `INSERT INTO usage_counters AS c (bucket, org_id, api_key_id, "window", window_start, count)
       SELECT v.bucket, v.org_id, v.api_key_id, v.w, v.window_start, v.count
       FROM (VALUES ${values.join(', ')}) AS v (bucket, org_id, api_key_id, w, window_start, count)
       WHERE v.org_id IS NULL OR EXISTS (SELECT 1 FROM organizations o WHERE o.id = v.org_id)
       ON CONFLICT (bucket) DO UPDATE SET count = excluded.count`,
      ...params,
    );
  }

  /** Drops written counters of windows before the previous day and minute (read back if ever needed). */
  private dropPast(): void {
    const now = this.now();
    const before: Record<Window, number> = {
      day: utcDayStart(now).getTime() - DAY_MS,
      minute: utcMinuteStart(now).getTime() - MINUTE_MS,
    };
    for (const [bucket, counter] of this.counters) {
      if (counter.windowStart.getTime() < before[counter.window] && counter.count === counter.persisted && !this.dirty.has(bucket)) {
        this.counters.delete(bucket);
      }
    }
    for (const window of ['day', 'minute'] as const) this.completeFrom[window] = Math.max(this.completeFrom[window], before[window]);
  }
}
