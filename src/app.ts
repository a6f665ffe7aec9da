import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { GraphQLError, ValidationContext } from 'graphql';
import { schema } from './graphql/schema.ts';
import type { GraphQLContext } from './graphql/context.ts';
import { currentCaller, useAccessControl } from './auth/access-plugin.ts';
import { PUBLIC } from './auth/access.ts';
import { FootprintFastPath } from './footprint/fast-path.ts';
import { useErrorBodies } from './errors/render.ts';
import { maskGraphQLError } from './graphql/mask-error.ts';
import { useApprovedOperations } from './graphql/approved-operations.ts';
import { useValidationErrorCodes } from './graphql/validation-codes.ts';
import { useCostLimit } from './graphql/cost.ts';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { currentRequest, runWithRequest, type RequestState } from './observability/request-context.ts';
import { declareRestRoutes, useRest } from './rest/rest-plugin.ts';
import { GRAPHQL_PATH, OPENAPI_PATH, REST_BASE } from './kernel/paths.ts';
import { useReasonPhrases } from './rest/reason-phrase.ts';
import { useRequestLimits } from './validation/request-limits.ts';
import { useRequestMetrics } from './observability/metrics.ts';
import { RouteTable, useRouteNotFound, useRouting } from './kernel/routes.ts';
import { useMountedRouter, type Router } from './rest/router.ts';
import { createMetricsRouter } from './admin/metrics-route.ts';
import { createAdminRouter } from './admin/routes.ts';
import { createConsoleRouter } from './console/routes.ts';
import { createCertificateDownloadRouter, createVerifyRouter, createWellKnownRouter } from './certificates/routes.ts';
import { createReportRouter, REPORT_OPENAPI_PATHS } from './reports/routes.ts';
import { REPORT_PATH } from './reports/paths.ts';
import { createODataRouter } from './odata/routes.ts';
import { useODataBasicCredentials } from './odata/basic-auth.ts';
import { createExportDownloadRouter, EXPORT_OPENAPI_PATHS } from './exports/routes.ts';
import { createExportFileRouter } from './exports/storage/index.ts';
import { createExploreRouter } from './explore/routes.ts';
import { graphiqlOptions, renderGraphiQLPage, useGraphiQLPageHeaders } from './explore/graphiql.ts';
import type { Services } from './services.ts';
import { SERVICE_VERSION } from './version.ts';


export interface App {
  /** Node http handler. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** In-process fetch, for tests and benchmarks. */
  fetch(request: Request, options?: { ip?: string }): Promise<Response>;
  services: Services;
  /** Every route of the service, with who may call each (tests walk it). */
  routes: RouteTable;
  /** True once drain() was called: /readyz answers 503 so load balancers drain this instance. */
  readonly draining: boolean;
  /**
   * Starts a shutdown: every response from now on, including those of requests being handled, ends
   * its connection (`Connection: close`), so keep-alive clients do not hold the server open.
   */
  drain(): void;
  /**
   * Resolves with true once no request is in flight (its handler running or its response being sent),
   * or with false after `timeoutMs`. A request whose client went away runs on after its connection has closed.
   */
  settled(timeoutMs: number): Promise<boolean>;
}

// Armor's validation limits report as validation errors (code and 400 added by useValidationErrorCodes)
// instead of throwing out of validation, which GraphQL would answer with 200.
const reportAsValidationError = { propagateOnRejection: false, onReject: [(ctx: ValidationContext | null, error: GraphQLError) => ctx?.reportError(error)] };
const armorLimits = {
  maxDepth: { n: 10, ...reportAsValidationError },
  // __typename aliases count like any other.
  maxAliases: { n: 15, allowList: [], ...reportAsValidationError },
  maxDirectives: { n: 20, ...reportAsValidationError },
  // Priced by useCostLimit (src/graphql/cost.ts) instead: armor's cost sees only literal first/last, not variables, limit or defaults.
  costLimit: { enabled: false },
  maxTokens: { n: 2_000 },
  blockFieldSuggestion: { enabled: true },
};
// The depth limit above skips __schema; introspection gets its own bound, the depth of the standard
// introspection query (graphql-js getIntrospectionQuery, what GraphiQL and codegen send).
export const INTROSPECTION_MAX_DEPTH = 21;
const introspectionDepthLimit = {
  maxDepth: { n: INTROSPECTION_MAX_DEPTH, ignoreIntrospection: false, ...reportAsValidationError },
  maxAliases: { enabled: false },
  maxDirectives: { enabled: false },
  costLimit: { enabled: false },
  maxTokens: { enabled: false },
  blockFieldSuggestion: { enabled: false },
};

