import { createYoga } from 'graphql-yoga';
import { schema } from './graphql/schema.ts';
import { graphqlContext, type GraphQLContext } from './graphql/context.ts';
import { currentCaller, useAccessControl } from './auth/access-plugin.ts';
import { RestFastPath } from './rest/fast-path.ts';
import { maskGraphQLError } from './graphql/mask-error.ts';
import { useApprovedOperations } from './graphql/approved-operations.ts';
import { useValidationErrorCodes } from './graphql/validation-codes.ts';
import { useArmor } from './graphql/armor.ts';
import { useCostLimit } from './graphql/cost.ts';
import { declareRestRoutes, useRest } from './rest/rest-plugin.ts';
import { PUBLIC } from './auth/access.ts';
import { unauthorized } from './errors/api-error.ts';
import { GRAPHQL_PATH, OPENAPI_PATH, REST_BASE } from './kernel/paths.ts';
import { RouteTable } from './kernel/routes.ts';
import { useMountedRouter, type Router } from './rest/router.ts';
import { useRouting } from './plugins/routing.ts';
import { useRequestLifecycle } from './plugins/request-lifecycle.ts';
import { useRequestMetrics } from './plugins/request-metrics.ts';
import { useRequestLimits } from './plugins/request-limits.ts';
import { useErrorBodies } from './plugins/error-bodies.ts';
import { livenessOnNode, useLiveness } from './plugins/liveness.ts';
import { useReadiness } from './plugins/readiness.ts';
import { useRouteNotFound } from './plugins/route-not-found.ts';
import { useReasonPhrases } from './plugins/reason-phrases.ts';
import { methodsStage } from './plugins/methods.ts';
import { createMetricsRouter } from './admin/metrics-route.ts';
import { createAdminRouter } from './admin/routes.ts';
import { createConsoleRouter } from './console/routes.ts';
import { createCertificateDownloadRouter, createVerifyRouter, createWellKnownRouter } from './certificates/routes.ts';
import { createReportRouter } from './reports/routes.ts';
import { createODataRouter } from './odata/routes.ts';
import { useODataBasicCredentials } from './odata/basic-auth.ts';
import { useIdempotency } from './idempotency/plugin.ts';
import { IdempotencyStore } from './idempotency/store.ts';
import { createExportDownloadRouter } from './exports/routes.ts';
import { createExportFileRouter } from './exports/storage/index.ts';
import { createExploreRouter } from './explore/routes.ts';
import { graphiqlOptions, renderGraphiQLPage, useGraphiQLPageHeaders } from './explore/graphiql.ts';
import type { Services } from './services.ts';
import { SERVICE_VERSION } from './version.ts';

const LIVENESS_PATH = '/healthz';
const READINESS_PATH = '/readyz';
// Yoga's built-in liveness check answers an empty 200 to any method on every URL that ends in its endpoint
// (`/health` by default, a query string's last value included), before routing and access control. It gets
// an endpoint no URL ends with (a raw space ends no request target or URL); liveness is useLiveness's.
const NO_URL_ENDS_WITH = ' ';

export interface Pipeline {
  /** Before everything, on node:http: HEAD served as GET, TRACE and TRACK answered (true: answered). */
  methods: ReturnType<typeof methodsStage>;
  /** Stage 0, before Yoga: answers a plain GET /healthz on node:http (true: answered). */
  liveness: ReturnType<typeof livenessOnNode>;
  /** Stage 0, before Yoga: answers the repeated GETs of fast routes on node:http. */
  fastPath: RestFastPath;
  /** Yoga with every other stage, in order. */
  yoga: ReturnType<typeof createYoga<Record<string, unknown>, GraphQLContext>>;
  /** Every route of the service, whoever answers it, with who may call it. */
  routes: RouteTable;
}

/**
 * The stages every request passes, in order (docs/architecture.md, "Pipeline"). A stage that answers
 * ends the request (`endResponse`); the `onResponse` hooks (request id, access log, metrics, error
 * bodies, reason phrase) run on every answer. Generic stages are in src/plugins/, a feature's own
 * in its folder.
 */
