import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AttemptTimeoutError,
  CircuitOpenError,
  DEFAULT_RETRY_AFTER_CAP_MS,
  RetryableError,
  parseRetryAfter,
  resiliencePolicy,
  type ResilienceOptions,
} from './policy.ts';

// cockatiel's timers and clock are the global ones: fake timers make every delay exact.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const policyWith = (options: Partial<ResilienceOptions> = {}) =>
  resiliencePolicy({ name: 'test', timeoutMs: 1000, retries: 3, ...options });

/** An attempt function whose calls are recorded with the (fake) time they started at. */
function attempts<T>(behaviour: (call: number, signal: AbortSignal) => Promise<T>) {
  const startedAt: number[] = [];
  const signals: AbortSignal[] = [];
  const started = Date.now();
  const fn = (signal: AbortSignal) => {
    startedAt.push(Date.now() - started);
    signals.push(signal);
    return behaviour(startedAt.length, signal);
  };
  return { fn, startedAt, signals };
}

/** Settles a promise under fake timers, running every timer it waits for. */
async function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  const outcome = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await vi.runAllTimersAsync();
  return outcome;
}

const failing = (call: number) => Promise.reject(new RetryableError(`failure ${call}`));
const never = () => new Promise<never>(() => {});

describe('retries', () => {
  it('returns the first answer without retrying, passing a live signal', async () => {
    const { fn, startedAt, signals } = attempts(async () => 'answer');
    expect(await settle(policyWith().execute(fn))).toEqual({ value: 'answer' });
    expect(startedAt).toEqual([0]);
    expect(signals[0]).toBeInstanceOf(AbortSignal);
  });

  it('retries a RetryableError with exponential backoff and equal jitter, then rejects with the last error', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const { fn, startedAt } = attempts(failing);
    const { error } = await settle(policyWith({ retries: 3, backoff: { initialMs: 200, maxMs: 300 } }).execute(fn));
    expect(error).toBeInstanceOf(RetryableError);
    expect((error as Error).message).toBe('failure 4');
    // steps 200, 300 (400 capped), 300: each waited 3/4 of the step with random() = 0.5
    expect(startedAt).toEqual([0, 150, 150 + 225, 150 + 225 + 225]);
  });

  it.each([
    [0, [0, 100, 300]],
    [0.999, [0, 199, 598]],
  ])('jitter with random() = %s waits between half and all of the step', async (random, expected) => {
    vi.spyOn(Math, 'random').mockReturnValue(random);
    const { fn, startedAt } = attempts(failing);
    await settle(policyWith({ retries: 2 }).execute(fn));
    expect(startedAt).toEqual(expected);
  });

  it('succeeds on a retry', async () => {
    const { fn, startedAt } = attempts(async (call) => (call < 3 ? failing(call) : 'third time'));
    expect(await settle(policyWith().execute(fn))).toEqual({ value: 'third time' });
    expect(startedAt).toHaveLength(3);
  });

  it('makes one attempt with retries: 0', async () => {
    const { fn, startedAt } = attempts(failing);
    const { error } = await settle(policyWith({ retries: 0 }).execute(fn));
    expect((error as Error).message).toBe('failure 1');
    expect(startedAt).toEqual([0]);
  });

  it('rethrows any other error at once, as it is, without retrying', async () => {
    const answer = new Error('HTTP 404');
    const { fn, startedAt } = attempts(() => Promise.reject(answer));
    expect(await settle(policyWith().execute(fn))).toEqual({ error: answer });
    expect(startedAt).toEqual([0]);
  });

  it('waits the Retry-After instead of the backoff step', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const { fn, startedAt } = attempts((call) => Promise.reject(new RetryableError('HTTP 429', call === 1 ? 2500 : undefined)));
    const { error } = await settle(policyWith({ retries: 2 }).execute(fn));
    expect((error as RetryableError).retryAfterMs).toBeUndefined();
    expect(startedAt).toEqual([0, 2500, 2500 + 300]);
  });

  it('honours a Retry-After up to the cap, and fails at once past it', async () => {
    const atCap = attempts((call) => Promise.reject(new RetryableError('HTTP 429', call === 1 ? DEFAULT_RETRY_AFTER_CAP_MS : undefined)));
    await settle(policyWith({ retries: 1 }).execute(atCap.fn));
    expect(atCap.startedAt).toEqual([0, DEFAULT_RETRY_AFTER_CAP_MS]);

    const tooLong = new RetryableError('HTTP 429', DEFAULT_RETRY_AFTER_CAP_MS + 1);
    const pastCap = attempts(() => Promise.reject(tooLong));
    expect(await settle(policyWith({ retries: 3 }).execute(pastCap.fn))).toEqual({ error: tooLong });
    expect(pastCap.startedAt).toEqual([0]);

    const own = attempts(() => Promise.reject(new RetryableError('HTTP 429', 500)));
    await settle(policyWith({ retries: 1, retryAfterCapMs: 499 }).execute(own.fn));
    expect(own.startedAt).toEqual([0]);
  });
});

