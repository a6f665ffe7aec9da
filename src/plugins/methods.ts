import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorResponse } from '../errors/render.ts';
import { writeNodeResponse } from '../kernel/node-response.ts';
import { unanswered, type RouteTable } from '../kernel/routes.ts';
import type { RequestState } from '../observability/request-context.ts';
import type { Metrics } from '../observability/metrics.ts';
import { completeResponse } from './request-lifecycle.ts';
import { observeResponse } from './request-metrics.ts';

export interface MethodsOptions {
  routes: RouteTable;
  metrics: Metrics;
}

// The one method Node's parser passes to the handler that the Fetch API refuses to carry (new Request
// throws); CONNECT goes to the server's 'connect' event instead (answerClientErrors).
const UNFETCHABLE = 'TRACE';

/**
 * The HTTP methods, on node:http before the pipeline: HEAD is served as GET (Node sends the
 * headers and leaves the body out of a HEAD response), and TRACE, which cannot enter Yoga, gets the
 * route table's answer, a 405 with Allow or a 404, with a JSON body, as every
 * other method a route does not take does in useRouteNotFound. Returns true when it answered.
 */
export function methodsStage({ routes, metrics }: MethodsOptions) {
  return (req: IncomingMessage, res: ServerResponse, state: RequestState): boolean => {
    if (req.method === 'HEAD') req.method = 'GET';
    const method = req.method ?? 'GET';
    if (method !== UNFETCHABLE) return false;
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    state.route = routes.match(method, pathname);
    const response = errorResponse([unanswered(routes, state.route, method, pathname)]);
    completeResponse(state, method, pathname, response.status, response.headers);
    observeResponse(metrics, state, method, response.status);
    void writeNodeResponse(res, response);
    return true;
  };
}
