import type { PrismaClient } from '../../db/database.ts';
import {
  bucketsFor,
  type CounterResult,
  type CounterStore,
  type MonthBucket,
  type MonthCounterResult,
  type QuotaSubject,
  type WindowLimits,
} from './policy.ts';

/**
 * One statement checks both windows and counts the request in both, or (see below) in neither:
 *
 * 1. `m` upserts the minute counter and increments it only while it is below the minute limit.
 *    It is skipped when the day counter is already seen at its limit, so once the day is used up
 *    further requests write nothing at all.
 * 2. `d` upserts the day counter: +1 only if `m` counted and the day is below its limit; +0 when
 *    the minute refused, which locks the day row and returns its latest count, so the daily
 *    remaining reported with a per-minute refusal is exact, not a stale snapshot.
 *
 * INSERT ... ON CONFLICT DO UPDATE locks the conflicting row and evaluates SET and WHERE against the
 * latest committed version (not the statement snapshot), so two requests can never both take the
 * last unit of a window: with a budget of 100, 200 concurrent requests admit exactly 100. Rows are
 * always locked minute first, then day, so concurrent statements cannot deadlock.
 *
 * A refused request consumes no daily budget and no minute budget. A request that races the very
 * request taking the last daily unit passes `m` (the day still looked open) and is then refused by
 * `d`: consume gives that minute unit back at once (RELEASE_MINUTE_SQL), and the minute remaining
 * reported for the request leaves it out.
 *
 * `$9` = 'off' (option asyncCommit) commits this statement's own transaction asynchronously
 * (set_config with is_local); null keeps the server's setting, the default. Asynchronous commit does
 * not wait for the WAL flush, saving roughly 100-200 µs per check on PostgreSQL; locking and
 * visibility are unchanged, so counting stays exact while the server runs, but a crash of the
 * database server can forget the last fraction of a second of increments.
 */
const CONSUME_SQL = `
WITH commit_mode AS (
  SELECT set_config('synchronous_commit', COALESCE($9::text, current_setting('synchronous_commit')), true) AS mode
), day_seen AS (
  SELECT count FROM usage_counters WHERE bucket = $1
), minute_seen AS (
  SELECT count FROM usage_counters WHERE bucket = $2
), m AS (
  INSERT INTO usage_counters AS c (bucket, org_id, api_key_id, "window", window_start, count)
  SELECT $2, $5::uuid, $6::uuid, 'minute', $4::timestamptz, 1
  WHERE $8::int >= 1 AND COALESCE((SELECT count FROM day_seen), 0) < $7::int
  ON CONFLICT (bucket) DO UPDATE SET count = c.count + 1 WHERE c.count < $8::int
  RETURNING c.count
), d AS (
  INSERT INTO usage_counters AS c (bucket, org_id, api_key_id, "window", window_start, count)
  SELECT $1, $5::uuid, $6::uuid, 'day', $3::timestamptz, (SELECT count(*) FROM m)::int
  WHERE COALESCE((SELECT count FROM day_seen), 0) < $7::int
  ON CONFLICT (bucket) DO UPDATE SET count = c.count + excluded.count
  WHERE c.count < $7::int OR excluded.count = 0
  RETURNING c.count
)
SELECT (SELECT count FROM m) AS minute_after,
       (SELECT count FROM d) AS day_after,
       (SELECT count FROM day_seen) AS day_seen,
       (SELECT count FROM minute_seen) AS minute_seen,
       (SELECT mode FROM commit_mode) AS commit_mode`;

/**
 * A monthly allowance: +1 only while below the limit ($4), in one INSERT ... ON CONFLICT DO UPDATE that
 * locks the row and re-checks the latest count (see CONSUME_SQL), so concurrent reservations never
 * overshoot. `seen` (the statement snapshot) is only read when refused.
 */
