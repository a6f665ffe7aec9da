import type { Plugin } from 'graphql-yoga';
import { UNMATCHED_ROUTE, type Metrics } from '../observability/metrics.ts';
import { currentRequest, type RequestState } from '../observability/request-context.ts';

export interface RequestMetricsOptions {
  metrics: Metrics;
}

/** Counts an answer, labelled by its route's pattern (useRouting): for the pipeline's answers and those made on node:http (sendOnNode). */
export function observeResponse(metrics: Metrics, state: RequestState, method: string, status: number): void {
  metrics.observeRequest(method, state.route?.pattern ?? UNMATCHED_ROUTE, status, state.startedAt);
}

/** Counts every response of the pipeline (observeResponse). */
export function useRequestMetrics({ metrics }: RequestMetricsOptions): Plugin {
  return {
    onResponse({ request, response }) {
      const state = currentRequest();
      if (state) observeResponse(metrics, state, request.method, response.status);
    },
  };
}