export function createApp(services: Services): App {
  const fastPath = new FootprintFastPath(services);
  // Every route of the service: the system routes, SOFA's, and each mounted router's (declared as it is mounted).
  const routes = new RouteTable().add('GET', '/healthz').add('GET', '/readyz').add('GET', OPENAPI_PATH, { access: PUBLIC });
  // GraphQL is a keyed interface (useAccessControl); each root field declares more (its authScopes).
  for (const method of ['GET', 'POST']) routes.add(method, GRAPHQL_PATH, { access: { key: true } });
  declareRestRoutes(schema, routes);
  const mount = (router: Router) => {
    router.declareIn(routes);
    return useMountedRouter(router);
  };
  const handling = new Set<ServerResponse>();
  const whenSettled: ((settled: boolean) => void)[] = [];
  const closeConnectionAfter = (res: ServerResponse) => res.headersSent || res.setHeader('connection', 'close');
  let draining = false;
  const app: App = {
    services,
    routes,
    get draining() {
      return draining;
    },
    drain() {
      draining = true;
      handling.forEach(closeConnectionAfter);
    },
    handle: (req, res) => {
      const state = newRequestState(services, req.headers['x-request-id'], clientIp(req, services.config.trustedProxies));
      state.forwarded = forwardedOrigin(req, services.config.trustedProxies);
      if (draining) closeConnectionAfter(res);
      // In flight until the handler has returned and the response has closed (a streamed body ends
      // later), or until a response whose sending had begun has closed: only writing was left then, and
      // the handler may never return (whatwg-node waits for a 'drain' that a closed connection does not emit).
      handling.add(res);
      let handled = false;
      const settle = () => {
        if (handling.delete(res) && handling.size === 0) whenSettled.splice(0).forEach((resolve) => resolve(true));
      };
      res.once('close', () => {
        if (handled || res.headersSent) settle();
      });
      void runWithRequest(state, async () => {
        try {
          if (!(await fastPath.tryServe(req, res, state))) await yoga(req, res);
        } finally {
          handled = true;
          if (res.closed) settle();
        }
      });
    },
    settled: (timeoutMs) =>
      handling.size === 0
        ? Promise.resolve(true)
        : new Promise((resolve) => {
            whenSettled.push(resolve);
            setTimeout(() => resolve(false), timeoutMs).unref();
          }),
    fetch: (request, options = {}) =>
      runWithRequest(newRequestState(services, request.headers.get('x-request-id'), options.ip ?? '127.0.0.1'), async () => yoga.fetch(request)),
  };

  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    // GraphiQL for browsers (GET with Accept: text/html), its assets served by this server (src/explore/).
    graphiql: graphiqlOptions(services.approvedOperations),
    renderGraphiQL: renderGraphiQLPage,
    logging: false,
    maskedErrors: { maskError: maskGraphQLError },
    context: () => {
      // Access control (useAccessControl) has authenticated every metered request before execution.
      const caller = currentCaller();
      // GraphQL and every REST route alike: a test key's caller already names its sandbox (src/auth/caller.ts).
      return { prisma: services.scopes.forCaller(caller), services, caller };
    },
    plugins: [
      // Which route the request is, looked up once: every stage below reads it from the request state.
      useRouting(routes),
      useRequestLifecycle(),
      useRequestMetrics(services.metrics),
      useRequestLimits({ restBase: REST_BASE }),
      useErrorBodies(GRAPHQL_PATH),
      useSystemRoutes(app),
      useGraphiQLPageHeaders(GRAPHQL_PATH),
      // The landing answers of / and /v1, the API reference at /v1/docs: open pages, before access control.
      mount(createExploreRouter(services)),
      mount(createAdminRouter(services)),
      mount(createMetricsRouter(services)),
      mount(createConsoleRouter(services)),
      mount(createVerifyRouter(services)),
      mount(createWellKnownRouter(services)),
      // Signed export download URLs: the signature is the credential, so before access control (no API key).
      mount(createExportFileRouter(services.exportStorage)),
      // BI tools send the key as the password of HTTP Basic: turned into the bearer key on /v1/odata paths only.
      useODataBasicCredentials(),
      // A report counts itself once accepted: a refused report is the one request users must not pay for.
      useAccessControl(services, { graphqlEndpoint: GRAPHQL_PATH, countedByRoute: [REPORT_PATH] }),
      // After access control (key, quota); its route is GET only: POST /v1/certificate is SOFA's.
      mount(createCertificateDownloadRouter(services)),
      // POST /v1/report answers a PDF body, which SOFA (JSON only) cannot; after access control (key, quota).
      mount(createReportRouter(services)),
      // OData for BI tools: after access control (key, also as HTTP Basic on these paths; quota).
      mount(createODataRouter(services)),
      // The export download answers 302 or JSON by Accept; the job routes beside it are SOFA's.
      mount(createExportDownloadRouter(services)),
      fastPath.plugin(),
      useRest(
        {
          title: 'Lifecycle Carbon Footprint Service',
          version: SERVICE_VERSION,
          description:
            'Lifecycle carbon footprints of IT hardware (production, transport, use, end of life; kg CO2e) and what reuse and refurbishment save. ' +
            'Errors use the ApiError body {error, code, details}; 429 uses {error, code, message, retry_after_seconds}. GraphQL at /v1/graphql.',
        },
        routes,
        { ...REPORT_OPENAPI_PATHS, ...EXPORT_OPENAPI_PATHS },
      ),
      ...useApprovedOperations(services.approvedOperations),
      useValidationErrorCodes(),
      // Limits for every plan; values documented in docs/api.md ("GraphQL").
      EnvelopArmorPlugin(armorLimits),
      EnvelopArmorPlugin(introspectionDepthLimit),
      useCostLimit(GRAPHQL_PATH),
      // The one 404 and 405: whatever no stage above answered (GraphQL's endpoint is Yoga's own).
      useRouteNotFound(routes, { except: [GRAPHQL_PATH] }),
      // Last: names the status of whichever response the plugins above settled on.
      useReasonPhrases(),
    ],
  });
  return app;
}

