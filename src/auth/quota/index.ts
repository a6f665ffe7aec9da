import type { Database } from '../../db/database.ts';
import { DatabaseCounterStore } from './database-store.ts';
import { MemoryCounterStore } from './memory-store.ts';
import {
  DAILY_LIMITS,
  MINUTE_LIMITS,
  MONTHLY_REPORT_LIMITS,
  decide,
  monthBucketFor,
  nextMinuteBoundary,
  planOf,
  retryAfterSeconds,
  unixSeconds,
  type CounterStore,
  type LookupScope,
  type Plan,
  type QuotaDecision,
  type QuotaSubject,
  type SignInScope,
  type WindowLimits,
} from './policy.ts';

export {
  DAILY_LIMITS,
  MINUTE_LIMITS,
  MONTHLY_REPORT_LIMITS,
  bucketsFor,
  monthBucketFor,
  decide,
  nextMinuteBoundary,
  nextUtcMidnight,
  normalizeClientIp,
  rateLimitHeaders,
  retryAfterSeconds,
  utcDayStart,
  utcMinuteStart,
} from './policy.ts';
export type {
  CounterResult,
  CounterStore,
  LookupScope,
  MonthBucket,
  MonthCounterResult,
  Plan,
  QuotaDecision,
  QuotaSubject,
  SignInScope,
  WindowLimits,
} from './policy.ts';
export { DatabaseCounterStore, type DatabaseCounterStoreOptions } from './database-store.ts';
export { FLUSH_EVERY_MS, MemoryCounterStore, type MemoryCounterStoreOptions } from './memory-store.ts';

/** Failed sign-ins (wrong admin token, wrong console key) a client IP may make per minute and scope. */
export const SIGN_IN_FAILURES_PER_MINUTE = 10;
// The database counters are 32-bit integers.
const MAX_COUNT = 2_147_483_647;

export interface QuotaServiceOptions {
  /** Per-plan overrides of DAILY_LIMITS, MINUTE_LIMITS and MONTHLY_REPORT_LIMITS (tests, or a deployment's own values). */
  limits?: { day?: Partial<Record<Plan, number>>; minute?: Partial<Record<Plan, number>>; report?: Partial<Record<Plan, number>> };
}

/** A reservation against a monthly allowance. */
export interface MonthlyDecision {
  allowed: boolean;
  limit: number;
  /** Units left this month after this reservation (0 when refused). */
  remaining: number;
  /** Unix seconds of the next UTC month start. */
  reset: number;
  /** On refusal: whole seconds until the month resets, >= 1. */
  retryAfterSeconds?: number;
  /** Gives the reserved unit back (the operation failed). Only for an admitted reservation; at most once. */
  release(): Promise<void>;
}

/**
 * The per-request quota check: one shared budget for REST and GraphQL per API key (per client IP for
 * anonymous callers, at the free plan), a UTC-day window and a one-minute window. `check` counts the
 * request only if it is admitted; a refused request uses no budget, and `release` gives back an admitted
 * one that was then refused.
 */
export class QuotaService {
  private readonly day: Record<Plan, number>;
  private readonly minute: Record<Plan, number>;
  private readonly report: Record<Plan, number>;

  constructor(
    readonly store: CounterStore,
    options: QuotaServiceOptions = {},
  ) {
    this.day = { ...DAILY_LIMITS, ...options.limits?.day };
    this.minute = { ...MINUTE_LIMITS, ...options.limits?.minute };
    this.report = { ...MONTHLY_REPORT_LIMITS, ...options.limits?.report };
    for (const [plan, value] of [...Object.entries(this.day), ...Object.entries(this.minute), ...Object.entries(this.report)]) {
      if (!Number.isInteger(value) || value < 0 || value > MAX_COUNT) {
        throw new Error(`quota limit for ${plan} must be a whole number from 0 to 2147483647, got ${value}`);
      }
    }
  }

  limitsFor(plan: Plan): WindowLimits {
    return { day: this.day[plan], minute: this.minute[plan] };
  }

  async check(subject: QuotaSubject, now: Date = new Date()): Promise<QuotaDecision> {
    const plan = planOf(subject);
    const limits = this.limitsFor(plan);
    const counts = await this.store.consume(subject, now, limits);
    return decide(plan, limits, counts, now);
  }

