import type { ResilienceOptions } from '../../resilience/policy.ts';
import type { CatalogueSpecs } from '../catalogue-data.ts';

export interface IcecatConfig {
  /** The Open Icecat JSON endpoint, e.g. https://live.icecat.biz/api */
  baseUrl: string;
  /** Icecat account name, sent as the `UserName` query parameter. */
  username?: string;
  /** API access token, sent as the `api-token` header (alternative to IP whitelisting). */
  apiToken?: string;
  /** Content access token, sent as the `content-token` header. */
  contentToken?: string;
  /** Per-attempt timeout (connect + headers + body). Default 5000 ms. */
  timeoutMs?: number;
  /** Retries after the first attempt on 5xx, 429, network errors and timeouts. Default 2. */
  retries?: number;
  /** Exponential backoff with jitter between retries (src/resilience/policy.ts). Default { initialMs: 200, maxMs: 5000 }. */
  backoff?: ResilienceOptions['backoff'];
  /** Circuit breaker. Default { failureThreshold: 5, coolDownMs: 30000 }. */
  breaker?: ResilienceOptions['breaker'];
  /** Icecat language short code, sent as `Language`. Default "EN". */
  language?: string;
}

/** Icecat features mapped onto the service's spec fields (the same fields as the built-in catalogue). */
export type IcecatSpecs = CatalogueSpecs;

export interface IcecatProduct {
  icecat_id: number;
  brand: string;
  mpn: string;
  name: string;
  icecat_category: string;
  mapped_category: string | null;
  specs: IcecatSpecs;
  gtin?: string;
}

export type IcecatLookup = { found: true; product: IcecatProduct } | { found: false };

export type IcecatUnavailableReason =
  | 'timeout'
  | 'network'
  | 'server_error'
  | 'rate_limited'
  | 'circuit_open'
  | 'malformed_response'
  | 'auth';

/** Icecat cannot answer now: the caller should fall back (parametric estimate) or report 503. */
export class IcecatUnavailableError extends Error {
  readonly reason: IcecatUnavailableReason;
  /** HTTP status of the last answer, when there was one. */
  readonly status?: number;
  /** Requests made for the failed lookup step (0 when the circuit was open). */
  readonly attempts: number;
  /** Milliseconds the server asked to wait (429 Retry-After), when given. */
  readonly retryAfterMs?: number;

  constructor(
    reason: IcecatUnavailableReason,
    message: string,
    options: { status?: number; attempts?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'IcecatUnavailableError';
    this.reason = reason;
    if (options.status !== undefined) this.status = options.status;
    this.attempts = options.attempts ?? 0;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  /** The same error, recording how many attempts were made. */
  withAttempts(attempts: number): IcecatUnavailableError {
    const copy = new IcecatUnavailableError(this.reason, this.message, {
      ...(this.status !== undefined ? { status: this.status } : {}),
      ...(this.retryAfterMs !== undefined ? { retryAfterMs: this.retryAfterMs } : {}),
      attempts,
      cause: this.cause,
    });
    return copy;
  }
}
