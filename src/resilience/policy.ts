/**
 * The resilience policy shared by the outbound HTTP clients (Icecat, Blancco), built from cockatiel:
 *
 *   circuit breaker ( retry with backoff ( per-attempt timeout ( fn ) ) )
 *
 * - fn gets an AbortSignal that fires when its attempt runs out of time; the attempt then fails at
 *   once with AttemptTimeoutError (the aggressive strategy does not wait for fn to notice).
 * - RetryableError and timeouts are retried: exponential backoff with equal jitter (half fixed,
 *   half random), or the server's Retry-After when the error carries one. A Retry-After longer
 *   than the cap is not waited for: the error is rethrown at once.
 * - The breaker counts executions (after their retries) that end in a RetryableError or a timeout,
 *   or with `breaker.counts: 'requests'` each such attempt (it then sits inside the retry, and an
 *   execution whose attempts open it stops retrying); any other error is an answer from a working
 *   server and counts for nothing. After the cool-down
 *   one call goes through as a probe, with a single attempt; calls arriving meanwhile wait for its
 *   outcome.
 */
import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  DelegateBackoff,
  ExponentialBackoff,
  TaskCancelledError,
  TimeoutStrategy,
  circuitBreaker,
  halfJitterGenerator,
  handleWhen,
  retry,
  timeout,
  wrap,
  type IBackoff,
  type IRetryBackoffContext,
} from 'cockatiel';

export interface ResilienceOptions {
  /** For logs/errors, e.g. 'icecat', 'blancco'. */
  name: string;
  /** Per-attempt timeout; the attempt's AbortSignal fires at it. */
  timeoutMs: number;
  /** Retries after the first attempt (0 = one attempt). */
  retries: number;
  /** Exponential backoff with jitter: first step, cap. Defaults 200 ms / 5000 ms. */
  backoff?: { initialMs: number; maxMs: number };
  /**
   * Consecutive failures that open the breaker, how long it stays open, and what counts as one:
   * an execution after its retries (default) or each request. Defaults 5 / 30 000 ms / executions.
   */
  breaker?: { failureThreshold: number; coolDownMs: number; counts?: 'executions' | 'requests' };
  /** Longest Retry-After honoured; a longer one fails at once. Default 10 000 ms. */
  retryAfterCapMs?: number;
}

export const DEFAULT_BACKOFF = Object.freeze({ initialMs: 200, maxMs: 5000 });
export const DEFAULT_BREAKER = Object.freeze({ failureThreshold: 5, coolDownMs: 30_000 });
export const DEFAULT_RETRY_AFTER_CAP_MS = 10_000;

/** Throw from the attempt to ask for a retry (5xx, 429, network error); retryAfterMs from a Retry-After header. */
export class RetryableError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'RetryableError';
  }
}

/** The attempt did not answer within timeoutMs. */
export class AttemptTimeoutError extends Error {
  override name = 'AttemptTimeoutError';
}

/** The breaker is open: no attempt was made. */
export class CircuitOpenError extends Error {
  override name = 'CircuitOpenError';
}

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface ResiliencePolicy {
  /** Runs fn with retries/timeout/breaker. Errors other than RetryableError/AttemptTimeoutError are not retried and are rethrown as they are.
   *  After the last retry, rejects with the last RetryableError or AttemptTimeoutError. */
  execute<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T>;
  breakerState(): BreakerState;
}

/** What the breaker counts and the retry retries (cockatiel's own timeout error included: it is converted on the way out). */
const isTransient = (error: unknown) =>
  error instanceof RetryableError || error instanceof AttemptTimeoutError || error instanceof TaskCancelledError;

function requireInteger(name: string, field: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`${name}: ${field} must be an integer >= ${min}`);
}

export function resiliencePolicy(options: ResilienceOptions): ResiliencePolicy {
  const { name, timeoutMs, retries } = options;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const {
    failureThreshold,
    coolDownMs,
    counts = 'executions',
  }: NonNullable<ResilienceOptions['breaker']> = options.breaker ?? DEFAULT_BREAKER;
  const retryAfterCapMs = options.retryAfterCapMs ?? DEFAULT_RETRY_AFTER_CAP_MS;
  requireInteger(name, 'timeoutMs', timeoutMs, 1);
  requireInteger(name, 'retries', retries, 0);
  requireInteger(name, 'backoff.initialMs', backoff.initialMs, 0);
  requireInteger(name, 'backoff.maxMs', backoff.maxMs, backoff.initialMs);
  requireInteger(name, 'breaker.failureThreshold', failureThreshold, 1);
  requireInteger(name, 'breaker.coolDownMs', coolDownMs, 0);
  requireInteger(name, 'retryAfterCapMs', retryAfterCapMs, 0);

  const breaker = circuitBreaker(handleWhen(isTransient), {
    halfOpenAfter: coolDownMs,
    breaker: new ConsecutiveBreaker(failureThreshold),
  });
  // cockatiel only half-opens when a call arrives after the cool-down; breakerState() reports it as due.
  let openedAt = 0;
  breaker.onBreak(() => {
    openedAt = Date.now();
  });

  const exponential = new ExponentialBackoff({ generator: halfJitterGenerator, initialDelay: backoff.initialMs, maxDelay: backoff.maxMs });
  const backoffOrRetryAfter = new DelegateBackoff<IRetryBackoffContext<unknown>, IBackoff<unknown>>((context, step) => {
    const next = step ? step.next(context) : exponential.next();
    const error = 'error' in context.result ? context.result.error : undefined;
    const retryAfterMs = error instanceof RetryableError ? error.retryAfterMs : undefined;
    return { delay: retryAfterMs ?? next.duration, state: next };
  });
  const retrying = retry(
    handleWhen(
      (error) =>
        isTransient(error) &&
        !(error instanceof RetryableError && error.retryAfterMs !== undefined && error.retryAfterMs > retryAfterCapMs) &&
        // A half-open probe gets one attempt: the server has just been failing.
        breaker.state !== CircuitState.HalfOpen,
    ),
    { maxAttempts: retries, backoff: backoffOrRetryAfter },
  );

  const attempt = timeout(timeoutMs, TimeoutStrategy.Aggressive);
  const policy = counts === 'requests' ? wrap(retrying, breaker, attempt) : wrap(breaker, retrying, attempt);

  return {
    async execute<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
      try {
        return await policy.execute(({ signal }) => fn(signal));
      } catch (error) {
        if (error instanceof TaskCancelledError)
          throw new AttemptTimeoutError(`${name} did not answer within ${timeoutMs} ms`, { cause: error });
        if (error instanceof BrokenCircuitError)
          throw new CircuitOpenError(`${name} circuit breaker is open; no attempt made`, { cause: error });
        throw error;
      }
    },
    breakerState(): BreakerState {
      if (breaker.state === CircuitState.Closed) return 'closed';
      if (breaker.state === CircuitState.HalfOpen) return 'half_open';
      return Date.now() - openedAt >= coolDownMs ? 'half_open' : 'open';
    },
  };
}

/** Retry-After: delta-seconds or an HTTP date, in milliseconds from now. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
