import { createHash } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import {
  bucketsFor,
  nextMinuteBoundary,
  nextUtcMidnight,
  type CounterResult,
  type CounterStore,
  type MonthBucket,
  type MonthCounterResult,
  type QuotaSubject,
  type WindowLimits,
} from './policy.ts';

/**
 * Check both windows, then count the request in both or in neither. Redis runs a script atomically,
 * so concurrent calls from any number of API instances see each other's counts: with a budget of 100,
 * 200 concurrent requests admit exactly 100. A refused request changes nothing. Each key gets its TTL
 * when it is created (its window's end plus a grace period), so old windows disappear by themselves.
 *
 * KEYS: day, minute. ARGV: day limit, minute limit, day TTL s, minute TTL s.
 * Returns {allowed 0|1, day count, minute count, exceeded 0 none | 1 day | 2 minute}.
 */
const CONSUME_LUA = `
local day = tonumber(redis.call('GET', KEYS[1]) or '0')
local minute = tonumber(redis.call('GET', KEYS[2]) or '0')
if day >= tonumber(ARGV[1]) then return {0, day, minute, 1} end
if minute >= tonumber(ARGV[2]) then return {0, day, minute, 2} end
day = redis.call('INCR', KEYS[1])
if day == 1 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
minute = redis.call('INCR', KEYS[2])
if minute == 1 then redis.call('EXPIRE', KEYS[2], ARGV[4]) end
return {1, day, minute, 0}
`;
const CONSUME_SHA = createHash('sha1').update(CONSUME_LUA).digest('hex');

/** Gives back one admitted request: -1 on each of KEYS (day, minute) that is above zero (never re-creating an expired key). */
const RELEASE_LUA = `
for _, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') > 0 then redis.call('DECR', key) end
end
return 0
`;

/** A monthly allowance: +1 only while below ARGV[1]; TTL ARGV[2] set on creation. Returns {allowed 0|1, count}. */
const RESERVE_MONTHLY_LUA = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then return {0, n} end
n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return {1, n}
`;
/** Gives one unit back, never below zero (nor re-creating an expired key). */
const RELEASE_MONTHLY_LUA = `
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then return redis.call('DECR', KEYS[1]) end
return 0
`;

/** Keys outlive their window by this much, so instances with slightly skewed clocks still find them. */
const GRACE_SECONDS = 300;

export interface RedisCounterStoreOptions {
  /** Prepended to every key. Default `lcf:quota:`. Must not contain `{`. */
  keyPrefix?: string;
  /** Extra ioredis options. */
  redis?: RedisOptions;
}

/**
 * Counters in Redis (when REDIS_URL is set): several API instances share one budget. Keys look like
 * `lcf:quota:day:2026-11-22:{key:<uuid>}`; the braces are a Redis Cluster hash tag, so a subject's
 * day and minute keys share a slot and the script may touch both.
 *
 * Buckets follow the calling instance's clock (like the database store), so instances should run NTP.
 */
export class RedisCounterStore implements CounterStore {
  readonly redis: Redis;
  private readonly prefix: string;

  constructor(redisUrl: string, options: RedisCounterStoreOptions = {}) {
    this.prefix = options.keyPrefix ?? 'lcf:quota:';
    if (this.prefix.includes('{')) throw new Error('RedisCounterStore: keyPrefix must not contain "{"');
    this.redis = new Redis(redisUrl, {
      // Fail a check quickly instead of queueing it forever while Redis is away.
      maxRetriesPerRequest: 2,
      connectTimeout: 5_000,
      enableAutoPipelining: true,
      ...options.redis,
    });
    // Connection errors surface as rejected commands; keep ioredis from printing them unhandled.
    this.redis.on('error', () => {});
  }

  /** The Redis key of a bucket name: the subject part becomes the hash tag. */
  key(bucket: string, subject: string): string {
    return `${this.prefix}${bucket.slice(0, bucket.length - subject.length)}{${subject}}`;
  }

  async dayCounts(subjects: QuotaSubject[], now: Date): Promise<number[]> {
    if (subjects.length === 0) return [];
    const keys = subjects.map((subject) => {
      const buckets = bucketsFor(subject, now);
      return this.key(buckets.day, buckets.subject);
    });
    return (await this.redis.mget(...keys)).map((value) => Number(value ?? 0));
  }

  async minuteCount(subject: QuotaSubject, now: Date): Promise<number> {
    const buckets = bucketsFor(subject, now);
    return Number((await this.redis.get(this.key(buckets.minute, buckets.subject))) ?? 0);
  }

  async consume(subject: QuotaSubject, now: Date, limits: WindowLimits): Promise<CounterResult> {
    const buckets = bucketsFor(subject, now);
    const dayTtl = Math.ceil((nextUtcMidnight(now).getTime() - now.getTime()) / 1000) + GRACE_SECONDS;
    const minuteTtl = Math.ceil((nextMinuteBoundary(now).getTime() - now.getTime()) / 1000) + GRACE_SECONDS;
    const keys = [this.key(buckets.day, buckets.subject), this.key(buckets.minute, buckets.subject)];
    const args = [limits.day, limits.minute, dayTtl, minuteTtl];
    let reply: unknown;
    try {
      reply = await this.redis.evalsha(CONSUME_SHA, 2, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      reply = await this.redis.eval(CONSUME_LUA, 2, ...keys, ...args);
    }
    const [allowed, dayCount, minuteCount, exceeded] = reply as [number, number, number, number];
    if (allowed === 1) return { allowed: true, dayCount, minuteCount };
    return { allowed: false, exceeded: exceeded === 2 ? 'minute' : 'day', dayCount, minuteCount };
  }

  // Refusals only: plain EVAL, no script cache round trip.
  async release(subject: QuotaSubject, at: Date): Promise<void> {
    const buckets = bucketsFor(subject, at);
    await this.redis.eval(RELEASE_LUA, 2, this.key(buckets.day, buckets.subject), this.key(buckets.minute, buckets.subject));
  }

  // Rare calls (a report each): plain EVAL, no script cache round trip.
  async reserveMonthly(bucket: MonthBucket, limit: number): Promise<MonthCounterResult> {
    const ttl = Math.ceil((bucket.windowEnd.getTime() - Date.now()) / 1000) + GRACE_SECONDS;
    const [allowed, count] = (await this.redis.eval(
      RESERVE_MONTHLY_LUA,
      1,
      this.key(bucket.bucket, bucket.subject),
      limit,
      Math.max(ttl, GRACE_SECONDS),
    )) as [number, number];
    return { allowed: allowed === 1, count };
  }

  async releaseMonthly(bucket: MonthBucket): Promise<void> {
    await this.redis.eval(RELEASE_MONTHLY_LUA, 1, this.key(bucket.bucket, bucket.subject));
  }

  async close(): Promise<void> {
    if (this.redis.status === 'end') return;
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }
}