const RESERVE_MONTHLY_SQL = `
WITH r AS (
  INSERT INTO usage_counters AS c (bucket, org_id, api_key_id, "window", window_start, count)
  SELECT $1, $2::uuid, NULL, 'month', $3::timestamptz, 1
  WHERE $4::int >= 1
  ON CONFLICT (bucket) DO UPDATE SET count = c.count + 1 WHERE c.count < $4::int
  RETURNING c.count
)
SELECT (SELECT count FROM r) AS after, (SELECT count FROM usage_counters WHERE bucket = $1) AS seen`;

/**
 * Gives back one admitted request: -1 on its minute counter ($2), then on its day counter ($1), neither
 * below zero. The day's update reads `m` (an InitPlan, run before it locks a row), so rows are locked
 * minute first, then day, as CONSUME_SQL locks them: the two statements cannot deadlock.
 */
const RELEASE_SQL = `
WITH m AS (
  UPDATE usage_counters SET count = count - 1 WHERE bucket = $2 AND count > 0 RETURNING 1
)
UPDATE usage_counters SET count = count - 1 WHERE bucket = $1 AND count > 0 AND (SELECT count(*) FROM m) >= 0`;

/** The minute unit of a request `d` refused after `m` counted it (CONSUME_SQL), never below zero. */
const RELEASE_MINUTE_SQL = 'UPDATE usage_counters SET count = count - 1 WHERE bucket = $1 AND count > 0';

interface ConsumeRow {
  minute_after: number | null;
  day_after: number | null;
  day_seen: number | null;
  minute_seen: number | null;
}

export interface DatabaseCounterStoreOptions {
  /** Minute rows older than this are deleted (day rows are kept as usage history). Default 1 hour. */
  keepMinuteRowsMs?: number;
  /** How often one instance runs that clean-up, piggybacked on a check. Default 10 minutes; 0 disables it. */
  pruneEveryMs?: number;
  /**
   * Commit each check without waiting for the WAL flush (synchronous_commit off for that transaction
   * only). Default false. Saves roughly 100-200 µs per check on PostgreSQL; a crash of the database
   * server may then forget the last fraction of a second of counts. Exactness while it runs is unaffected.
   */
  asyncCommit?: boolean;
  /** Called when the background clean-up fails (the check itself is unaffected). */
  onPruneError?: (error: unknown) => void;
}

/** Counters in the usage_counters table: the default store, exact across instances sharing the database. */
export class DatabaseCounterStore implements CounterStore {
  private readonly keepMinuteRowsMs: number;
  private readonly pruneEveryMs: number;
  private readonly onPruneError: (error: unknown) => void;
  private readonly commitMode: 'off' | null;
  private lastPruneAt = Number.NEGATIVE_INFINITY;
  private pruning: Promise<void> | null = null;

  constructor(
    private readonly prisma: PrismaClient,
    options: DatabaseCounterStoreOptions = {},
  ) {
    this.keepMinuteRowsMs = options.keepMinuteRowsMs ?? 60 * 60_000;
    this.pruneEveryMs = options.pruneEveryMs ?? 10 * 60_000;
    this.onPruneError = options.onPruneError ?? (() => {});
    this.commitMode = options.asyncCommit ? 'off' : null;
  }

  async dayCounts(subjects: QuotaSubject[], now: Date): Promise<number[]> {
    const buckets = subjects.map((subject) => bucketsFor(subject, now).day);
    const rows = await this.prisma.usageCounter.findMany({ where: { bucket: { in: buckets } }, select: { bucket: true, count: true } });
    const counts = new Map(rows.map((r) => [r.bucket, r.count]));
    return buckets.map((bucket) => counts.get(bucket) ?? 0);
  }

  async minuteCount(subject: QuotaSubject, now: Date): Promise<number> {
    const row = await this.prisma.usageCounter.findUnique({ where: { bucket: bucketsFor(subject, now).minute }, select: { count: true } });
    return row?.count ?? 0;
  }