describe('timeouts', () => {
  it('aborts an attempt at timeoutMs, retries it, and rejects with AttemptTimeoutError', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const { fn, startedAt, signals } = attempts(never);
    const { error } = await settle(policyWith({ name: 'slow', timeoutMs: 50, retries: 1 }).execute(fn));
    expect(error).toBeInstanceOf(AttemptTimeoutError);
    expect((error as Error).message).toBe('slow did not answer within 50 ms');
    expect(startedAt).toEqual([0, 50 + 100]);
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);
  });

  it('answers from a retry after a timed-out attempt', async () => {
    const { fn, startedAt } = attempts(async (call) => (call === 1 ? never() : 'late answer'));
    expect(await settle(policyWith({ timeoutMs: 50 }).execute(fn))).toEqual({ value: 'late answer' });
    expect(startedAt).toHaveLength(2);
  });

  it('retries an AttemptTimeoutError thrown by the attempt itself', async () => {
    const { fn, startedAt } = attempts(async (call) => {
      if (call === 1) throw new AttemptTimeoutError('socket timeout');
      return 'ok';
    });
    expect(await settle(policyWith().execute(fn))).toEqual({ value: 'ok' });
    expect(startedAt).toHaveLength(2);
  });
});

describe('circuit breaker', () => {
  const breaker = { failureThreshold: 2, coolDownMs: 10_000 };

  it('opens after N consecutive failed executions (retries included), then fails fast without attempts', async () => {
    const policy = policyWith({ retries: 2, breaker });
    const { fn, startedAt } = attempts(failing);
    await settle(policy.execute(fn));
    expect(policy.breakerState()).toBe('closed');
    await settle(policy.execute(fn));
    expect(policy.breakerState()).toBe('open');
    expect(startedAt).toHaveLength(6);

    const { error } = await settle(policy.execute(fn));
    expect(error).toBeInstanceOf(CircuitOpenError);
    expect((error as Error).message).toBe('test circuit breaker is open; no attempt made');
    expect(startedAt).toHaveLength(6);
  });

  it("with counts: 'requests', opens after N consecutive failed attempts, in the middle of an execution's retries", async () => {
    const policy = policyWith({ retries: 2, breaker: { failureThreshold: 5, coolDownMs: 10_000, counts: 'requests' } });
    const { fn, startedAt } = attempts(failing);
    const first = await settle(policy.execute(fn));
    expect((first.error as Error).message).toBe('failure 3');
    expect(policy.breakerState()).toBe('closed');
    // Attempts 4 and 5 fail: the fifth opens the breaker, and the execution ends without its third attempt.
    const second = await settle(policy.execute(fn));
    expect(second.error).toBeInstanceOf(CircuitOpenError);
    expect(policy.breakerState()).toBe('open');
    expect(startedAt).toHaveLength(5);
    expect((await settle(policy.execute(fn))).error).toBeInstanceOf(CircuitOpenError);
    expect(startedAt).toHaveLength(5);
  });

  it("with counts: 'requests', a success between failed attempts resets the count", async () => {
    const policy = policyWith({ retries: 2, breaker: { failureThreshold: 3, coolDownMs: 10_000, counts: 'requests' } });
    // Fails twice, answers on the third attempt: two failures, then a success.
    const { fn } = attempts((call) => (call % 3 === 0 ? Promise.resolve('answer') : failing(call)));
    expect((await settle(policy.execute(fn))).value).toBe('answer');
    expect((await settle(policy.execute(fn))).value).toBe('answer');
    expect(policy.breakerState()).toBe('closed');
  });

  it('counts timeouts and refused Retry-Afters, not other errors; an answer resets the count', async () => {
    const policy = policyWith({ retries: 0, timeoutMs: 50, breaker });
    const run = (behaviour: () => Promise<string>) => settle(policy.execute(behaviour));
    await run(() => Promise.reject(new Error('HTTP 400')));
    await run(() => Promise.reject(new Error('HTTP 401')));
    await run(never);
    expect(policy.breakerState()).toBe('closed');
    await run(async () => 'answer');
    await run(never);
    expect(policy.breakerState()).toBe('closed');
    await run(() => Promise.reject(new RetryableError('HTTP 429', DEFAULT_RETRY_AFTER_CAP_MS + 1)));
    expect(policy.breakerState()).toBe('open');
  });

  it('half-opens after the cool-down; a successful probe closes it', async () => {
    const policy = policyWith({ retries: 2, breaker: { failureThreshold: 1, coolDownMs: 10_000 } });
    await settle(policy.execute(() => failing(1)));
    expect(policy.breakerState()).toBe('open');

    vi.advanceTimersByTime(9_999);
    expect(policy.breakerState()).toBe('open');
    expect((await settle(policy.execute(async () => 'too early'))).error).toBeInstanceOf(CircuitOpenError);
    vi.advanceTimersByTime(1);
    expect(policy.breakerState()).toBe('half_open');

    expect(await settle(policy.execute(async () => 'recovered'))).toEqual({ value: 'recovered' });
    expect(policy.breakerState()).toBe('closed');
  });

  it('a failed probe gets one attempt, no retries, and opens the breaker for another cool-down', async () => {
    const policy = policyWith({ retries: 2, breaker: { failureThreshold: 1, coolDownMs: 5_000 } });
    await settle(policy.execute(() => failing(1)));
    vi.advanceTimersByTime(5_000);
    expect(policy.breakerState()).toBe('half_open');

    const probe = attempts(failing);
    expect((await settle(policy.execute(probe.fn))).error).toBeInstanceOf(RetryableError);
    expect(probe.startedAt).toEqual([0]);
    expect(policy.breakerState()).toBe('open');
    vi.advanceTimersByTime(4_999);
    expect((await settle(policy.execute(probe.fn))).error).toBeInstanceOf(CircuitOpenError);
    expect(probe.startedAt).toHaveLength(1);
  });

  it('lets one probe through while half-open; a call arriving meanwhile waits for its outcome', async () => {
    const policy = policyWith({ retries: 0, breaker: { failureThreshold: 1, coolDownMs: 1_000 } });
    await settle(policy.execute(() => failing(1)));
    vi.advanceTimersByTime(1_000);

    let failProbe!: () => void;
    const probe = policy.execute(() => new Promise((_, reject) => (failProbe = () => reject(new RetryableError('still down')))));
    const waiting = attempts(async () => 'should not run');
    const second = policy.execute(waiting.fn);
    await vi.advanceTimersByTimeAsync(0);
    expect(policy.breakerState()).toBe('half_open');
    expect(waiting.startedAt).toEqual([]);

    failProbe();
    const [probeOutcome, secondOutcome] = await Promise.allSettled([probe, second]);
    expect(probeOutcome.status === 'rejected' && probeOutcome.reason).toBeInstanceOf(RetryableError);
    expect(secondOutcome.status === 'rejected' && secondOutcome.reason).toBeInstanceOf(CircuitOpenError);
    expect(waiting.startedAt).toEqual([]);
    expect(policy.breakerState()).toBe('open');
  });
});

describe('options', () => {
  it.each([
    [{ timeoutMs: 0 }, 'timeoutMs must be an integer >= 1'],
    [{ retries: -1 }, 'retries must be an integer >= 0'],
    [{ retries: 1.5 }, 'retries must be an integer >= 0'],
    [{ backoff: { initialMs: 200, maxMs: 100 } }, 'backoff.maxMs must be an integer >= 200'],
    [{ breaker: { failureThreshold: 0, coolDownMs: 1000 } }, 'breaker.failureThreshold must be an integer >= 1'],
  ])('refuses %o', (options, message) => {
    expect(() => policyWith(options)).toThrow(new RangeError(`test: ${message}`));
  });
});

describe('parseRetryAfter', () => {
  it('parses delta-seconds or an HTTP date, in milliseconds', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0.25 ', now)).toBe(250);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:05 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('counts from the current time by default', () => {
    vi.setSystemTime(Date.parse('2026-01-01T00:00:00Z'));
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:07 GMT')).toBe(7000);
  });
});
