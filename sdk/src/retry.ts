/** A fetch function: what the client sends every request through. */
export type Fetch = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

export interface RetryOptions {
  /** Attempts in all, the first included (default 3; 1 never retries). */
  attempts?: number;
  /** Statuses answered with a retry (default 429 and 503). */
  statuses?: readonly number[];
  /** The longest wait honoured, in ms (default 60 000): a refusal asking for longer is answered as it is. */
  maxDelayMs?: number;
  /** The wait when the answer names none, in ms (default 1 000), doubled after each attempt. */
  baseDelayMs?: number;
  /** Up to this fraction of the wait is added at random (default 0: none), so clients refused together do not return together. */
  jitter?: number;
  /** How to wait (default setTimeout); tests pass their own. */
  sleep?: (ms: number) => Promise<void>;
  /** A new Idempotency-Key (default crypto.randomUUID()). */
  idempotencyKey?: () => string;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * How long a refusal asks to wait, in ms: its Retry-After header (seconds or an HTTP date), else the
 * `retry_after_seconds` of its JSON body (the service's rate-limit body); undefined when it names none.
 */
export async function retryAfterMs(response: Response, now = Date.now()): Promise<number | undefined> {
  const header = response.headers.get('retry-after')?.trim();
  if (header) {
    if (/^\d+$/.test(header)) return Number(header) * 1000;
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  const seconds = (body as { retry_after_seconds?: unknown } | undefined)?.retry_after_seconds;
  return typeof seconds === 'number' && seconds >= 0 ? seconds * 1000 : undefined;
}

/**
 * `fetch` that answers 429 and 503 by waiting as the answer asks (Retry-After) and sending the
 * request again, up to `attempts` in all. A request that changes something (any method but GET,
 * HEAD and OPTIONS) gets one Idempotency-Key for the whole call, unless it carries one already, and
 * every attempt sends that same key: the service then does the work once however often it is sent.
 * The last answer is returned as it is, refusals included.
 */
export function withRetry(fetchImpl: Fetch, options: RetryOptions = {}): Fetch {
  const {
    attempts = 3,
    statuses = [429, 503],
    maxDelayMs = 60_000,
    baseDelayMs = 1_000,
    jitter = 0,
    sleep = defaultSleep,
    idempotencyKey = () => crypto.randomUUID(),
  } = options;
  return async (input, init) => {
    const request = new Request(input, init);
    if (!SAFE_METHODS.has(request.method) && !request.headers.has('idempotency-key'))
      request.headers.set('Idempotency-Key', idempotencyKey());
    for (let attempt = 1; ; attempt++) {
      // A request's body can be read once: each attempt but the last sends a copy.
      const response = await fetchImpl(attempt < attempts ? request.clone() : request);
      if (attempt >= attempts || !statuses.includes(response.status)) return response;
      const asked = (await retryAfterMs(response)) ?? baseDelayMs * 2 ** (attempt - 1);
      if (asked > maxDelayMs) return response;
      // Frees the connection; not awaited: cancelling one branch of a cloned body settles only when the other is cancelled too.
      response.body?.cancel().catch(() => {});
      await sleep(asked + Math.random() * jitter * asked);
    }
  };
}