  /** Gives back the request `check` admitted for `subject` at `at` (the day and minute it was counted in). */
  async release(subject: QuotaSubject, at: Date): Promise<void> {
    await this.store.release(subject, at);
  }

  /**
   * Reserves one report of the organisation's allowance for this UTC month at `plan`'s limit, exactly under
   * concurrency (one atomic step in the store). Refused reservations count nothing; an admitted one that
   * ends in failure is given back with release().
   */
  async reserveReport(orgId: string, plan: Plan, now: Date = new Date()): Promise<MonthlyDecision> {
    const bucket = monthBucketFor('reports', orgId, now);
    const limit = this.report[plan];
    const result = await this.store.reserveMonthly(bucket, limit);
    const reset = unixSeconds(bucket.windowEnd);
    if (!result.allowed) {
      return {
        allowed: false,
        limit,
        remaining: 0,
        reset,
        retryAfterSeconds: retryAfterSeconds(now, bucket.windowEnd),
        release: async () => {},
      };
    }
    let released = false;
    return {
      allowed: true,
      limit,
      remaining: Math.max(0, limit - result.count),
      reset,
      release: async () => {
        if (released) return;
        released = true;
        await this.store.releaseMonthly(bucket);
      },
    };
  }

  /** Today's count and daily limit per key, for the console. */
  async usageToday(
    keys: { keyId: string; orgId: string; plan: Plan }[],
    now: Date = new Date(),
  ): Promise<{ used: number; limit: number }[]> {
    const counts = await this.store.dayCounts(
      keys.map((k) => ({ kind: 'key', ...k })),
      now,
    );
    return keys.map((k, i) => ({ used: counts[i]!, limit: this.day[k.plan] }));
  }

  /**
   * Brute-force guard for credentials, kept in the same store so it holds across instances: ask before
   * looking at the credential and count only failures (countFailedSignIn). Returns the seconds to wait
   * once the client IP has used up this minute's failures for `scope`, else undefined.
   */
  async signInWait(scope: SignInScope, ip: string, now: Date = new Date()): Promise<number | undefined> {
    const failures = await this.store.minuteCount({ kind: 'failed-sign-in', scope, ip }, now);
    return failures >= SIGN_IN_FAILURES_PER_MINUTE ? retryAfterSeconds(now, nextMinuteBoundary(now)) : undefined;
  }

  async countFailedSignIn(scope: SignInScope, ip: string, now: Date = new Date()): Promise<void> {
    // Only the minute is limited; counting stops at its limit, when signInWait refuses anyway.
    await this.store.consume({ kind: 'failed-sign-in', scope, ip }, now, { day: MAX_COUNT, minute: SIGN_IN_FAILURES_PER_MINUTE });
  }

  /**
   * A public lookup from a client IP (certificate verification), counted before anything is looked up
   * whatever it finds, so identifiers cannot be tried faster than `perMinute`. Returns the seconds to
   * wait when this minute's lookups are used up (the lookup is then not counted), else undefined.
   */
  async lookupWait(scope: LookupScope, ip: string, perMinute: number, now: Date = new Date()): Promise<number | undefined> {
    const counted = await this.store.consume({ kind: 'lookup', scope, ip }, now, { day: MAX_COUNT, minute: perMinute });
    return counted.allowed ? undefined : retryAfterSeconds(now, nextMinuteBoundary(now));
  }

  async close(): Promise<void> {
    await this.store.close?.();
  }
}

/**
 * The store the configuration asks for, chosen here and nowhere else:
 * - REDIS_URL set: Redis, shared by every instance (the client, about 270 KB of modules, is loaded only then);
 * - PostgreSQL (DATABASE_URL) without Redis: the database, shared by every instance on it;
 * - the embedded database (no DATABASE_URL): this process's memory, written behind to the database
 *   (MemoryCounterStore), since the embedded database belongs to the one process that opened it.
 */
export async function createCounterStore(
  db: Pick<Database, 'kind' | 'prisma'>,
  redis: { url: string; prefix: string } | undefined,
  options: { onFlushError?: (error: unknown) => void } = {},
): Promise<CounterStore> {
  if (redis) {
    const { RedisCounterStore } = await import('./redis-store.ts');
    return new RedisCounterStore(redis.url, { keyPrefix: `${redis.prefix}quota:` });
  }
  if (db.kind === 'pglite') return new MemoryCounterStore(db.prisma, { onFlushError: options.onFlushError });
  return new DatabaseCounterStore(db.prisma);
}
