/**
 * Client of the Open Icecat JSON product API (GET {baseUrl}?UserName=&Language=&Brand=&ProductCode=
 * or ...&GTIN=), on the shared resilience policy (src/resilience/policy.ts): per-attempt timeouts,
 * retries with exponential backoff and jitter, Retry-After on 429, and a circuit breaker.
 *
 * Outcomes:
 * - a data-sheet (`msg: "OK"`, `data.GeneralInfo`) -> { found: true, product };
 * - Icecat's documented "no such product for you" answers -> { found: false }: error codes 4
 *   (product identifier not correct), 8 and 404 (not present in the Icecat database), 9 and 12
 *   (exists, but only for Full Icecat / another vertical; Open Icecat cannot show it);
 * - everything that means "cannot tell now" -> IcecatUnavailableError: timeouts, network errors,
 *   5xx, 429 (after retries), unparseable or unexpected answers, and account errors (codes 1-3, 5-7,
 *   10; HTTP 401/403 without a product-level code).
 *
 * Only 5xx, 429, network errors and timeouts are retried, and only they count for the breaker;
 * other 4xx and malformed answers are not retried.
 */
import {
  AttemptTimeoutError,
  CircuitOpenError,
  RetryableError,
  parseRetryAfter,
  resiliencePolicy,
  type BreakerState,
  type ResiliencePolicy,
} from '../../resilience/policy.ts';
import { looksLikeGtin, normalizeGtin } from './gtin.ts';
import { IcecatShapeError, toIcecatProduct } from './mapping.ts';
import { IcecatUnavailableError, type IcecatConfig, type IcecatLookup, type IcecatUnavailableReason } from './types.ts';

export interface IcecatClientDeps {
  fetch?: typeof fetch;
}

export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_RETRIES = 2;
export const DEFAULT_LANGUAGE = 'EN';

/** Icecat JSON error codes (Icecat manual "Which JSON and XML error messages can I get"). */
const NOT_FOUND_CODES = new Set([4, 8, 404]);
const RESTRICTED_CODES = new Set([9, 12]);
const ACCOUNT_CODES = new Set([1, 2, 3, 5, 6, 7, 10]);

const NOT_FOUND_TEXT = /not present in the icecat database|can ?not be found|not found|does not exist|identifier\(s\) is not correct/i;
const RESTRICTED_TEXT = /full icecat|limited for the current user|brand restriction|access is limited|restricted/i;

