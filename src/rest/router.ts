import type { Plugin } from 'graphql-yoga';
import { invalidParameter } from '../errors/api-error.ts';
import { errorResponse, toApiError } from '../errors/render.ts';
import { currentRequest } from '../observability/request-context.ts';
import type { RouteMatch, RouteTable } from '../kernel/routes.ts';
import { checkText, TEXT_LIMITS } from '../validation/text.ts';

export type RouteHandler = (request: Request, params: Record<string, string>) => Promise<Response> | Response;

/**
 * A path parameter, percent-decoded and held to the text rules (identifiers: TEXT_LIMITS.id).
 * Bad encoding (`%ZZ`, invalid UTF-8) is the caller's error, a 400 naming the parameter.
 */
function decodeParam(name: string, raw: string): string {
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    throw invalidParameter(name, 'is not valid percent-encoded UTF-8');
  }
  checkText(value, name, { maxLength: TEXT_LIMITS.id });
  return value;
}

/**
 * The hand-written routes beside SOFA (admin API, binary bodies, redirects, 202/409/410
 * contracts): method + `/path/:param` routes under a base path, declared in the service's route
 * table (RouteTable), which also answers their 404 and 405. `headers` go on every response of the
 * router, errors included.
 */
export class Router {
  private readonly handlers = new Map<string, RouteHandler>();

  constructor(
    readonly base: string,
    readonly headers: Record<string, string> = {},
  ) {}

  on(method: string, path: string, handler: RouteHandler): this {
    this.handlers.set(`${method} ${path === '/' ? this.base || '/' : `${this.base}${path}`}`, handler);
    return this;
  }

  /** Declares its routes in the service's route table, as this router's. */
  declareIn(table: RouteTable): void {
    for (const key of this.handlers.keys()) {
      const [method, pattern] = key.split(' ') as [string, string];
      table.add(method, pattern, { owner: this, headers: this.headers });
    }
  }

  /** Answers a request whose route (looked up in the route table) is one of this router's. */
  async fetch(request: Request, match: RouteMatch): Promise<Response> {
    const { route, params } = match;
    let response: Response;
    try {
      const handler = route && this.handlers.get(`${route.method} ${route.pattern}`);
      if (!handler) throw new TypeError(`${request.method} ${match.pattern} is not a route of the router at ${this.base}`);
      response = await handler(request, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, decodeParam(k, v)])));
    } catch (error) {
      response = errorResponse([toApiError(error)]);
    }
    for (const [name, value] of Object.entries(this.headers)) response.headers.set(name, value);
    return response;
  }
}

/** Serves the router's routes where it stands in the pipeline; every other request goes on. */
export function useMountedRouter(router: Router): Plugin {
  return {
    async onRequest({ request, endResponse }) {
      const match = currentRequest()?.route;
      if (match?.route?.owner === router) endResponse(await router.fetch(request, match));
    },
  };
}
