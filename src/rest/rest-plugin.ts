import { filterSchema, pruneSchema } from '@graphql-tools/utils';
import {
  getOperationAST,
  isScalarType,
  Kind,
  parse,
  printType,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLSchema,
  type ObjectTypeDefinitionNode,
  type OperationDefinitionNode,
} from 'graphql';

type Maybe<T> = T | null | undefined;
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import { useSofa } from 'sofa-api';
import { fieldAccess, type RestRoute } from '../graphql/builder.ts';
import { errorResponse } from '../errors/render.ts';
import { notFound } from '../errors/api-error.ts';
import { currentRequest } from '../observability/request-context.ts';
import { openApiPath, type RouteTable } from '../kernel/routes.ts';
import { checkRestArguments, normalizeEnumInputs } from './arguments.ts';
import { setAsideRefusedItems, withStringItemsQuoted } from './item-refusals.ts';
import { addOpenApiLimits } from '../validation/input-limits.ts';
import { decodePathParam } from '../validation/strict-input.ts';
import { addIdempotencyKeys } from '../idempotency/openapi.ts';
import { addWebhooks, completeOpenApi, toOpenApi31, type OpenApiDocument } from './openapi.ts';
import { GRAPHQL_PATH, OPENAPI_PATH, REST_BASE } from '../kernel/paths.ts';

type Sofa = ReturnType<typeof useSofa>;
type Enveloped = ReturnType<Parameters<NonNullable<Plugin['onYogaInit']>>[0]['yoga']['getEnveloped']>;

const restRouteOf = (field: { extensions?: Maybe<Readonly<Record<string, unknown>>> }) => field.extensions?.rest as RestRoute | undefined;

/**
 * Only the root fields that declare `extensions.rest` become REST routes; the rest is GraphQL-only.
 * A nested field's argument with a default (`Calculation.emission_factor(type: GRID)`) is left out:
 * SOFA would make it a query parameter of every route that reaches the field (a required one, which
 * no route declares); without it the field answers with the default.
 */
export function restSchema(schema: GraphQLSchema): GraphQLSchema {
  const roots = new Set([schema.getQueryType()?.name, schema.getMutationType()?.name]);
  const rest = pruneSchema(
    filterSchema({
      schema,
      rootFieldFilter: (_op, _name, field) => restRouteOf(field) !== undefined,
      argumentFilter: (typeName, _field, _name, arg) => roots.has(typeName) || arg?.defaultValue === undefined,
    }),
  );
  // SOFA reads argument descriptions from a root type's syntax tree, and for a code-first type, which has
  // none, prints and parses the whole type again for each variable of each route (a tenth of a start).
  for (const type of [rest.getQueryType(), rest.getMutationType()]) {
    if (type && !type.astNode) type.astNode = parse(printType(type)).definitions[0] as ObjectTypeDefinitionNode;
  }
  return rest;
}

/** Each REST route's path parameters and top-level arguments by `METHOD /v1/pattern`, to check them before SOFA parses them (checkRestArguments). */
interface RouteArguments {
  pathParams: ReadonlySet<string>;
  args: readonly GraphQLArgument[];
  perItemArgument?: string;
}

function routeArguments(schema: GraphQLSchema): Map<string, RouteArguments> {
  const routes = new Map<string, RouteArguments>();
  for (const root of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const route = restRouteOf(field);
      if (!route) continue;
      const pathParams = new Set([...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!));
      routes.set(`${route.method} ${REST_BASE}${route.path}`, { pathParams, args: field.args, perItemArgument: route.perItemArgument });
    }
  }
  return routes;
}

/**
 * The answer of a route whose field declares `nullIsNotFound`: its null (no such record for the caller)
 * becomes 404 NOT_FOUND naming the path parameter, as the routes whose fields throw it word it.
 */
function nullAsNotFound(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  result: ExecutionResult,
): ExecutionResult {
  const selection = operation.selectionSet.selections[0];
  if (result.errors || selection?.kind !== Kind.FIELD || result.data?.[selection.name.value] !== null) return result;
  const route = restRouteOf(schema.getRootType(operation.operation)?.getFields()[selection.name.value] ?? {});
  const record = route?.nullIsNotFound;
  if (!record) return result;
  const param = /:(\w+)/.exec(route.path)?.[1] ?? 'id';
  return { errors: [notFound(record, `${param}: no ${record.toLowerCase()} ${String(variables[param])} in this organisation`)] };
}

