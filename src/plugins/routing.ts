import type { Plugin } from 'graphql-yoga';
import type { RouteTable } from '../kernel/routes.ts';
import { currentRequest } from '../observability/request-context.ts';

export interface RoutingOptions {
  /** Every route of the service. */
  routes: RouteTable;
}

/** Looks the request up in the route table, once, first in the pipeline; the answer is kept in the request state. */
export function useRouting({ routes }: RoutingOptions): Plugin {
  return {
    onRequest({ request, url }) {
      const state = currentRequest();
      if (state) state.route = routes.match(request.method, url.pathname);
    },
  };
}