  async consume(subject: QuotaSubject, now: Date, limits: WindowLimits): Promise<CounterResult> {
    const buckets = bucketsFor(subject, now);
    const rows = await this.prisma.$queryRawUnsafe<ConsumeRow[]>(
      CONSUME_SQL,
      buckets.day,
      buckets.minute,
      buckets.dayStart.toISOString(),
      buckets.minuteStart.toISOString(),
      subject.kind === 'key' ? subject.orgId : null,
      subject.kind === 'key' ? subject.keyId : null,
      limits.day,
      limits.minute,
      this.commitMode,
    );
    this.maybePrune(now);
    const row = rows[0];
    if (!row) throw new Error('quota counter statement returned no row');
    const daySeen = Number(row.day_seen ?? 0);
    const minuteSeen = Number(row.minute_seen ?? 0);
    const minuteAfter = row.minute_after === null ? null : Number(row.minute_after);
    const dayAfter = row.day_after === null ? null : Number(row.day_after);
    if (minuteAfter !== null && dayAfter !== null) return { allowed: true, dayCount: dayAfter, minuteCount: minuteAfter };
    if (minuteAfter !== null) {
      // Counted for the minute, then found the day used up (see CONSUME_SQL): a refusal spends nothing.
      await this.prisma.$executeRawUnsafe(RELEASE_MINUTE_SQL, buckets.minute);
      return { allowed: false, exceeded: 'day', dayCount: Math.max(daySeen, limits.day), minuteCount: minuteAfter - 1 };
    }
    if (dayAfter === null || dayAfter >= limits.day) {
      // The day was used up (seen in the snapshot, or by the time its row was locked).
      return { allowed: false, exceeded: 'day', dayCount: Math.max(dayAfter ?? daySeen, limits.day), minuteCount: minuteSeen };
    }
    return { allowed: false, exceeded: 'minute', dayCount: dayAfter, minuteCount: Math.max(minuteSeen, limits.minute) };
  }

  async release(subject: QuotaSubject, at: Date): Promise<void> {
    const buckets = bucketsFor(subject, at);
    await this.prisma.$executeRawUnsafe(RELEASE_SQL, buckets.day, buckets.minute);
  }

  async reserveMonthly(bucket: MonthBucket, limit: number): Promise<MonthCounterResult> {
    const rows = await this.prisma.$queryRawUnsafe<{ after: number | null; seen: number | null }[]>(
      RESERVE_MONTHLY_SQL,
      bucket.bucket,
      bucket.orgId,
      bucket.windowStart.toISOString(),
      limit,
    );
    const after = rows[0]?.after ?? null;
    if (after !== null) return { allowed: true, count: Number(after) };
    return { allowed: false, count: Math.max(Number(rows[0]?.seen ?? 0), limit) };
  }

  async releaseMonthly(bucket: MonthBucket): Promise<void> {
    await this.prisma.$executeRawUnsafe('UPDATE usage_counters SET count = count - 1 WHERE bucket = $1 AND count > 0', bucket.bucket);
  }

  /** Deletes minute rows that ended before `before` and returns how many went. */
  async prune(before: Date): Promise<number> {
    return this.prisma.$executeRawUnsafe(
      `DELETE FROM usage_counters WHERE "window" = 'minute' AND window_start < $1::timestamptz`,
      before.toISOString(),
    );
  }

  private maybePrune(now: Date): void {
    if (this.pruneEveryMs <= 0 || this.pruning || now.getTime() - this.lastPruneAt < this.pruneEveryMs) return;
    this.lastPruneAt = now.getTime();
    this.pruning = this.prune(new Date(now.getTime() - this.keepMinuteRowsMs))
      .then(
        () => {},
        (error: unknown) => this.onPruneError(error),
      )
      .finally(() => {
        this.pruning = null;
      });
  }

  /** Resolves when no background clean-up is running. */
  async idle(): Promise<void> {
    await this.pruning;
  }

  /** Waits for a running clean-up; the Prisma client belongs to the caller and stays open. */
  async close(): Promise<void> {
    await this.idle();
  }
}
