import type { Plugin } from 'graphql-yoga';
import { errorResponse } from '../errors/render.ts';
import { unanswered, type RouteTable } from '../kernel/routes.ts';
import { currentRequest } from '../observability/request-context.ts';

export interface RouteNotFoundOptions {
  /** Every route of the service: the methods of a path, for 405 and Allow. */
  routes: RouteTable;
  /** Paths left to their server (the GraphQL endpoint is Yoga's). */
  except?: readonly string[];
}

/**
 * The one 404 and 405 of the service, last in the pipeline: a request no stage answered is a path
 * of no route (404 ROUTE_NOT_FOUND) or a method the path does not take (405 METHOD_NOT_ALLOWED, with
 * Allow).
 */
export function useRouteNotFound({ routes, except = [] }: RouteNotFoundOptions): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      if (except.includes(url.pathname)) return;
      endResponse(
        errorResponse([
          unanswered(routes, currentRequest()?.route ?? routes.match(request.method, url.pathname), request.method, url.pathname),
        ]),
      );
    },
  };
}
