import { ApiError } from '../errors/api-error.ts';
import type { OpenApiOperation } from './openapi-types.ts';

/**
 * What the owner of a route declares with it; the table only carries it. Layers above add what they
 * declare (src/auth/access.ts: who may call it).
 */
export interface RouteDeclaration {
  /** Who answers it (a hand-written router, SOFA). */
  owner?: unknown;
  /** Headers the owner puts on every answer of this path, its 405 included. */
  headers?: Readonly<Record<string, string>>;
  /** The route's operation in /v1/openapi.json, when its owner writes it (SOFA's routes are documented from their fields). */
  openApi?: OpenApiOperation;
}

/** A route of the service: a method and a full path pattern (`/v1/assets/:id`, parameters as `:name`). */
export interface Route extends RouteDeclaration {
  method: string;
  pattern: string;
  headers: Readonly<Record<string, string>>;
}

/** What the route table knows of a request's path: its pattern, and the route of its method if there is one. */
export interface RouteMatch {
  /** The pattern of the path (exact patterns win over ones with parameters): the metrics label. */
  pattern: string;
  /** The route of the request's method, undefined when the path exists for other methods only (405). */
  route?: Route;
  /** Raw (still percent-encoded) path parameters of `route`. */
  params: Record<string, string>;
  /** Every method the path takes, in alphabetical order, for Allow. */
  allowed: string[];
}

declare module '../observability/request-context.ts' {
  interface RequestState {
    /** The route the request's path and method matched, looked up once by useRouting (src/plugins/routing.ts); undefined: no route has this path. */
    route?: RouteMatch;
  }
}

interface CompiledRoute extends Route {
  regex: RegExp;
  parameterCount: number;
}

const compile = (pattern: string) => new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, '(?<$1>[^/]+)')}$`);

/** `/assets/:id` as OpenAPI writes it: `/assets/{id}`. */
export const openApiPath = (pattern: string) => pattern.replace(/:(\w+)/g, '{$1}');

/**
 * Every route of the service, whoever answers it: the system routes, SOFA's and each hand-written
 * router's. One lookup per request (useRouting) tells the owner which route it is, labels the
 * request's metrics and, when nothing matched, decides between 404 and 405 (useRouteNotFound).
 */
export class RouteTable {
  private readonly compiled: CompiledRoute[] = [];

  add(method: string, pattern: string, declaration: RouteDeclaration = {}): this {
    if (this.compiled.some((r) => r.method === method && r.pattern === pattern))
      throw new Error(`Route ${method} ${pattern} is declared twice`);
    this.compiled.push({
      ...declaration,
      method,
      pattern,
      headers: declaration.headers ?? {},
      regex: compile(pattern),
      parameterCount: pattern.split('/:').length - 1,
    });
    // Exact segments first (`/v1/assets/csv` before `/v1/assets/:id`), otherwise in the order declared.
    this.compiled.sort((a, b) => a.parameterCount - b.parameterCount);
    return this;
  }

  get routes(): readonly Route[] {
    return this.compiled;
  }

  match(method: string, pathname: string): RouteMatch | undefined {
    const matching = this.compiled.filter((r) => r.regex.test(pathname));
    if (matching.length === 0) return undefined;
    const route = matching.find((r) => r.method === method);
    return {
      pattern: matching[0]!.pattern,
      route,
      params: { ...route?.regex.exec(pathname)?.groups },
      // HEAD is served wherever GET is (src/plugins/methods.ts).
      allowed: [...new Set(matching.flatMap((r) => (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method])))].sort(),
    };
  }
}

export const routeNotFound = (method: string, pathname: string, details = `${method} ${pathname} is not a route of this API`) =>
  new ApiError(404, 'ROUTE_NOT_FOUND', 'Route not found', details);

/** The error of a request no route answered: 404 ROUTE_NOT_FOUND, or 405 METHOD_NOT_ALLOWED with Allow when its path takes other methods. */
export function unanswered(table: RouteTable, match: RouteMatch | undefined, method: string, pathname: string): ApiError {
  // A matched route that no stage answered has nothing to serve either.
  if (!match || match.route) return routeNotFound(method, pathname);
  const allow = match.allowed.join(', ');
  const ownHeaders = Object.assign({}, ...table.routes.filter((r) => r.pattern === match.pattern).map((r) => r.headers)) as Record<
    string,
    string
  >;
  return new ApiError(405, 'METHOD_NOT_ALLOWED', 'Method not allowed', `${method} ${pathname}: allowed ${allow}`, {
    ...ownHeaders,
    Allow: allow,
  });
}
