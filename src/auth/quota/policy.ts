import { isIPv4, isIPv6 } from 'node:net';

// Pure quota policy: plans and limits, UTC windows, bucket names, decisions and headers.
// No I/O here; the counter stores (database, Redis) only count.

export type Plan = 'free' | 'pro' | 'business' | 'enterprise';

/** Daily requests per plan (spec section 8), one budget shared by REST and GraphQL. Days are UTC days. */
export const DAILY_LIMITS: Readonly<Record<Plan, number>> = Object.freeze({
  free: 25,
  pro: 1_000,
  business: 10_000,
  enterprise: 100_000,
});

/**
 * Requests per minute per plan. The spec says per-minute quotas exist but gives no values; these are ours.
 * They cap bursts, not the day: each lets a client spend its daily budget no faster than in about
 * 2.5 minutes (free), 17 minutes (pro), 33 minutes (business) and 100 minutes (enterprise).
 * - free 10: enough to try the API by hand or run a small script, while 25 a day cannot go in one burst.
 * - pro 60: one request a second sustained, plenty for an interactive integration.
 * - business 300: five a second, for batch jobs pulling many footprints (batch calls count once).
 * - enterprise 1 000: about 17 a second. An embedded (PGlite) instance serves roughly 600-800 requests a
 *   second in total, so no single customer should be able to take most of one instance on its own.
 */
export const MINUTE_LIMITS: Readonly<Record<Plan, number>> = Object.freeze({
  free: 10,
  pro: 60,
  business: 300,
  enterprise: 1_000,
});

export interface WindowLimits {
  day: number;
  minute: number;
}

/**
 * Reports (POST /v1/report) per organisation and UTC calendar month, at the calling key's plan. A report reads
 * the whole inventory and renders a PDF (about a second for 10 000 assets), so it gets its own allowance on top
 * of the request quota: pro 20 (a monthly and a few ad-hoc reports per business unit), business 200,
 * enterprise 2 000. Free keys cannot make reports at all (403 PLAN_TOO_LOW), hence 0.
 */
export const MONTHLY_REPORT_LIMITS: Readonly<Record<Plan, number>> = Object.freeze({
  free: 0,
  pro: 20,
  business: 200,
  enterprise: 2_000,
});

/** One counter of a monthly allowance: `month:2026-11:reports:org:<uuid>`, from the window start to the next. */
export interface MonthBucket {
  bucket: string;
  /** The subject part, e.g. `org:<uuid>` (the Redis hash tag). */
  subject: string;
  orgId: string;
  windowStart: Date;
  windowEnd: Date;
}

/** What a counter store reports for one monthly reservation: the count after it (or, refused, the count that refused it). */
export interface MonthCounterResult {
  allowed: boolean;
  count: number;
}

/**
 * Who is counted: an API key (its plan), or an anonymous caller by client IP (free plan); or, apart
 * from the request quota, a client IP's failed sign-ins (admin token, console) or public lookups per scope.
 */
export type QuotaSubject =
  | { kind: 'key'; keyId: string; orgId: string; plan: Plan }
  | { kind: 'anonymous'; ip: string }
  | { kind: 'failed-sign-in'; scope: SignInScope; ip: string }
  | { kind: 'lookup'; scope: LookupScope; ip: string };

export type SignInScope = 'admin' | 'console';
/** Public lookups limited per client IP (certificate verification). */
export type LookupScope = 'certificate-verify';

export interface QuotaDecision {
  allowed: boolean;
  plan: Plan;
  /** Daily limit. */
  limit: number;
  /** Daily requests left after this request (a refused request uses none), >= 0. */
  remaining: number;
  /** Unix seconds of the next UTC midnight. */
  reset: number;
  minute: { limit: number; remaining: number /** Unix seconds of the next minute boundary. */; reset: number };
  /** The window that refused the request. When both are used up it is 'day' (the longer wait). */
  exceeded?: 'day' | 'minute';
  /** On refusal: whole seconds until that window resets, >= 1. */
  retryAfterSeconds?: number;
}

/**
 * What a counter store reports for one check-and-increment. Counts are the window totals *after*
 * this call: an admitted request is included, a refused one is not (it consumes nothing).
 */
export interface CounterResult {
  allowed: boolean;
  exceeded?: 'day' | 'minute';
  dayCount: number;
  minuteCount: number;
}

/**
 * Where the counts live. `consume` must check both windows and count the request in both, or in
 * neither, as one atomic step: the request is admitted only if both are below their limits.
 */
export interface CounterStore {
  consume(subject: QuotaSubject, now: Date, limits: WindowLimits): Promise<CounterResult>;
  /**
   * Gives back the request `consume` admitted for `subject` at `at` (its answer was a refusal): one unit
   * of that day's and that minute's counters, as one atomic step, neither below zero.
   */
  release(subject: QuotaSubject, at: Date): Promise<void>;
  /** Requests counted today (UTC) per subject, without counting anything (the console's usage view). */
  dayCounts(subjects: QuotaSubject[], now: Date): Promise<number[]>;
  /** The subject's count in the current minute, without counting anything. */
  minuteCount(subject: QuotaSubject, now: Date): Promise<number>;
  /** Counts one unit of a monthly allowance if it is below `limit`, as one atomic step (exact under concurrency). */
  reserveMonthly(bucket: MonthBucket, limit: number): Promise<MonthCounterResult>;
  /** Gives back one unit reserved in `bucket` (the operation failed); never below zero. */
  releaseMonthly(bucket: MonthBucket): Promise<void>;
  close?(): Promise<void>;
}

