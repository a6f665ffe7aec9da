import type { PrismaClient } from '../../db/database.ts';
import { bucketsFor, type CounterResult, type CounterStore, type QuotaSubject, type WindowLimits } from './policy.ts';

/**
 * One statement checks both windows and increments both, or neither:
 *
 * 1. `m` upserts the minute counter and increments it only while it is below the minute limit.
 *    It is skipped when the day counter is already seen at its limit, so a request refused for the
 *    day does not touch the minute counter either.
 * 2. `d` upserts the day counter only if `m` counted, and increments it only while it is below the
 *    day limit.
 *
 * INSERT ... ON CONFLICT DO UPDATE locks the conflicting row and evaluates its WHERE against the
 * latest committed version (not the statement snapshot), so two requests can never both take the
 * last unit of a window: with a budget of 100, 200 concurrent requests admit exactly 100. Rows are
 * always locked minute first, then day, so concurrent statements cannot deadlock.
 *
 * A request refused for the minute consumes nothing. A request refused for the day consumes no daily
 * budget; only when it races the very request that used the last daily unit can it still bump the
 * minute counter. That cannot change any later decision: the day stays used up until UTC midnight and
 * a minute window never spans midnight. The minute remaining reported for it leaves it out.
 */
const CONSUME_SQL = `
WITH day_seen AS (
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
  SELECT $1, $5::uuid, $6::uuid, 'day', $3::timestamptz, 1
  WHERE EXISTS (SELECT 1 FROM m)
  ON CONFLICT (bucket) DO UPDATE SET count = c.count + 1 WHERE c.count < $7::int
  RETURNING c.count
)
SELECT (SELECT count FROM m) AS minute_after,
       (SELECT count FROM d) AS day_after,
       (SELECT count FROM day_seen) AS day_seen,
       (SELECT count FROM minute_seen) AS minute_seen`;

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
  /** Called when the background clean-up fails (the check itself is unaffected). */
  onPruneError?: (error: unknown) => void;
}

/** Counters in the usage_counters table: the default store, exact across instances sharing the database. */
export class DatabaseCounterStore implements CounterStore {
  private readonly keepMinuteRowsMs: number;
  private readonly pruneEveryMs: number;
  private readonly onPruneError: (error: unknown) => void;
  private lastPruneAt = Number.NEGATIVE_INFINITY;
  private pruning: Promise<void> | null = null;

  constructor(
    private readonly prisma: PrismaClient,
    options: DatabaseCounterStoreOptions = {},
  ) {
    this.keepMinuteRowsMs = options.keepMinuteRowsMs ?? 60 * 60_000;
    this.pruneEveryMs = options.pruneEveryMs ?? 10 * 60_000;
    this.onPruneError = options.onPruneError ?? (() => {});
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
    );
    this.maybePrune(now);
    const row = rows[0];
    if (!row) throw new Error('quota counter statement returned no row');
    const daySeen = Number(row.day_seen ?? 0);
    const minuteSeen = Number(row.minute_seen ?? 0);
    if (row.day_after !== null) {
      return { allowed: true, dayCount: Number(row.day_after), minuteCount: Number(row.minute_after) };
    }
    if (row.minute_after !== null) {
      // Counted for the minute, then found the day used up (see CONSUME_SQL): not this request's unit.
      return { allowed: false, exceeded: 'day', dayCount: Math.max(daySeen, limits.day), minuteCount: Number(row.minute_after) - 1 };
    }
    if (daySeen >= limits.day) return { allowed: false, exceeded: 'day', dayCount: daySeen, minuteCount: minuteSeen };
    return { allowed: false, exceeded: 'minute', dayCount: daySeen, minuteCount: Math.max(minuteSeen, limits.minute) };
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

  /** Waits for a running clean-up; the Prisma client belongs to the caller and stays open. */
  async close(): Promise<void> {
    await this.pruning;
  }
}
