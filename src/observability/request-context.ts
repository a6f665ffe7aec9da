import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';

/**
 * What the service knows about the request being served, reachable from any depth. A feature that keeps
 * state of its own here declares its field next to its code (`declare module`), so this kernel module
 * imports no feature.
 */
export interface RequestState {
  id: string;
  startedAt: number;
  ip: string;
  log: Logger;
  /** Whether info lines (the access log) are written: checked before `log`, whose child logger costs more than a request on the hot path. */
  logsInfo: boolean;
  /** Headers to add to the response (rate-limit headers), by lower-case name. */
  responseHeaders: Map<string, string>;
  /** Headers that only apply to a 2xx response (Cache-Control of successful REST reads), by lower-case name. */
  successHeaders: Map<string, string>;
  /** X-Forwarded-Proto / X-Forwarded-Host, only when the peer is a trusted proxy (app.ts forwardedOrigin). */
  forwarded?: { proto?: string; host?: string };
}

const store = new AsyncLocalStorage<RequestState>();

export const runWithRequest = <T>(state: RequestState, fn: () => T): T => store.run(state, fn);
export const currentRequest = (): RequestState | undefined => store.getStore();

/** Marks a successful response as cacheable by shared caches for `seconds`. */
export function cacheFor(seconds: number): void {
  currentRequest()?.successHeaders.set('cache-control', `public, max-age=${seconds}`);
}

/** The state of a new request: the client's X-Request-Id when it is a plain token, else a new UUID. */
export function newRequestState(log: Logger, requestId: string | string[] | null | undefined, ip: string): RequestState {
  const id = typeof requestId === 'string' && /^[\w.-]{1,100}$/.test(requestId) ? requestId : randomUUID();
  return {
    id,
    ip,
    startedAt: performance.now(),
    logsInfo: log.isLevelEnabled('info'),
    // A child logger per request costs more than most requests on the hot path: made when first used.
    get log() {
      const child = log.child({ req_id: id });
      Object.defineProperty(this, 'log', { value: child });
      return child;
    },
    // Maps, not Fetch Headers: made for every request, and a Headers costs several times a Map.
    responseHeaders: new Map(),
    successHeaders: new Map(),
  };
}