/** The names of the two counters of one subject at one instant. */
export interface Buckets {
  day: string;
  minute: string;
  dayStart: Date;
  minuteStart: Date;
  /** The subject part, e.g. `key:<uuid>` or `ip:203.0.113.7`. */
  subject: string;
}

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

export const planOf = (subject: QuotaSubject): Plan => (subject.kind === 'key' ? subject.plan : 'free');

export const utcDayStart = (now: Date): Date => new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
export const utcMinuteStart = (now: Date): Date => new Date(Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS);
export const nextUtcMidnight = (now: Date): Date => new Date(utcDayStart(now).getTime() + DAY_MS);
export const nextMinuteBoundary = (now: Date): Date => new Date(utcMinuteStart(now).getTime() + MINUTE_MS);
export const utcMonthStart = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
export const nextUtcMonthStart = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
export const unixSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

/** Whole seconds from `now` until `reset`, rounded up and at least 1 (a client waiting that long is past the reset). */
export function retryAfterSeconds(now: Date, reset: Date): number {
  return Math.max(1, Math.ceil((reset.getTime() - now.getTime()) / 1000));
}

/**
 * The client address an anonymous budget is kept under. IPv4-mapped IPv6 becomes plain IPv4; other IPv6
 * addresses count per /64, because a single subscriber usually holds a whole /64 and could otherwise
 * take a fresh free budget from each of its addresses.
 */
export function normalizeClientIp(ip: string): string {
  let address = ip.trim().toLowerCase();
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
  const zone = address.indexOf('%');
  if (zone >= 0) address = address.slice(0, zone);
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address === '' ? 'unknown' : address;
  const groups = expandIPv6(address);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (with `::` and a dotted IPv4 tail resolved). */
function expandIPv6(address: string): number[] {
  const parse = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((group) => {
      if (group.includes('.')) {
        const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
        return [(a << 8) | b, (c << 8) | d];
      }
      return [parseInt(group, 16)];
    });
  };
  const [head = '', tail] = address.split('::');
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

export function subjectPart(subject: QuotaSubject): string {
  if (subject.kind === 'key') return `key:${subject.keyId}`;
  const ip = `ip:${normalizeClientIp(subject.ip)}`;
  if (subject.kind === 'lookup') return `lookup:${subject.scope}:${ip}`;
  return subject.kind === 'anonymous' ? ip : `signin:${subject.scope}:${ip}`;
}

/**
 * Counter names: `day:2026-11-22:key:<uuid>`, `minute:2026-11-22T10:15:key:<uuid>`,
 * `day:2026-11-22:ip:203.0.113.7`, `minute:2026-11-22T10:15:signin:admin:ip:203.0.113.7`. The window
 * start is in the name, so a new UTC day or minute is a new counter and earlier counts never carry over.
 */
export function bucketsFor(subject: QuotaSubject, now: Date): Buckets {
  const dayStart = utcDayStart(now);
  const minuteStart = utcMinuteStart(now);
  const iso = minuteStart.toISOString(); // 2026-11-22T10:15:00.000Z
  const part = subjectPart(subject);
  return {
    day: `day:${iso.slice(0, 10)}:${part}`,
    minute: `minute:${iso.slice(0, 16)}:${part}`,
    dayStart,
    minuteStart,
    subject: part,
  };
}

/** The counter of `counter` for an organisation in the UTC calendar month of `now`. */
export function monthBucketFor(counter: 'reports', orgId: string, now: Date): MonthBucket {
  const windowStart = utcMonthStart(now);
  const subject = `org:${orgId}`;
  return {
    bucket: `month:${windowStart.toISOString().slice(0, 7)}:${counter}:${subject}`,
    subject,
    orgId,
    windowStart,
    windowEnd: nextUtcMonthStart(now),
  };
}

/** Turns a store's counts into the decision the request pipeline acts on. */
export function decide(plan: Plan, limits: WindowLimits, counts: CounterResult, now: Date): QuotaDecision {
  const dayReset = nextUtcMidnight(now);
  const minuteReset = nextMinuteBoundary(now);
  const exceeded = counts.allowed ? undefined : (counts.exceeded ?? 'day');
  const decision: QuotaDecision = {
    allowed: counts.allowed,
    plan,
    limit: limits.day,
    remaining: exceeded === 'day' ? 0 : Math.max(0, limits.day - counts.dayCount),
    reset: unixSeconds(dayReset),
    minute: {
      limit: limits.minute,
      remaining: exceeded === 'minute' ? 0 : Math.max(0, limits.minute - counts.minuteCount),
      reset: unixSeconds(minuteReset),
    },
  };
  if (exceeded) {
    decision.exceeded = exceeded;
    decision.retryAfterSeconds = retryAfterSeconds(now, exceeded === 'day' ? dayReset : minuteReset);
  }
  return decision;
}

/**
 * Response headers for a decision. Admitted: X-RateLimit-Limit and X-RateLimit-Remaining of the daily
 * quota (the one the spec documents) and X-RateLimit-Plan. Refused: the refusing window's
 * X-RateLimit-Limit, -Remaining (0) and -Reset (Unix time it resets: the next UTC midnight for the daily
 * quota, the next minute boundary for the per-minute one), and Retry-After (seconds).
 */
export function rateLimitHeaders(decision: QuotaDecision): Record<string, string> {
  const window = decision.exceeded === 'minute' ? decision.minute : decision;
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(window.limit),
    'X-RateLimit-Remaining': String(window.remaining),
    'X-RateLimit-Plan': decision.plan,
  };
  if (!decision.allowed) {
    headers['Retry-After'] = String(decision.retryAfterSeconds ?? 1);
    headers['X-RateLimit-Reset'] = String(window.reset);
  }
  return headers;
}