type Plan = { kind: 'gtin'; gtin: string } | { kind: 'code'; brand: string; productCode: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Asks the policy to retry; the Icecat error rides along as the cause and is what callers get. */
function retryable(error: IcecatUnavailableError): RetryableError {
  return new RetryableError(error.message, error.retryAfterMs, { cause: error });
}

export class IcecatClient {
  private readonly baseUrl: URL;
  private readonly config: Readonly<IcecatConfig>;
  private readonly fetchImpl: typeof fetch;
  private readonly policy: ResiliencePolicy;

  constructor(config: IcecatConfig, deps: IcecatClientDeps = {}) {
    if (!config || typeof config.baseUrl !== 'string' || config.baseUrl === '') throw new TypeError('IcecatConfig.baseUrl is required');
    this.baseUrl = new URL(config.baseUrl);
    if (this.baseUrl.protocol !== 'http:' && this.baseUrl.protocol !== 'https:')
      throw new TypeError('IcecatConfig.baseUrl must be http(s)');
    this.config = Object.freeze({ ...config });
    this.policy = resiliencePolicy({
      name: 'Icecat',
      timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retries: config.retries ?? DEFAULT_RETRIES,
      backoff: config.backoff,
      breaker: config.breaker,
    });
    const f = deps.fetch ?? globalThis.fetch;
    this.fetchImpl = (input, init) => f(input, init);
  }

  breakerState(): BreakerState {
    return this.policy.breakerState();
  }

  /**
   * Looks a product up by GTIN (`gtin`, or a `productCode` that looks like a GTIN) and/or by brand +
   * product code. A GTIN-looking product code with a brand is tried as GTIN first, then as
   * brand + product code. Without a usable identifier the answer is { found: false } and no
   * request is made.
   */
  async lookup(query: { brand?: string; productCode?: string; gtin?: string }): Promise<IcecatLookup> {
    for (const plan of this.plans(query ?? {})) {
      const result = await this.step(plan);
      if (result.found) return result;
    }
    return { found: false };
  }

  private plans(query: { brand?: string; productCode?: string; gtin?: string }): Plan[] {
    const plans: Plan[] = [];
    const brand = query.brand?.trim();
    const code = query.productCode?.trim();
    const gtins = new Set<string>();
    for (const candidate of [query.gtin, code]) {
      if (candidate && looksLikeGtin(candidate)) gtins.add(normalizeGtin(candidate)!);
    }
    for (const gtin of gtins) plans.push({ kind: 'gtin', gtin });
    if (brand && code) plans.push({ kind: 'code', brand, productCode: code });
    return plans;
  }

  /** One lookup step (one plan) through the policy; its failures become IcecatUnavailableError. */
  private async step(plan: Plan): Promise<IcecatLookup> {
    const url = this.url(plan);
    let attempts = 0;
    try {
      return await this.policy.execute((signal) => {
        attempts += 1;
        return this.attempt(url, plan, signal);
      });
    } catch (error) {
      if (error instanceof IcecatUnavailableError) throw error.withAttempts(attempts);
      if (error instanceof RetryableError && error.cause instanceof IcecatUnavailableError) throw error.cause.withAttempts(attempts);
      if (error instanceof AttemptTimeoutError) throw new IcecatUnavailableError('timeout', error.message, { attempts, cause: error });
      if (error instanceof CircuitOpenError)
        throw new IcecatUnavailableError('circuit_open', 'Icecat circuit breaker is open; failing fast');
      throw error;
    }
  }

  private url(plan: Plan): string {
    const url = new URL(this.baseUrl.href);
    const params = url.searchParams;
    if (this.config.username) params.set('UserName', this.config.username);
    params.set('Language', this.config.language ?? DEFAULT_LANGUAGE);
    if (plan.kind === 'gtin') {
      params.set('GTIN', plan.gtin);
    } else {
      params.set('Brand', plan.brand);
      params.set('ProductCode', plan.productCode);
    }
    return url.href;
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.config.apiToken) headers['api-token'] = this.config.apiToken;
    if (this.config.contentToken) headers['content-token'] = this.config.contentToken;
    return headers;
  }

  // ---- one attempt -----------------------------------------------------------------------

  /** One request: the answer, or throws (RetryableError for what is worth retrying). */
  private async attempt(url: string, plan: Plan, signal: AbortSignal): Promise<IcecatLookup> {
    let response: Response;
    let body: string;
    try {
      response = await this.fetchImpl(url, { method: 'GET', headers: this.headers(), signal });
      body = await response.text(); // the timeout covers the body too
    } catch (cause) {
      const detail = cause instanceof Error ? cause.message : String(cause);
      throw retryable(new IcecatUnavailableError('network', `Icecat request failed: ${detail}`, { cause }));
    }
    return this.classify(response.status, response.headers, body, plan);
  }

  private classify(status: number, headers: Headers, text: string, plan: Plan): IcecatLookup {
    const fail = (reason: IcecatUnavailableReason, message: string, extra: { retryAfterMs?: number } = {}) =>
      new IcecatUnavailableError(reason, message, { status, ...extra });

    if (status === 429) {
      const retryAfterMs = parseRetryAfter(headers.get('retry-after'));
      throw retryable(fail('rate_limited', 'Icecat rate limit reached (HTTP 429)', retryAfterMs === undefined ? {} : { retryAfterMs }));
    }
    if (status >= 500) throw retryable(fail('server_error', `Icecat answered HTTP ${status}`));
    if (status < 200 || (status >= 300 && status < 400)) throw fail('malformed_response', `Icecat answered an unexpected HTTP ${status}`);

    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      if (status === 401 || status === 403) throw fail('auth', `Icecat refused the request (HTTP ${status})`);
      throw fail('malformed_response', `Icecat answered HTTP ${status} with a body that is not JSON`);
    }
    if (!isObject(json)) throw fail('malformed_response', 'Icecat answer is not a JSON object');

    const data = json.data;
    const hasSheet = isObject(data) && isObject(data.GeneralInfo);
    if (status >= 200 && status < 300 && hasSheet) {
      try {
        const query = plan.kind === 'gtin' ? { gtin: plan.gtin } : { productCode: plan.productCode };
        return { found: true, product: toIcecatProduct(data, query) };
      } catch (error) {
        const detail = error instanceof IcecatShapeError ? error.message : 'unreadable data-sheet';
        throw fail('malformed_response', `Icecat data-sheet is malformed: ${detail}`);
      }
    }

    // Icecat's error answers: {"Message": "...", "StatusCode": n, "Code": http-like} (spellings vary).
    const code = Number(json.StatusCode ?? json.statusCode ?? json.ErrorCode);
    const message = String(json.Message ?? json.message ?? json.Error ?? json.error ?? json.msg ?? '');
    if (Number.isInteger(code)) {
      if (NOT_FOUND_CODES.has(code) || RESTRICTED_CODES.has(code)) return { found: false };
      if (ACCOUNT_CODES.has(code)) throw fail('auth', `Icecat rejected the account (code ${code}): ${message}`);
    }
    if (RESTRICTED_TEXT.test(message) || NOT_FOUND_TEXT.test(message)) return { found: false };
    if (status === 401 || status === 403) throw fail('auth', `Icecat refused the request (HTTP ${status}): ${message}`);
    if (status === 404 || status === 410) return { found: false };
    throw fail('malformed_response', `Icecat answered HTTP ${status} without a data-sheet${message ? `: ${message}` : ''}`);
  }
}
