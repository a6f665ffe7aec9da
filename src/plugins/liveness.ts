import type { Plugin } from 'graphql-yoga';
import { currentRequest } from '../observability/request-context.ts';

export interface LivenessOptions {
  /** The route of the check (GET in the route table; other methods get its 405). */
  endpoint: string;
}

/** The process is alive: 200 {"status":"ok"} (`lcf worker` answers it too). */
export const livenessAnswer = (): Response => Response.json({ status: 'ok' });

/** Answers the liveness route. */
// Not Yoga's healthCheckEndpoint: that answers an empty body, to any method, on every URL ending in the endpoint.
export function useLiveness({ endpoint }: LivenessOptions): Plugin {
  return {
    onRequest({ endResponse }) {
      if (currentRequest()?.route?.route?.pattern === endpoint) endResponse(livenessAnswer());
    },
  };
}
