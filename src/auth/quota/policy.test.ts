import { describe, expect, it } from 'vitest';
import {
  DAILY_LIMITS,
  MINUTE_LIMITS,
  bucketsFor,
  decide,
  nextMinuteBoundary,
  nextUtcMidnight,
  normalizeClientIp,
  rateLimitHeaders,
  retryAfterSeconds,
  unixSeconds,
  utcDayStart,
  utcMinuteStart,
} from './policy.ts';

const at = (iso: string) => new Date(iso);
const unix = (iso: string) => Date.parse(iso) / 1000;

describe('quota limits', () => {
  it('has the daily limits of the spec and per-minute limits below them', () => {
    expect(DAILY_LIMITS).toEqual({ free: 25, pro: 1000, business: 10_000, enterprise: 100_000 });
    for (const plan of ['free', 'pro', 'business', 'enterprise'] as const) {
      expect(MINUTE_LIMITS[plan]).toBeGreaterThan(0);
      expect(MINUTE_LIMITS[plan]).toBeLessThan(DAILY_LIMITS[plan]);
    }
  });
});

describe('UTC windows', () => {
  it('resets the daily window at the next UTC midnight', () => {
    expect(nextUtcMidnight(at('2026-11-22T10:15:30.250Z'))).toEqual(at('2026-11-23T00:00:00.000Z'));
    expect(nextUtcMidnight(at('2026-11-22T23:59:59.999Z'))).toEqual(at('2026-11-23T00:00:00.000Z'));
    // Midnight itself belongs to the new day.
    expect(nextUtcMidnight(at('2026-11-23T00:00:00.000Z'))).toEqual(at('2026-11-24T00:00:00.000Z'));
    expect(nextUtcMidnight(at('2026-12-31T18:00:00Z'))).toEqual(at('2027-01-01T00:00:00Z'));
    expect(nextUtcMidnight(at('2028-02-28T12:00:00Z'))).toEqual(at('2028-02-29T00:00:00Z'));
    expect(utcDayStart(at('2026-11-22T23:59:59.999Z'))).toEqual(at('2026-11-22T00:00:00Z'));
  });

  it('uses UTC days whatever the local offset of the caller', () => {
    // 2026-11-22 23:30 in New York is already 2026-11-23 in UTC.
    const now = at('2026-11-22T23:30:00-05:00');
    expect(utcDayStart(now)).toEqual(at('2026-11-23T00:00:00Z'));
    expect(nextUtcMidnight(now)).toEqual(at('2026-11-24T00:00:00Z'));
  });

  it('resets the minute window at the next minute boundary', () => {
    expect(nextMinuteBoundary(at('2026-11-22T10:15:00.000Z'))).toEqual(at('2026-11-22T10:16:00Z'));
    expect(nextMinuteBoundary(at('2026-11-22T10:15:59.999Z'))).toEqual(at('2026-11-22T10:16:00Z'));
    expect(nextMinuteBoundary(at('2026-11-22T23:59:30Z'))).toEqual(at('2026-11-23T00:00:00Z'));
    expect(utcMinuteStart(at('2026-11-22T10:15:42.5Z'))).toEqual(at('2026-11-22T10:15:00Z'));
  });

  it('gives Unix timestamps in whole seconds', () => {
    expect(unixSeconds(at('2026-11-23T00:00:00Z'))).toBe(unix('2026-11-23T00:00:00Z'));
    expect(unixSeconds(at('2026-11-23T00:00:00.999Z'))).toBe(unix('2026-11-23T00:00:00Z'));
  });

  it('rounds retry-after up to whole seconds, never below 1', () => {
    const midnight = at('2026-11-23T00:00:00Z');
    expect(retryAfterSeconds(at('2026-11-22T23:59:30.000Z'), midnight)).toBe(30);
    expect(retryAfterSeconds(at('2026-11-22T23:59:30.500Z'), midnight)).toBe(30);
    expect(retryAfterSeconds(at('2026-11-22T23:59:29.999Z'), midnight)).toBe(31);
    expect(retryAfterSeconds(at('2026-11-22T23:59:59.999Z'), midnight)).toBe(1);
    expect(retryAfterSeconds(midnight, midnight)).toBe(1);
    expect(retryAfterSeconds(at('2026-11-22T00:00:00Z'), midnight)).toBe(86_400);
    const now = at('2026-11-22T10:15:00Z');
    expect(retryAfterSeconds(now, nextMinuteBoundary(now))).toBe(60);
  });
});

