import type { Plugin } from 'graphql-yoga';
import { currentRequest, type RequestState } from '../observability/request-context.ts';

/** Where an answer's headers go: its Response's Headers, or the Map of lower-case names the fast path writes on node:http. */
type HeaderSink = Pick<Headers, 'has' | 'set'>;

/**
 * Completes an answer: its X-Request-Id, the headers the stages collected in the request state
 * (rate-limit headers; Cache-Control and Vary of a successful GET), and the request's access-log
 * line. For every answer of the pipeline, and for those made on node:http (sendOnNode).
 */
export function completeResponse(state: RequestState, method: string, pathname: string, status: number, headers: HeaderSink): void {
  // In lower case, as Headers gives every other name to a Map.
  headers.set('x-request-id', state.id);
  // Headers the response set itself (a route's own rate-limit window on its 429) win over the pipeline's.
  state.responseHeaders.forEach((value, name) => headers.has(name) || headers.set(name, value));
  if (status >= 200 && status < 300 && method === 'GET') {
    state.successHeaders.forEach((value, name) => headers.set(name, value));
  }
  if (state.logsInfo)
    state.log.info({ method, path: pathname, status, ms: Math.round((performance.now() - state.startedAt) * 10) / 10 }, 'request');
}

/** Request id, response headers collected during the request, and one access-log line (completeResponse). */
export function useRequestLifecycle(): Plugin {
  return {
    onResponse({ request, response }) {
      const state = currentRequest();
      if (state) completeResponse(state, request.method, new URL(request.url).pathname, response.status, response.headers);
    },
  };
}
