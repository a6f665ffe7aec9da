/**
 * Client of the Open Icecat JSON product API (GET {baseUrl}?UserName=&Language=&Brand=&ProductCode=
 * or ...&GTIN=), with per-attempt timeouts, retries with exponential backoff and jitter, Retry-After
 * on 429, and a circuit breaker.
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
 * Only 5xx, 429, network errors and timeouts are retried; other 4xx and malformed answers are not.
 */
import { looksLikeGtin, normalizeGtin } from './gtin.ts';
import { IcecatShapeError, toIcecatProduct } from './mapping.ts';
import { IcecatUnavailableError, type IcecatConfig, type IcecatLookup, type IcecatUnavailableReason } from './types.ts';

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface IcecatClientDeps {
  fetch?: typeof fetch;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_RETRIES = 2;
export const DEFAULT_BREAKER = Object.freeze({ failureThreshold: 5, coolDownMs: 30_000 });
export const DEFAULT_LANGUAGE = 'EN';
/** First backoff step; doubles per retry, capped at {@link BACKOFF_MAX_MS}, with jitter. */
export const BACKOFF_BASE_MS = 200;
export const BACKOFF_MAX_MS = 5000;
/** Longest Retry-After the client waits for; a longer one fails the lookup at once as rate_limited. */
export const RETRY_AFTER_CAP_MS = 10_000;

/** Icecat JSON error codes (Icecat manual "Which JSON and XML error messages can I get"). */
const NOT_FOUND_CODES = new Set([4, 8, 404]);
const RESTRICTED_CODES = new Set([9, 12]);
const ACCOUNT_CODES = new Set([1, 2, 3, 5, 6, 7, 10]);

const NOT_FOUND_TEXT = /not present in the icecat database|can ?not be found|not found|does not exist|identifier\(s\) is not correct/i;
const RESTRICTED_TEXT = /full icecat|limited for the current user|brand restriction|access is limited|restricted/i;

type Plan = { kind: 'gtin'; gtin: string } | { kind: 'code'; brand: string; productCode: string };

type AttemptOutcome =
  | { kind: 'answer'; lookup: IcecatLookup }
  | { kind: 'retryable'; error: IcecatUnavailableError; retryAfterMs?: number }
  | { kind: 'fatal'; error: IcecatUnavailableError };

function realSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function intOption(value: number | undefined, fallback: number, name: string, min = 0): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < min) throw new RangeError(`IcecatConfig.${name} must be a number >= ${min}`);
  return Math.floor(value);
}