/** The JSON object body of a REST request (useRequestLimits has refused any other), {} when empty. */
async function jsonBody(request: Request): Promise<Record<string, unknown>> {
  if (request.method === 'GET' || request.method === 'HEAD') return {};
  const text = await request.clone().text();
  return text.trim() === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

/** Root fields by `METHOD /v1/path` as the OpenAPI document names them (`:id` -> `{id}`). */
function fieldsByOpenApiPath(schema: GraphQLSchema): Map<string, GraphQLField<unknown, unknown>> {
  const fields = new Map<string, GraphQLField<unknown, unknown>>();
  for (const root of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const route = restRouteOf(field);
      if (route) fields.set(`${route.method} ${REST_BASE}${openApiPath(route.path)}`, field);
    }
  }
  return fields;
}

/**
 * The paths of the OpenAPI document: SOFA's (relative to its base /v1) and those of the hand-written
 * routes of the table that document themselves (RouteDeclaration.openApi), all relative to the origin,
 * the document's server: links in bodies (poll_url, download_url, verify_url) join to it as they are.
 */
function documentPaths(sofaPaths: NonNullable<OpenApiDocument['paths']>, table: RouteTable): NonNullable<OpenApiDocument['paths']> {
  const paths = Object.fromEntries(Object.entries(sofaPaths).map(([path, operations]) => [`${REST_BASE}${path}`, operations]));
  for (const route of table.routes) {
    if (!route.openApi) continue;
    // A copy: completing the document leaves the declaration as written.
    (paths[openApiPath(route.pattern)] ??= {})[route.method.toLowerCase()] = structuredClone(route.openApi);
  }
  return paths;
}

/** Who the document is for, and under which terms; the service version is the document's. */
const OPENAPI_INFO = { license: { name: 'Proprietary (UNLICENSED)', identifier: 'LicenseRef-Proprietary' } };

export function restRoutes(schema: GraphQLSchema): Record<string, RestRoute> {
  const routes: Record<string, RestRoute> = {};
  for (const root of [schema.getQueryType(), schema.getMutationType()]) {
    if (!root) continue;
    for (const field of Object.values(root.getFields())) {
      const route = restRouteOf(field);
      if (route) routes[`${root.name}.${field.name}`] = route;
    }
  }
  return routes;
}

/** Declares SOFA's routes in the service's route table, each with its field's access (`authScopes`) and whether it takes an Idempotency-Key. */
export function declareRestRoutes(schema: GraphQLSchema, table: RouteTable): void {
  for (const root of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const route = restRouteOf(field);
      if (route)
        table.add(route.method, `${REST_BASE}${route.path}`, { owner: 'sofa', access: fieldAccess(field), idempotent: route.idempotent });
    }
  }
}

/**
 * SOFA, mounted at /v1 inside Yoga, executing through Yoga's envelope so that the same
 * context (caller, quotas, request state) and plugins apply to REST and GraphQL.
 */
