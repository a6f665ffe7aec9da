import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { Caller } from '../auth/caller.ts';
import type { ItemProblem } from '../rest/item-refusals.ts';

/** What the service knows about the request being served, reachable from any depth. */
export interface RequestState {
  id: string;
  startedAt: number;
  ip: string;
  log: Logger;
  /** Headers to add to the response (rate-limit headers, Cache-Control of successful REST reads). */
  responseHeaders: Headers;
  /** Headers that only apply to a 2xx response. */
  successHeaders: Headers;
  /** X-Forwarded-Proto / X-Forwarded-Host, only when the peer is a trusted proxy (app.ts forwardedOrigin). */
  forwarded?: { proto?: string; host?: string };
  /** Set by access control for metered routes. */
  caller?: Caller;
  /** Coerced arguments of a successful GET /v1/footprint, for the fast path (src/footprint/fast-path.ts). */
  footprintArgs?: object;
  /** Items of a REST per-item list argument that GraphQL would refuse: index -> problems (src/rest/item-refusals.ts). */
  refusedItems?: ReadonlyMap<number, readonly ItemProblem[]>;
}

const store = new AsyncLocalStorage<RequestState>();

export const runWithRequest = <T>(state: RequestState, fn: () => T): T => store.run(state, fn);
export const currentRequest = (): RequestState | undefined => store.getStore();

/** Marks a successful response as cacheable by shared caches for `seconds`. */
export function cacheFor(seconds: number): void {
  currentRequest()?.successHeaders.set('Cache-Control', `public, max-age=${seconds}`);
}
