import type { Plugin } from 'graphql-yoga';
import type { ApiError } from '../errors/api-error.ts';
import { errorResponse, toApiError } from '../errors/render.ts';
import { currentRequest } from '../observability/request-context.ts';
import type { RouteMatch, RouteTable } from '../kernel/routes.ts';
import type { OpenApiOperation } from '../kernel/openapi-types.ts';
import { enforceAccess, type Access } from '../auth/access.ts';
import { currentCaller } from '../auth/access-plugin.ts';
import { checkText, TEXT_LIMITS } from '../validation/text.ts';
import { decodePathParam } from '../validation/strict-input.ts';

export type RouteHandler = (request: Request, params: Record<string, string>) => Promise<Response> | Response;

/**
 * A path parameter, percent-decoded and held to the text rules (identifiers: TEXT_LIMITS.id).
 * Bad encoding (`%ZZ`, invalid UTF-8) is the caller's error, a 400 naming the parameter.
 */
function decodeParam(name: string, raw: string): string {
  const value = decodePathParam(name, raw);
  checkText(value, name, { maxLength: TEXT_LIMITS.id });
  return value;
}

interface HandledRoute extends RouteOptions {
  handler: RouteHandler;
  access?: Access;
}

/** What a route declares besides its access: its operation in /v1/openapi.json (a route API clients call), and whether it takes an Idempotency-Key (src/idempotency/). */
export interface RouteOptions {
  openApi?: OpenApiOperation;
  idempotent?: true;
}

/**
 * The hand-written routes beside SOFA (admin API, binary bodies, redirects, 202/409/410
 * contracts): method + `/path/:param` routes under a base path, declared in the service's route
 * table (RouteTable), which also answers their 404 and 405. `headers` go on every response of the
 * router, errors included. A route of the API declares who may call it (Access), which the router
 * enforces before its handler runs; `missingKey` is how this router's 401 for a caller without a key reads.
 */
export class Router {
  private readonly routes = new Map<string, HandledRoute>();

  constructor(
    readonly base: string,
    readonly headers: Record<string, string> = {},
    private readonly options: { missingKey?: () => ApiError } = {},
  ) {}

  /**
   * A route outside API-key access (its own credential or none: admin token, console session, signed
   * links, pages); `openApi`: its operation in /v1/openapi.json, for a route API clients call.
   */
  on(method: string, path: string, handler: RouteHandler, options?: Pick<RouteOptions, 'openApi'>): this;
  /** A route of the API: who may call it, then what answers, and what it declares besides (RouteOptions). */
  on(method: string, path: string, access: Access, handler: RouteHandler, options?: RouteOptions): this;
  on(method: string, path: string, ...declaration: [RouteHandler, RouteOptions?] | [Access, RouteHandler, RouteOptions?]): this {
    const route: HandledRoute =
      typeof declaration[0] === 'function'
        ? { handler: declaration[0], ...(declaration[1] as RouteOptions | undefined) }
        : { access: declaration[0], handler: declaration[1] as RouteHandler, ...declaration[2] };
    this.routes.set(`${method} ${path === '/' ? this.base || '/' : `${this.base}${path}`}`, route);
    return this;
  }

  /** Declares its routes in the service's route table, as this router's. */
  declareIn(table: RouteTable): void {
    for (const [key, { access, openApi, idempotent }] of this.routes) {
      const [method, pattern] = key.split(' ') as [string, string];
      table.add(method, pattern, {
        owner: this,
        headers: this.headers,
        access,
        missingKey: access && this.options.missingKey,
        openApi,
        idempotent,
      });
    }
  }

  /** Answers a request whose route (looked up in the route table) is one of this router's. */
  async fetch(request: Request, match: RouteMatch): Promise<Response> {
    const { route, params } = match;
    let response: Response;
    try {
      const handled = route && this.routes.get(`${route.method} ${route.pattern}`);
      if (!handled) throw new TypeError(`${request.method} ${match.pattern} is not a route of the router at ${this.base}`);
      if (handled.access) enforceAccess(handled.access, currentCaller(), this.options);
      response = await handled.handler(request, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, decodeParam(k, v)])));
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