export function useRest(
  openApiInfo: { title: string; version: string; description: string },
  /** The service's route table: its access, and the operations hand-written routes declare, complete the document. */
  routeTable: RouteTable,
): Plugin {
  let sofa: Sofa;
  let getEnveloped: (context: unknown) => Enveloped;
  const envelopedByContext = new WeakMap<object, Enveloped>();
  let argumentsByRoute = new Map<string, RouteArguments>();
  let openApi: { schema: GraphQLSchema; document?: Promise<string> } | undefined;

  return {
    onYogaInit({ yoga }) {
      getEnveloped = yoga.getEnveloped as unknown as typeof getEnveloped;
    },
    onSchemaChange({ schema }) {
      const routes = restRoutes(schema);
      argumentsByRoute = routeArguments(schema);
      openApi = { schema };
      sofa = useSofa({
        basePath: REST_BASE,
        schema: restSchema(schema),
        routes,
        depthLimit: 4,
        // The service's scalars as their extensions.jsonSchema state them: SOFA reads that for responses, and this for
        // parameters (Date). A fresh copy at each read: SOFA's router writes each parameter's description into it.
        customScalars: new Proxy(
          Object.fromEntries(
            Object.values(schema.getTypeMap()).flatMap((type) =>
              isScalarType(type) && type.extensions.jsonSchema ? [[type.name, type.extensions.jsonSchema]] : [],
            ),
          ),
          { get: (scalars, name) => (typeof name === 'string' && scalars[name] ? structuredClone(scalars[name]) : undefined) },
        ),
        // /v1/docs is this service's own page (src/explore/): fets' Swagger UI would load from a CDN.
        swaggerUI: { endpoint: false },
        // fets' Response typing is narrower than the standard Response it receives at run time.
        errorHandler: errorResponse as never,
        openAPI: {
          info: openApiInfo,
          components: {
            securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key: svc_live_… or svc_test_…' } },
          },
        } as never,
        context: async (serverContext: YogaInitialContext) => {
          const enveloped = getEnveloped(serverContext);
          const context = await enveloped.contextFactory(serverContext);
          envelopedByContext.set(context, enveloped);
          return context;
        },
        execute: ((args: {
          contextValue: object;
          document: DocumentNode;
          variableValues: Record<string, unknown>;
          operationName?: string;
        }) => {
          const enveloped = envelopedByContext.get(args.contextValue);
          if (!enveloped) throw new TypeError('REST execution outside a request context');
          const operation = getOperationAST(args.document, args.operationName)!;
          const variables = setAsideRefusedItems(schema, operation, args.variableValues);
          const result = enveloped.execute({ ...args, variableValues: normalizeEnumInputs(schema, operation, variables) } as never);
          return Promise.resolve(result).then((r) => nullAsNotFound(schema, operation, args.variableValues, r as ExecutionResult));
        }) as never,
      });
    },
    async onRequest({ request, url, serverContext, endResponse }) {
      if (!url.pathname.startsWith(`${REST_BASE}/`) || url.pathname === GRAPHQL_PATH) return;
      const match = currentRequest()?.route;
      const matched = match?.route;
      const route = matched && argumentsByRoute.get(`${matched.method} ${matched.pattern}`);
      let forSofa = request;
      if (route) {
        try {
          // SOFA's router would answer bad encoding with a 400 naming no parameter ("URI malformed").
          for (const [name, raw] of Object.entries(match.params)) decodePathParam(name, raw);
          const body = await jsonBody(request);
          checkRestArguments(route.args, route.pathParams, url, body, route.perItemArgument);
          forSofa = withStringItemsQuoted(request, body, route.perItemArgument);
        } catch (error) {
          return endResponse(errorResponse([error]));
        }
      }
      if (url.pathname === OPENAPI_PATH && request.method === 'GET' && openApi) {
        // SOFA's document completed for client generators (limits, errors, security, …): once, then served from memory.
        const { schema } = openApi;
        const fields = fieldsByOpenApiPath(schema);
        openApi.document ??= Promise.resolve(sofa.handleRequest(request, serverContext as never))
          .then((r) => r!.json())
          .then((doc: OpenApiDocument) => ({
            ...doc,
            info: { ...(doc.info as object), ...OPENAPI_INFO },
            servers: [{ url: '/', description: 'This server: every path is relative to its origin' }],
            paths: documentPaths(doc.paths ?? {}, routeTable),
          }))
          .then((doc) => {
            const completed = completeOpenApi(addOpenApiLimits(doc, schema, fields), schema, fields, routeTable.routes);
            return JSON.stringify(toOpenApi31(addWebhooks(addIdempotencyKeys(completed, routeTable))));
          });
        return endResponse(new Response(await openApi.document, { headers: { 'Content-Type': 'application/json; charset=utf-8' } }));
      }
      const response = await sofa.handleRequest(forSofa, serverContext as never);
      // SOFA's router answers a path it does not know with an empty 404 (left to useRouteNotFound); a 404 with a body is a resolver's answer.
      if (response && (response.status !== 404 || (await response.clone().text()).length > 0)) endResponse(response);
    },
  };
}