function newRequestState(services: Services, requestId: string | string[] | null | undefined, ip: string): RequestState {
  const id = typeof requestId === 'string' && /^[\w.-]{1,100}$/.test(requestId) ? requestId : randomUUID();
  return {
    id,
    ip,
    startedAt: performance.now(),
    // A child logger per request costs more than most requests on the hot path: made when first used.
    get log() {
      const log = services.log.child({ req_id: id });
      Object.defineProperty(this, 'log', { value: log });
      return log;
    },
    responseHeaders: new Headers(),
    successHeaders: new Headers(),
  };
}

const peerAddress = (req: IncomingMessage) => (req.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');

/** The client's address: X-Forwarded-For is honoured only when the peer is a configured trusted proxy. */
export function clientIp(req: IncomingMessage, trustedProxies: readonly string[]): string {
  const peer = peerAddress(req);
  const forwarded = req.headers['x-forwarded-for'];
  if (!forwarded || !trustedProxies.includes(peer)) return peer;
  const hops = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded).split(',').map((s) => s.trim()).filter(Boolean);
  // Walk back from the nearest hop, skipping our own proxies: the first untrusted address is the client.
  for (let i = hops.length - 1; i >= 0; i--) if (!trustedProxies.includes(hops[i]!)) return hops[i]!;
  return peer;
}

/**
 * The scheme and host the client used, as a trusted proxy reports them (X-Forwarded-Proto, X-Forwarded-Host);
 * undefined from any other peer. The first entry of each is the one the client-facing proxy wrote.
 */
export function forwardedOrigin(req: IncomingMessage, trustedProxies: readonly string[]): RequestState['forwarded'] {
  if (!trustedProxies.includes(peerAddress(req))) return undefined;
  const first = (name: string) => {
    const value = req.headers[name];
    return (Array.isArray(value) ? value[0] : value)?.split(',')[0]!.trim() || undefined;
  };
  return { proto: first('x-forwarded-proto')?.toLowerCase(), host: first('x-forwarded-host') };
}

/** Request id, response headers collected during the request, and one access-log line. */
function useRequestLifecycle(): Plugin {
  return {
    onResponse({ request, response }) {
      const state = currentRequest();
      if (!state) return;
      response.headers.set('X-Request-Id', state.id);
      // Headers the response set itself (a route's own rate-limit window on its 429) win over the pipeline's.
      state.responseHeaders.forEach((value, name) => response.headers.has(name) || response.headers.set(name, value));
      if (response.status >= 200 && response.status < 300 && request.method === 'GET') {
        state.successHeaders.forEach((value, name) => response.headers.set(name, value));
      }
      const url = new URL(request.url);
      state.log.info(
        { method: request.method, path: url.pathname, status: response.status, ms: Math.round((performance.now() - state.startedAt) * 10) / 10 },
        'request',
      );
    },
  };
}

function useSystemRoutes(app: App): Plugin {
  return {
    async onRequest({ url, endResponse }) {
      if (url.pathname === '/healthz') return endResponse(Response.json({ status: 'ok' }));
      if (url.pathname !== '/readyz') return;
      if (app.draining) return endResponse(Response.json({ status: 'draining' }, { status: 503 }));
      try {
        await app.services.db.prisma.$queryRaw`SELECT 1`;
        endResponse(Response.json({ status: 'ready', database: app.services.db.kind }));
      } catch (error) {
        app.services.log.warn({ err: error }, 'readiness check failed');
        endResponse(Response.json({ status: 'unavailable', database: app.services.db.kind }, { status: 503 }));
      }
    },
  };
}