/** Retry-After: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

export class IcecatClient {
  private readonly baseUrl: URL;
  private readonly config: Readonly<IcecatConfig>;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly failureThreshold: number;
  private readonly coolDownMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  private state: 'closed' | 'open' = 'closed';
  private consecutiveFailures = 0;
  private openedAt = 0;
  private probeInFlight = false;

  constructor(config: IcecatConfig, deps: IcecatClientDeps = {}) {
    if (!config || typeof config.baseUrl !== 'string' || config.baseUrl === '') throw new TypeError('IcecatConfig.baseUrl is required');
    this.baseUrl = new URL(config.baseUrl);
    if (this.baseUrl.protocol !== 'http:' && this.baseUrl.protocol !== 'https:') throw new TypeError('IcecatConfig.baseUrl must be http(s)');
    this.config = Object.freeze({ ...config });
    this.timeoutMs = intOption(config.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs', 1);
    this.retries = intOption(config.retries, DEFAULT_RETRIES, 'retries');
    const breaker = config.breaker ?? DEFAULT_BREAKER;
    this.failureThreshold = intOption(breaker.failureThreshold, DEFAULT_BREAKER.failureThreshold, 'breaker.failureThreshold', 1);
    this.coolDownMs = intOption(breaker.coolDownMs, DEFAULT_BREAKER.coolDownMs, 'breaker.coolDownMs');
    const f = deps.fetch ?? globalThis.fetch;
    this.fetchImpl = (input, init) => f(input, init);
    this.now = deps.now ?? Date.now;
    this.sleep = deps.sleep ?? realSleep;
    this.random = deps.random ?? Math.random;
  }

  breakerState(): BreakerState {
    if (this.state === 'open') return this.now() - this.openedAt >= this.coolDownMs ? 'half_open' : 'open';
    return 'closed';
  }

  /**
   * Looks a product up by GTIN (`gtin`, or a `productCode` that looks like a GTIN) and/or by brand +
   * product code. A GTIN-looking product code with a brand is tried as GTIN first, then as
   * brand + product code. Without a usable identifier the answer is { found: false } and no
   * request is made.
   */
  async lookup(query: { brand?: string; productCode?: string; gtin?: string }): Promise<IcecatLookup> {
    for (const plan of this.plans(query ?? {})) {
      const result = await this.guarded((probe) => this.run(plan, probe));
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

  // ---- circuit breaker -------------------------------------------------------------------

  private async guarded(step: (probe: boolean) => Promise<IcecatLookup>): Promise<IcecatLookup> {
    const state = this.breakerState();
    let probe = false;
    if (state === 'open' || (state === 'half_open' && this.probeInFlight)) {
      throw new IcecatUnavailableError('circuit_open', 'Icecat circuit breaker is open; failing fast', { attempts: 0 });
    }
    if (state === 'half_open') {
      probe = true;
      this.probeInFlight = true;
    }
    try {
      const result = await step(probe);
      this.state = 'closed';
      this.consecutiveFailures = 0;
      return result;
    } catch (error) {
      if (error instanceof IcecatUnavailableError) {
        this.consecutiveFailures += 1;
        if (probe || this.consecutiveFailures >= this.failureThreshold) {
          this.state = 'open';
          this.openedAt = this.now();
        }
      }
      throw error;
    } finally {
      if (probe) this.probeInFlight = false;
    }
  }

  // ---- retries ---------------------------------------------------------------------------

  /** One lookup step with retries. A half-open probe gets a single attempt. */
  private async run(plan: Plan, probe: boolean): Promise<IcecatLookup> {
    const maxAttempts = probe ? 1 : 1 + this.retries;
    const url = this.url(plan);
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(url, plan);
      if (outcome.kind === 'answer') return outcome.lookup;
      if (outcome.kind === 'fatal' || attempt >= maxAttempts) throw outcome.error.withAttempts(attempt);
      let delay: number;
      if (outcome.retryAfterMs !== undefined) {
        if (outcome.retryAfterMs > RETRY_AFTER_CAP_MS) throw outcome.error.withAttempts(attempt);
        delay = outcome.retryAfterMs;
      } else {
        delay = this.backoff(attempt);
      }
      await this.sleep(delay);
    }
  }

  /** Exponential backoff with "equal jitter": half fixed, half random. */
  private backoff(attempt: number): number {
    const exp = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
    const r = Math.min(1, Math.max(0, this.random()));
    return Math.round(exp / 2 + r * (exp / 2));
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

  private async attempt(url: string, plan: Plan): Promise<AttemptOutcome> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    timer.unref?.();
    let status: number;
    let headers: Headers;
    let body: string;
    try {
      const response = await this.fetchImpl(url, { method: 'GET', headers: this.headers(), signal: controller.signal });
      status = response.status;
      headers = response.headers;
      body = await response.text(); // the timeout covers the body too
    } catch (cause) {
      if (timedOut) {
        return { kind: 'retryable', error: new IcecatUnavailableError('timeout', `Icecat did not answer within ${this.timeoutMs} ms`, { cause }) };
      }
      const detail = cause instanceof Error ? cause.message : String(cause);
      return { kind: 'retryable', error: new IcecatUnavailableError('network', `Icecat request failed: ${detail}`, { cause }) };
    } finally {
      clearTimeout(timer);
    }
    return this.classify(status, headers, body, plan);
  }

  private classify(status: number, headers: Headers, text: string, plan: Plan): AttemptOutcome {
    const fail = (reason: IcecatUnavailableReason, message: string, extra: { retryAfterMs?: number } = {}) =>
      new IcecatUnavailableError(reason, message, { status, ...extra });

    if (status === 429) {
      const retryAfterMs = parseRetryAfter(headers.get('retry-after'), this.now());
      const error = fail('rate_limited', 'Icecat rate limit reached (HTTP 429)', retryAfterMs === undefined ? {} : { retryAfterMs });
      return retryAfterMs === undefined ? { kind: 'retryable', error } : { kind: 'retryable', error, retryAfterMs };
    }
    if (status >= 500) return { kind: 'retryable', error: fail('server_error', `Icecat answered HTTP ${status}`) };
    if (status < 200 || (status >= 300 && status < 400)) {
      return { kind: 'fatal', error: fail('malformed_response', `Icecat answered an unexpected HTTP ${status}`) };
    }

    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      if (status === 401 || status === 403) return { kind: 'fatal', error: fail('auth', `Icecat refused the request (HTTP ${status})`) };
      return { kind: 'fatal', error: fail('malformed_response', `Icecat answered HTTP ${status} with a body that is not JSON`) };
    }
    if (!isObject(json)) return { kind: 'fatal', error: fail('malformed_response', 'Icecat answer is not a JSON object') };

    const data = json.data;
    const hasSheet = isObject(data) && isObject(data.GeneralInfo);
    if (status >= 200 && status < 300 && hasSheet) {
      try {
        const query = plan.kind === 'gtin' ? { gtin: plan.gtin } : { productCode: plan.productCode };
        return { kind: 'answer', lookup: { found: true, product: toIcecatProduct(data, query) } };
      } catch (error) {
        const detail = error instanceof IcecatShapeError ? error.message : 'unreadable data-sheet';
        return { kind: 'fatal', error: fail('malformed_response', `Icecat data-sheet is malformed: ${detail}`) };
      }
    }

    // Icecat's error answers: {"Message": "...", "StatusCode": n, "Code": http-like} (spellings vary).
    const code = Number(json.StatusCode ?? json.statusCode ?? json.ErrorCode);
    const message = String(json.Message ?? json.message ?? json.Error ?? json.error ?? json.msg ?? '');
    if (Number.isInteger(code)) {
      if (NOT_FOUND_CODES.has(code) || RESTRICTED_CODES.has(code)) return { kind: 'answer', lookup: { found: false } };
      if (ACCOUNT_CODES.has(code)) return { kind: 'fatal', error: fail('auth', `Icecat rejected the account (code ${code}): ${message}`) };
    }
    if (RESTRICTED_TEXT.test(message) || NOT_FOUND_TEXT.test(message)) return { kind: 'answer', lookup: { found: false } };
    if (status === 401 || status === 403) return { kind: 'fatal', error: fail('auth', `Icecat refused the request (HTTP ${status}): ${message}`) };
    if (status === 404 || status === 410) return { kind: 'answer', lookup: { found: false } };
    return {
      kind: 'fatal',
      error: fail('malformed_response', `Icecat answered HTTP ${status} without a data-sheet${message ? `: ${message}` : ''}`),
    };
  }
}
