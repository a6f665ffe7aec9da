import { ApiError, invalidParameter } from '../errors/api-error.ts';
import { errorResponse, toApiError } from '../errors/render.ts';
import { checkText, TEXT_LIMITS } from '../validation/text.ts';

export type RouteHandler = (request: Request, params: Record<string, string>) => Promise<Response> | Response;

interface CompiledRoute {
  method: string;
  path: string;
  pattern: RegExp;
  handler: RouteHandler;
}

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
 * contracts): a method + `/path/:param` table with the same 404/405 and error bodies as SOFA.
 * `headers` go on every response of the router, errors included.
 */
export class Router {
  private readonly routes: CompiledRoute[] = [];

  constructor(
    readonly base: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  on(method: string, path: string, handler: RouteHandler): this {
    const source = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, '(?<$1>[^/]+)');
    this.routes.push({ method, path, pattern: new RegExp(`^${source}$`), handler });
    return this;
  }

  /** The full path patterns of its routes (`/admin/v1/orgs/:id`), e.g. to label metrics by route. */
  get paths(): string[] {
    return [...new Set(this.routes.map((r) => (r.path === '/' ? this.base || '/' : `${this.base}${r.path}`)))];
  }

  /** Whether a route of this router (any method) has this path. */
  matches(pathname: string): boolean {
    if (pathname !== this.base && !pathname.startsWith(`${this.base}/`)) return false;
    const path = pathname.slice(this.base.length) || '/';
    return this.routes.some((r) => r.pattern.test(path));
  }

  async fetch(request: Request): Promise<Response> {
    const response = await this.dispatch(request);
    for (const [name, value] of Object.entries(this.headers)) response.headers.set(name, value);
    return response;
  }

  private async dispatch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.slice(this.base.length) || '/';
    const matching = this.routes.filter((r) => r.pattern.test(path));
    const route = matching.find((r) => r.method === request.method);
    try {
      if (!route) {
        if (matching.length === 0) {
          throw new ApiError(404, 'ROUTE_NOT_FOUND', 'Route not found', `${request.method} ${url.pathname} is not a route of this API`);
        }
        const allow = [...new Set(matching.map((r) => r.method))].join(', ');
        throw new ApiError(405, 'METHOD_NOT_ALLOWED', 'Method not allowed', `${request.method} ${url.pathname}: allowed ${allow}`, { Allow: allow });
      }
      const params = Object.fromEntries(Object.entries(route.pattern.exec(path)?.groups ?? {}).map(([k, v]) => [k, decodeParam(k, v)]));
      return await route.handler(request, params);
    } catch (error) {
      return errorResponse([toApiError(error)]);
    }
  }
}
