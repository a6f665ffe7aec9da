import type { Plugin } from 'graphql-yoga';
import { RateLimitError } from '../errors/api-error.ts';
import { errorResponse } from '../errors/render.ts';
import { currentRequest, type RequestState } from '../observability/request-context.ts';
import type { Metrics } from '../observability/metrics.ts';
import { anonymousCaller, authenticate, type Caller, type KeyStore } from './caller.ts';
import { accessRefusal } from './access.ts';
import { rateLimitHeaders, type QuotaDecision, type QuotaService, type QuotaSubject } from './quota/index.ts';
import { DOCS_PATH, OPENAPI_PATH, REST_BASE } from '../kernel/paths.ts';

declare module '../observability/request-context.ts' {
  interface RequestState {
    /** Who is calling, set by access control for metered routes. */
    caller?: Caller;
    /** The request the quota admitted for this answer (checkQuota), given back when the answer is a refusal. */
    spentQuota?: SpentQuota;
  }
}

interface SpentQuota {
  subject: QuotaSubject;
  /** When it was counted: the day and minute to give it back to. */
  at: Date;
  decision: QuotaDecision;
  /** The answer is served without doing the work (a replayed answer, src/idempotency/): given back like a refusal. */
  free?: true;
}

/**
 * Who is calling the request being served: the caller access control authenticated, or, where it did
 * not run (routes outside /v1) or found no key, the anonymous caller of the client's address.
 */
export function currentCaller(): Caller {
  const state = currentRequest();
  return state?.caller ?? anonymousCaller(state?.ip ?? 'unknown');
}

/** Routes of the product API that are authenticated and counted: everything under /v1 but its documentation. */
export function isMetered(pathname: string): boolean {
  return pathname.startsWith(`${REST_BASE}/`) && pathname !== OPENAPI_PATH && !pathname.startsWith(DOCS_PATH);
}

// Usage is the key's organisation's, also for test keys (whose data is their sandbox's).
export const subjectOf = (caller: Caller): QuotaSubject =>
  caller.kind === 'key'
    ? { kind: 'key', keyId: caller.keyId, orgId: caller.keyOrgId, plan: caller.plan }
    : { kind: 'anonymous', ip: caller.ip };

/** What access control works with, handed down from the services built at start-up. */
export interface AccessServices {
  keys: KeyStore;
  quota: QuotaService;
  metrics: Metrics;
}

export interface AccessControlOptions {
  graphqlEndpoint: string;
}

/**
 * Counts the request against the caller's daily and per-minute budget and collects the decision's
 * rate-limit headers for the answer. A refusal consumes nothing: the REST fast path, which
 * leaves a refused request to the pipeline, checks it again there. An admitted request is kept in the
 * request state, so that a refusal further on can give it back (useAccessControl).
 */
export async function checkQuota(services: Pick<AccessServices, 'quota'>, caller: Caller): Promise<QuotaDecision> {
  const subject = subjectOf(caller);
  const at = new Date();
  const decision = await services.quota.check(subject, at);
  const state = currentRequest()!;
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) state.responseHeaders.set(name.toLowerCase(), value);
  if (decision.allowed) state.spentQuota = { subject, at, decision };
  return decision;
}

/**
 * Gives back the request checkQuota admitted for this request, if any (its answer is a refusal, or the
 * request is handed on to be counted again): its decision, or undefined when there was none or the store
 * failed (the unit then stays spent).
 */
export async function giveBackQuota(services: Pick<AccessServices, 'quota'>, state: RequestState): Promise<QuotaDecision | undefined> {
  const spent = state.spentQuota;
  if (!spent) return undefined;
  state.spentQuota = undefined;
  try {
    await services.quota.release(spent.subject, spent.at);
    return spent.decision;
  } catch (error) {
    state.log.warn({ err: error }, 'quota release failed');
    return undefined;
  }
}

/**
 * The answer to this request does no work (an idempotent replay, src/idempotency/): the request the quota
 * admitted is given back on the answer, as a refusal's is, so a repeat costs no budget.
 */
export function answerCostsNothing(state: RequestState): void {
  if (state.spentQuota) state.spentQuota.free = true;
}

/** Counts the request against the caller's daily and per-minute budget (checkQuota); 429 when one is used up. */
export async function countRequest(services: Pick<AccessServices, 'quota' | 'metrics'>, caller: Caller): Promise<void> {
  const decision = await checkQuota(services, caller);
  if (!decision.allowed) {
    services.metrics.quotaRefused(decision.plan, decision.exceeded ?? 'day');
    const window = decision.exceeded === 'minute' ? 'per-minute' : 'daily';
    const limit = decision.exceeded === 'minute' ? decision.minute.limit : decision.limit;
    throw new RateLimitError(
      decision.exceeded === 'minute' ? 'RATE_LIMITED_MINUTE' : 'RATE_LIMITED_DAY',
      `The ${window} limit of ${limit} requests of the ${decision.plan} plan is used up; retry after ${decision.retryAfterSeconds} s.`,
      decision.retryAfterSeconds ?? 1,
      // Its window's headers are the ones set above for every metered answer (rateLimitHeaders).
      undefined,
    );
  }
}

/**
 * Authentication and quotas for REST and GraphQL alike, before either runs: who is calling (a bad key
 * is a 401 on every route, no key a 401 on every route that is not public: neither spends any budget),
 * then one shared budget per key (per client IP without a key). The request is counted before its
 * route runs, atomically, so the limit holds under concurrency; an answer that refuses it (any 4xx: a
 * bad parameter, no such route, too low a plan, another allowance used up) gives it back, so only
 * what is served costs; so does a replayed answer (answerCostsNothing). The caller is kept in the request state for the GraphQL context.
 */
export function useAccessControl(services: AccessServices, { graphqlEndpoint }: AccessControlOptions): Plugin {
  return {
    async onRequest({ request, url, endResponse }) {
      if (!isMetered(url.pathname)) return;
      const state = currentRequest()!;
      try {
        const caller = await authenticate(request.headers.get('authorization'), state.ip, services.keys);
        // A keyed route refuses a caller without a key before anything is counted: the route's own 401.
        const route = state.route?.route;
        if (caller.kind === 'anonymous' && route?.access) {
          const refusal = accessRefusal(route.access, caller, { missingKey: route.missingKey });
          if (refusal) throw refusal;
        }
        await countRequest(services, caller);
        state.caller = caller;
      } catch (error) {
        endResponse(errorResponse([error], { graphql: url.pathname === graphqlEndpoint }));
      }
    },
    async onResponse({ response }) {
      const state = currentRequest();
      const refusal = response.status >= 400 && response.status < 500;
      if (!state?.spentQuota || !(refusal || state.spentQuota.free)) return;
      // A failed release leaves the unit spent (as if served); the refusal is answered all the same.
      const decision = await giveBackQuota(services, state);
      if (!decision) return;
      // This answer's remaining counts the request given back.
      response.headers.set('X-RateLimit-Remaining', String(Math.min(decision.limit, decision.remaining + 1)));
      // Every 429 has X-RateLimit-Reset (spec); one of another allowance gets the request quota's day, never that allowance's.
      if (response.status === 429) response.headers.set('X-RateLimit-Reset', String(decision.reset));
    },
  };
}
