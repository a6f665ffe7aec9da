import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { RouteMatch, RouteTable } from '../kernel/routes.ts';
import type { Metrics } from '../observability/metrics.ts';
import { currentRequest, type RequestState } from '../observability/request-context.ts';
import { sendOnNode } from './node-answer.ts';

export interface LivenessOptions {
  /** The route of the check (GET in the route table; other methods get its 405). */
  endpoint: string;
}

const BODY = JSON.stringify({ status: 'ok' });

/** The process is alive: 200 {"status":"ok"} (`lcf worker` answers it too). */
export const livenessAnswer = (): Response => new Response(BODY, { headers: { 'content-type': 'application/json; charset=utf-8' } });

/** Answers the liveness route in the pipeline: what livenessOnNode leaves to it (a query string). */
// Not Yoga's healthCheckEndpoint: that answers an empty body, to any method, on every URL ending in the endpoint.
export function useLiveness({ endpoint }: LivenessOptions): Plugin {
  return {
    onRequest({ endResponse }) {
      if (currentRequest()?.route?.route?.pattern === endpoint) endResponse(livenessAnswer());
    },
  };
}

/**
 * Answers a plain `GET <endpoint>` on node:http, before Yoga: load balancers poll it, and its answer must
 * not wait behind the pipeline's work. Any other form of it (a query string) goes through the pipeline.
 * Returns true when it answered.
 */
export function livenessOnNode({ endpoint, routes, metrics }: LivenessOptions & { routes: RouteTable; metrics: Metrics }) {
  let match: RouteMatch | undefined;
  return (req: IncomingMessage, res: ServerResponse, state: RequestState): boolean => {
    if (req.url !== endpoint || req.method !== 'GET') return false;
    state.route = match ??= routes.match('GET', endpoint);
    const headers = new Map([
      ['content-type', 'application/json; charset=utf-8'],
      ['content-length', String(BODY.length)],
    ]);
    sendOnNode(res, state, metrics, { method: 'GET', pathname: endpoint, status: 200, headers, body: BODY });
    return true;
  };
}