export function createPipeline(services: Services, { isDraining }: { isDraining: () => boolean }): Pipeline {
  // Every route of the service: the system routes, SOFA's, and each mounted router's (declared as it is mounted).
  const routes = new RouteTable().add('GET', LIVENESS_PATH).add('GET', READINESS_PATH).add('GET', OPENAPI_PATH, { access: PUBLIC });
  // GraphQL is a keyed interface (spec 5.3: without a key, 401 before any quota); each root field declares more (its authScopes).
  const graphqlMissingKey = () => unauthorized('MISSING_API_KEY', 'GraphQL needs an API key: Authorization: Bearer svc_…');
  for (const method of ['GET', 'POST']) routes.add(method, GRAPHQL_PATH, { access: { key: true }, missingKey: graphqlMissingKey });
  declareRestRoutes(schema, routes);
  const mount = (router: Router) => {
    router.declareIn(routes);
    return useMountedRouter(router);
  };
  const fastPath = new RestFastPath(services, { schema, routes });

  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    healthCheckEndpoint: NO_URL_ENDS_WITH,
    landingPage: false,
    // GraphiQL for browsers (GET with Accept: text/html), its assets served by this server (src/explore/).
    graphiql: graphiqlOptions(services.approvedOperations),
    renderGraphiQL: renderGraphiQLPage,
    logging: false,
    maskedErrors: { maskError: maskGraphQLError },
    // Access control (useAccessControl) has authenticated every metered request before execution.
    context: () => graphqlContext(services, currentCaller()),
    plugins: [
      // 1. Routing: which route the request is, looked up once; every stage below reads it from the request state.
      useRouting({ routes }),
      // 2. Lifecycle, on every answer: X-Request-Id, the collected headers, the access-log line; then its metrics.
      useRequestLifecycle(),
      useRequestMetrics({ metrics: services.metrics }),
      // 3. The edge of the request: URL length, query encoding, body size and encoding (414, 400, 413).
      useRequestLimits({ restBase: REST_BASE }),
      // On every error answer: the ApiError body (GraphQL's error document on its endpoint).
      useErrorBodies({ graphqlEndpoint: GRAPHQL_PATH }),
      // 4. Open pages, no key: liveness and readiness, GraphiQL's headers, the landing answers of / and /v1 and
      // the API reference at /v1/docs, the admin API and /metrics (admin token), the console, certificate
      // verification and JWKS, signed export download URLs (the signature is the credential).
      useLiveness({ endpoint: LIVENESS_PATH }),
      useReadiness({ endpoint: READINESS_PATH, isDraining, database: services.db, log: services.log }),
      useGraphiQLPageHeaders(GRAPHQL_PATH),
      mount(createExploreRouter(services)),
      mount(createAdminRouter(services)),
      mount(createMetricsRouter(services)),
      mount(createConsoleRouter(services)),
      mount(createVerifyRouter(services)),
      mount(createWellKnownRouter(services)),
      mount(createExportFileRouter(services.exportStorage)),
      // 5. Access control for every /v1 route but its documentation: BI tools' HTTP Basic turned into the bearer
      // key (/v1/odata only), then the caller (401: a bad key anywhere, no key on a keyed route) and the quota
      // (429). Any refusal further on (4xx) gives the request back: only what is served costs.
      useODataBasicCredentials(),
      useAccessControl(services, { graphqlEndpoint: GRAPHQL_PATH }),
      // 5b. Idempotency-Key on the routes that declare it (`idempotent`): after access control, which knows the key
      // the stored answers are scoped by, and before any route runs; a replay answers here and costs no quota.
      useIdempotency(
        new IdempotencyStore(services.db.prisma, { onPruneError: (err) => services.log.warn({ err }, 'pruning idempotency keys failed') }),
      ),
      // 6. Hand-written keyed routes: the certificate PDF (GET; POST /v1/certificate is SOFA's), POST /v1/report
      // (a PDF body, which SOFA cannot answer), OData, the export download (302 or JSON by Accept).
      mount(createCertificateDownloadRouter(services)),
      mount(createReportRouter(services)),
      mount(createODataRouter(services)),
      mount(createExportDownloadRouter(services)),
      // 7. REST: the fast path learns each answered query string of its routes; SOFA answers the routes of the
      // fields that declare `extensions.rest`, and the OpenAPI document.
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
      ),
      // 8. GraphQL guards (REST executes through them too): approved operations by plan, validation error
      // codes, depth, alias, directive and token limits, the cost limit.
      ...useApprovedOperations(services.approvedOperations),
      useValidationErrorCodes(),
      ...useArmor(),
      useCostLimit(GRAPHQL_PATH),
      // 9. The one 404 and 405: whatever no stage above answered (GraphQL's endpoint is Yoga's own).
      useRouteNotFound({ routes, except: [GRAPHQL_PATH] }),
      // 10. Last, on every answer: the status line's reason phrase, for whichever response the stages above settled on.
      useReasonPhrases(),
    ],
  });
  return {
    methods: methodsStage({ routes, metrics: services.metrics }),
    liveness: livenessOnNode({ endpoint: LIVENESS_PATH, routes, metrics: services.metrics }),
    fastPath,
    yoga,
    routes,
  };
}