describe('buckets', () => {
  const keyId = '3f0c8a9e-6a43-4c57-9b0e-1f0d6f4f3b11';
  const orgId = '9a1d2c3b-0000-4000-8000-000000000001';

  it('names the day and minute counters of a key after their window start', () => {
    const b = bucketsFor({ kind: 'key', keyId, orgId, plan: 'pro' }, at('2026-11-22T10:15:42.123Z'));
    expect(b.day).toBe(`day:2026-11-22:key:${keyId}`);
    expect(b.minute).toBe(`minute:2026-11-22T10:15:key:${keyId}`);
    expect(b.dayStart).toEqual(at('2026-11-22T00:00:00Z'));
    expect(b.minuteStart).toEqual(at('2026-11-22T10:15:00Z'));
    expect(b.subject).toBe(`key:${keyId}`);
  });

  it('changes names when the UTC day changes', () => {
    const subject = { kind: 'anonymous', ip: '203.0.113.7' } as const;
    expect(bucketsFor(subject, at('2026-11-22T23:59:59.999Z')).day).toBe('day:2026-11-22:ip:203.0.113.7');
    expect(bucketsFor(subject, at('2026-11-23T00:00:00.000Z')).day).toBe('day:2026-11-23:ip:203.0.113.7');
  });

  it('counts anonymous callers by IPv4 address and by IPv6 /64', () => {
    expect(normalizeClientIp('203.0.113.7')).toBe('203.0.113.7');
    expect(normalizeClientIp('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(normalizeClientIp('::FFFF:cb00:7107')).toBe('203.0.113.7');
    expect(normalizeClientIp('2001:db8:abcd:12:1:2:3:4')).toBe('2001:db8:abcd:12::/64');
    expect(normalizeClientIp('2001:DB8:ABCD:0012::99')).toBe('2001:db8:abcd:12::/64');
    expect(normalizeClientIp('[2001:db8::1]')).toBe('2001:db8:0:0::/64');
    expect(normalizeClientIp('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(normalizeClientIp('')).toBe('unknown');
  });
});

describe('decide and rateLimitHeaders', () => {
  const limits = { day: 25, minute: 10 };
  const now = at('2026-11-22T10:15:20.400Z');
  const midnight = unix('2026-11-23T00:00:00Z');
  const nextMinute = unix('2026-11-22T10:16:00Z');

  it('reports remaining after an admitted request, with the plain headers only', () => {
    const decision = decide('free', limits, { allowed: true, dayCount: 7, minuteCount: 3 }, now);
    expect(decision).toEqual({
      allowed: true,
      plan: 'free',
      limit: 25,
      remaining: 18,
      reset: midnight,
      minute: { limit: 10, remaining: 7, reset: nextMinute },
    });
    expect(rateLimitHeaders(decision)).toEqual({ 'X-RateLimit-Limit': '25', 'X-RateLimit-Remaining': '18', 'X-RateLimit-Plan': 'free' });
  });

  it('admits the last unit with remaining 0', () => {
    expect(decide('free', limits, { allowed: true, dayCount: 25, minuteCount: 1 }, now).remaining).toBe(0);
  });

  it('on a daily refusal: remaining 0, Retry-After to midnight, Reset at midnight', () => {
    const decision = decide('free', limits, { allowed: false, exceeded: 'day', dayCount: 25, minuteCount: 2 }, now);
    expect(decision).toMatchObject({ allowed: false, exceeded: 'day', remaining: 0, retryAfterSeconds: 49_480 });
    expect(decision.minute.remaining).toBe(8);
    expect(rateLimitHeaders(decision)).toEqual({
      'X-RateLimit-Limit': '25',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Plan': 'free',
      'Retry-After': '49480',
      'X-RateLimit-Reset': String(midnight),
    });
  });

  it('on a per-minute refusal: daily remaining unchanged, the headers the minute window (limit, 0 left, reset at its boundary)', () => {
    const decision = decide('pro', { day: 1000, minute: 60 }, { allowed: false, exceeded: 'minute', dayCount: 400, minuteCount: 60 }, now);
    expect(decision).toMatchObject({ allowed: false, exceeded: 'minute', remaining: 600, retryAfterSeconds: 40 });
    expect(decision.minute).toEqual({ limit: 60, remaining: 0, reset: nextMinute });
    expect(rateLimitHeaders(decision)).toEqual({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Plan': 'pro',
      'Retry-After': '40',
      'X-RateLimit-Reset': String(nextMinute),
    });
  });

  it('never reports negative remaining (e.g. after a plan downgrade during the day)', () => {
    const decision = decide('free', limits, { allowed: false, exceeded: 'day', dayCount: 900, minuteCount: 40 }, now);
    expect(decision.remaining).toBe(0);
    expect(decision.minute.remaining).toBe(0);
  });
});
