import type { ServerResponse } from 'node:http';
import type { Metrics } from '../observability/metrics.ts';
import type { RequestState } from '../observability/request-context.ts';
import { completeResponse } from './request-lifecycle.ts';
import { observeResponse } from './request-metrics.ts';

export interface NodeAnswer {
  method: string;
  pathname: string;
  status: number;
  /** Lower-case names, as the Fetch Headers of the pipeline's answers put them on the wire. */
  headers: Map<string, string>;
  body: string;
}

/**
 * Sends an answer made on node:http, before Yoga (liveness, the REST fast path), with what the pipeline's
 * `onResponse` hooks give every answer: X-Request-Id and the collected headers, the access-log line, the metrics.
 */
export function sendOnNode(res: ServerResponse, state: RequestState, metrics: Metrics, answer: NodeAnswer): void {
  completeResponse(state, answer.method, answer.pathname, answer.status, answer.headers);
  observeResponse(metrics, state, answer.method, answer.status);
  res.writeHead(answer.status, Object.fromEntries(answer.headers));
  res.end(answer.body);
}
