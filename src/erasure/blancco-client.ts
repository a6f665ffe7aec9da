/**
 * Client of the Blancco Management Portal's report export API (docs/erasure-sync.md, "The portal
 * API as modelled"): POST {base}/v1/report/export with the X-BLANCCO-API-KEY header, JSON reports,
 * cursor pagination through the X-BLANCCO-CURSOR response header. Every request goes through the
 * shared resilience policy (per-attempt timeout, retries with backoff and jitter, circuit breaker)
 * and connects only to the addresses the URL guard checked.
 */
import { ApiError } from '../errors/api-error.ts';
import { parseOutboundUrl, resolvePublicHost } from '../net/url-guard.ts';
import { pinnedPost } from '../net/pinned-request.ts';
import {
  AttemptTimeoutError,
  CircuitOpenError,
  DEFAULT_BREAKER,
  RetryableError,
  parseRetryAfter,
  resiliencePolicy,
  type ResiliencePolicy,
} from '../resilience/policy.ts';
import { SERVICE_VERSION } from '../version.ts';
import { REST_BASE } from '../kernel/paths.ts';
import type { ErrorCode } from '../errors/codes.ts';

export const EXPORT_PATH = `${REST_BASE}/report/export`;
/** The page the portal answers when the request names no `size`: at most this many reports. */
export const PORTAL_DEFAULT_PAGE = 100;
/** The largest `size` the portal documents (1 to 10). */
export const PORTAL_SIZE_MAX = 10;
/** A page of 100 reports is a few hundred kilobytes; anything far past that is not an answer we can use. */
const MAX_PAGE_BYTES = 32 * 1024 * 1024;
const USER_AGENT = `LCF-ErasureSync/${SERVICE_VERSION}`;
const RETRIES = 2;

export interface ReportPageRequest {
  /** Only reports dated at or after this instant. */
  since: Date | null;
  onlySuccessful: boolean;
  /** 1 to PORTAL_SIZE_MAX; undefined: the portal's default page (at most PORTAL_DEFAULT_PAGE). */
  size: number | undefined;
  cursor: string | null;
}

export interface ReportPage {
  body: unknown;
  /** Where the next page starts; null on the last page. */
  cursor: string | null;
}

const consoleError = (status: number, code: ErrorCode, details: string, headers?: Record<string, string>) =>
  new ApiError(status, code, status === 409 ? 'Erasure connection misconfigured' : 'Erasure console unavailable', details, headers);

/** One policy (and so one circuit breaker) per portal origin: an outage of one region does not stop the others. */
const policies = new Map<string, ResiliencePolicy>();
function policyFor(origin: string, timeoutMs: number): ResiliencePolicy {
  let policy = policies.get(origin);
  if (!policy) {
    // The breaker counts portal requests, retries included (docs/erasure-sync.md).
    policy = resiliencePolicy({
      name: `blancco ${origin}`,
      timeoutMs,
      retries: RETRIES,
      breaker: { ...DEFAULT_BREAKER, counts: 'requests' },
    });
    policies.set(origin, policy);
  }
  return policy;
}

export class BlanccoClient {
  private readonly url: URL;
  private readonly policy: ResiliencePolicy;

  constructor(
    baseUrl: string,
    private readonly apiKey: string,
    private readonly options: { timeoutMs: number; allowPrivateUrls: boolean },
  ) {
    const base = parseOutboundUrl(baseUrl, 'base_url');
    this.url = new URL(`${base.pathname.replace(/\/+$/, '')}${EXPORT_PATH}`, base);
    this.policy = policyFor(base.origin, options.timeoutMs);
  }

  /** One page of reports, or an ApiError: 409 when the portal refuses the key, 502/503 when it cannot answer usefully. */
  async exportPage(request: ReportPageRequest): Promise<ReportPage> {
    const resolution = await resolvePublicHost(this.url, this.options.allowPrivateUrls);
    if ('refused' in resolution) {
      throw consoleError(
        409,
        'ERASURE_CONSOLE_URL_NOT_ALLOWED',
        `base_url: ${resolution.refused}; configure the connection with the portal's public API address`,
      );
    }
    const filter: Record<string, unknown> = {};
    if (request.since) filter.date = { gte: request.since.toISOString() };
    if (request.onlySuccessful) filter.erasure_state = { eq: 'Successful' };
    const body = JSON.stringify({
      filter,
      format: 'JSON',
      container: 'NONE',
      ...(request.size === undefined ? {} : { size: Math.min(Math.max(1, request.size), PORTAL_SIZE_MAX) }),
      ...(request.cursor ? { cursor: request.cursor } : {}),
    });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': USER_AGENT,
      'x-blancco-api-key': this.apiKey,
    };
    try {
      return await this.policy.execute(async (signal) => {
        let answer: Awaited<ReturnType<typeof pinnedPost>>;
        try {
          answer = await pinnedPost(this.url, resolution.addresses, { headers, body, maxBytes: MAX_PAGE_BYTES, signal });
        } catch (error) {
          if (signal.aborted) throw error;
          throw new RetryableError(`network error: ${(error as { code?: string }).code ?? (error as Error).message}`, undefined, {
            cause: error,
          });
        }
        if (answer.status === 429 || answer.status >= 500) {
          throw new RetryableError(`HTTP ${answer.status}`, parseRetryAfter(headerValue(answer.headers['retry-after'])));
        }
        if (answer.status === 401 || answer.status === 403) {
          throw consoleError(
            409,
            'ERASURE_CREDENTIALS_REJECTED',
            `the erasure console refused the stored API key (HTTP ${answer.status}); configure the connection again with a valid key`,
          );
        }
        if (answer.status !== 200)
          throw consoleError(502, 'ERASURE_CONSOLE_ERROR', `the erasure console answered HTTP ${answer.status} to the report export`);
        if (answer.truncated)
          throw consoleError(502, 'ERASURE_CONSOLE_BAD_RESPONSE', `a page of reports was larger than ${MAX_PAGE_BYTES} bytes`);
        let parsed: unknown;
        try {
          parsed = JSON.parse(answer.body.toString('utf8'));
        } catch {
          throw consoleError(502, 'ERASURE_CONSOLE_BAD_RESPONSE', 'the erasure console answered something that is not JSON');
        }
        return { body: parsed, cursor: headerValue(answer.headers['x-blancco-cursor'])?.trim() || null };
      });
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (error instanceof CircuitOpenError) {
        throw consoleError(
          503,
          'ERASURE_CONSOLE_UNAVAILABLE',
          'the erasure console failed repeatedly and is not being called for a while; try again later',
          { 'Retry-After': '30' },
        );
      }
      if (error instanceof AttemptTimeoutError) {
        throw consoleError(
          502,
          'ERASURE_CONSOLE_TIMEOUT',
          `the erasure console did not answer within ${this.options.timeoutMs} ms (${RETRIES + 1} attempts)`,
        );
      }
      if (error instanceof RetryableError) {
        const rateLimited = error.message === 'HTTP 429';
        throw consoleError(
          rateLimited ? 503 : 502,
          rateLimited ? 'ERASURE_CONSOLE_RATE_LIMITED' : 'ERASURE_CONSOLE_UNAVAILABLE',
          `the erasure console could not be used (${error.message}, ${RETRIES + 1} attempts)`,
          rateLimited && error.retryAfterMs !== undefined ? { 'Retry-After': String(Math.ceil(error.retryAfterMs / 1000)) } : undefined,
        );
      }
      throw error;
    }
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}
