import type { GraphQLArgument, GraphQLField, GraphQLInputField, GraphQLSchema } from 'graphql';
import { isInputObjectType, isNonNullType, isObjectType } from 'graphql';
import type { OpenApiDocument, OpenApiOperation, OpenApiResponse, OpenApiSchema, Security } from '../kernel/openapi-types.ts';
import type { RestRoute } from '../graphql/builder.ts';
import { pageSizeOf, PAGE_SIZE_ARGUMENTS } from '../graphql/cost.ts';
import type { Bounds } from '../validation/schemas.ts';
import type { Access } from '../auth/access.ts';
import { isMetered } from '../auth/access-plugin.ts';
import { openApiPath, type Route } from '../kernel/routes.ts';
import { PLAN_RULES } from '../auth/plan-rules.ts';
import { DAILY_LIMITS, MINUTE_LIMITS } from '../auth/quota/policy.ts';
import { WEBHOOK_EVENT_DATA } from '../webhooks/events.ts';
import { preciseArguments, preciseComponents } from './openapi-schemas.ts';
import { API_ERROR_CODES, RATE_LIMIT_CODES } from '../errors/codes.ts';

/** The document type, for the REST plugin that serves it. */
export type { OpenApiDocument } from '../kernel/openapi-types.ts';

/** Pothos argument/input-field options documenting the bounds the code checks: `t.arg.float({ ...bounds({ minimum: 0 }) })`. */
export const bounds = (declared: Bounds) => ({ extensions: { bounds: declared } });

const boundsOf = (input: GraphQLArgument | GraphQLInputField | undefined) => input?.extensions?.bounds as Bounds | undefined;

const KEY_REQUIRED: Security = [{ bearer: [] }];
const KEY_OPTIONAL: Security = [{ bearer: [] }, {}];
/** Said on every route a key is optional for: what "Try it out" without one spends. */
const ANONYMOUS_QUOTA = `Without a key, calls count against the anonymous quota of the calling IP address (the free plan's: by default ${DAILY_LIMITS.free} a day and ${MINUTE_LIMITS.free} a minute); with one (Authorize), against the key's plan. The X-RateLimit-* headers of each answer say what is left.`;
/** A route outside API keys (public pages, signed links). */
const NO_KEY: Security = [];
const BODY_METHODS = new Set(['post', 'put', 'patch']);
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Every tag an operation may carry (RestRoute.tags, a hand-written route's openApi.tags), with what it groups. */
export const API_TAGS: Record<string, string> = {
  Footprint: 'Lifecycle footprints of products (production, transport, use, end of life) and what longer use and refurbishment save',
  Products: 'The product catalogue: search and identification by model, part number or GTIN',
  Reference: 'The countries, regions and device categories the calculations know',
  Assets: "Your organisation's inventory of devices, each with its active calculation",
  Certificates: 'Signed CO2 impact certificates of stored calculations',
  Verification: 'Public checks of certificates, without an API key: the verdict by number and the signing keys',
  Reports: "PDF reports on your organisation's inventory",
  Inventory: "Your organisation's greenhouse-gas inventory of a reporting period, by GHG Protocol scope and category",
  Webhooks: 'Signed deliveries of events to your endpoints (Standard Webhooks)',
  'Organisation export': "All your organisation's data as a ZIP, built in the background",
  'Erasure-report integration': 'Blancco erasure reports turned into assets',
  'Contractual instruments':
    'Supplier-specific factors and energy attribute certificates for market-based Scope 2 (docs/inventory-market-based.md)',
  'Organisation settings': "Your organisation's settings, such as how the period inventory books acquired hardware",
};

/** The headers responses carry (components.headers), described once. */
const RESPONSE_HEADERS: Record<string, { description: string; schema: OpenApiSchema }> = {
  'X-Request-Id': {
    description: "The request's id (yours when you sent a valid X-Request-Id): quote it when reporting a problem",
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': {
    description: "The request quota of the caller's plan: requests a UTC day (on a 429 of the per-minute limit, a minute)",
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': { description: 'Requests left in that window', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Plan': { description: "The caller's plan (anonymous callers: free)", schema: { type: 'string' } },
  'X-RateLimit-Reset': { description: 'Unix time the refusing window resets (on a 429)', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
};
/** Binary bodies are attachments: their responses say the file name. */
const ATTACHMENT_TYPES = new Set(['application/pdf', 'application/zip']);

const ERROR_SCHEMAS: Record<string, OpenApiSchema> = {
  ErrorCode: { type: 'string', enum: [...API_ERROR_CODES], description: 'The code of an error other than a 429 (docs/errors.md, "Codes")' },
  RateLimitCode: { type: 'string', enum: [...RATE_LIMIT_CODES], description: 'Which limit refused a request (429)' },
  ApiError: {
    type: 'object',
    description: 'An error (429: RateLimitError): `code` is stable (docs/errors.md), `details` names the field and the reason.',
    required: ['error', 'code', 'details'],
    properties: { error: { type: 'string' }, code: ref('ErrorCode'), details: { type: 'string' } },
  },
  RateLimitError: {
    type: 'object',
    description: 'A 429: which limit (`code`), and when to retry (also in the Retry-After header).',
    required: ['error', 'message', 'retry_after_seconds', 'code'],
    properties: {
      error: { type: 'string' },
      message: { type: 'string' },
      retry_after_seconds: { type: 'integer', minimum: 0 },
      code: ref('RateLimitCode'),
    },
  },
};

/** What the error statuses every route's shape implies mean (addErrorResponses); a route declares any other with its meaning. */
const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid parameter or body: INVALID_PARAMETER names the field; INVALID_JSON for a body that is not a JSON object',
  401: 'Missing, invalid or revoked API key',
  402: 'BI export is not enabled on this API key (BI_NOT_ENABLED)',
  404: 'No such record in your organisation',
  413: 'Request body too large (PAYLOAD_TOO_LARGE)',
  429: 'A rate limit is reached (code names which); retry after Retry-After seconds',
};

/** Why a route whose access is `access` may refuse a key with 403, as its codes. */
function forbiddenReasons(access: Access): string | undefined {
  const organisation = access.organisation || access.plan || access.writes || access.records;
  if (!organisation) return undefined;
  const reasons = ['no organisation context (NO_ORGANIZATION_CONTEXT)'];
  if (access.plan) reasons.push(`a plan below ${PLAN_RULES[access.plan].minimum} (PLAN_TOO_LOW)`);
  if (access.writes) reasons.push("the demo sandbox's read-only key (SANDBOX_READ_ONLY)");
  if (access.records) reasons.push('a test key of the demo sandbox, which keeps no records (NO_ORGANIZATION_CONTEXT)');
  return `The key may not use this route: ${reasons.join(', ')}`;
}

/**
 * Completes the OpenAPI document SOFA generates (and the hand-written routes add) so that client
 * generators read it right: bodies only as requestBody, an operationId, summary and declared tags on
 * every operation (the GraphQL field name and RestRoute.summary for SOFA's routes), per-operation
 * security and plan from the route's declared access, the error responses each operation can answer
 * with the ApiError and RateLimitError schemas and a `default` ApiError, the headers every response
 * carries, and the numeric bounds the code checks. Text limits are addOpenApiLimits'. Written in
 * OpenAPI 3.0's form; toOpenApi31 converts the finished document.
 * `routeFields`: SOFA's root fields by `METHOD /path`; `routes`: every route of the service, with its access.
 */
export function completeOpenApi(
  document: OpenApiDocument,
  schema: GraphQLSchema,
  routeFields: Map<string, GraphQLField<unknown, unknown>>,
  routes: readonly Route[],
): OpenApiDocument {
  const operationIds = new Set<string>();
  const usedTags = new Set<string>();
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const where = `${method.toUpperCase()} ${path}`;
      const field = routeFields.get(where);
      operation.operationId = field?.name ?? operation.operationId;
      if (!operation.operationId || operationIds.has(operation.operationId)) {
        throw new Error(`OpenAPI: ${where} needs a unique operationId, has ${operation.operationId}`);
      }
      operationIds.add(operation.operationId);
      const route = field?.extensions?.rest as RestRoute | undefined;
      operation.summary ??= route?.summary;
      operation.tags = route?.tags ?? operation.tags;
      if (!operation.summary || !operation.tags?.length) throw new Error(`OpenAPI: ${where} needs a summary and a tag`);
      for (const tag of operation.tags) {
        if (!(tag in API_TAGS)) throw new Error(`OpenAPI: ${where} has the tag ${tag}, which API_TAGS does not declare`);
        usedTags.add(tag);
      }
      if (BODY_METHODS.has(method)) onlyBodyInputs(operation);
      if (field) addArgumentBounds(operation, field);
      if (field) preciseArguments(operation, field, document.components?.schemas ?? {}, schema);
      const declared = routes.find((r) => r.method === method.toUpperCase() && openApiPath(r.pattern) === path);
      if (!declared) throw new Error(`OpenAPI: ${where} is no route of the service`);
      const access = declared.access;
      operation.security = !access ? NO_KEY : access.public ? KEY_OPTIONAL : KEY_REQUIRED;
      if (access?.public) operation.description = [operation.description, ANONYMOUS_QUOTA].filter(Boolean).join(' ');
      if (access?.plan)
        operation.description = [operation.description, `Requires the ${PLAN_RULES[access.plan].minimum} plan or above.`]
          .filter(Boolean)
          .join(' ');
      addErrorResponses(operation, access, route?.errors ?? {});
      addResponseHeaders(operation, isMetered(path));
    }
  }
  preciseComponents(document.components?.schemas ?? {}, schema);
  for (const [name, component] of Object.entries(document.components?.schemas ?? {})) {
    const type = schema.getType(name);
    if (!isObjectType(type) && !isInputObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const property = component.properties?.[field.name];
      if (!property) continue;
      if (isInputObjectType(type)) setBounds(property, boundsOf(field as GraphQLInputField));
      // SOFA leaves a nullable field out of `required` but does not say it may be null, as responses send it.
      if (!isNonNullType(field.type)) component.properties![field.name] = nullable(property);
    }
  }
  document.tags = Object.entries(API_TAGS)
    .filter(([name]) => usedTags.has(name))
    .map(([name, description]) => ({ name, description }));
  document.components = {
    ...document.components,
    schemas: { ...withoutRootTypes(document.components?.schemas ?? {}), ...ERROR_SCHEMAS },
    headers: RESPONSE_HEADERS,
  };
  document.security = KEY_REQUIRED;
  return document;
}

/**
 * SOFA reads a POST/PUT/PATCH route's arguments from the query string or the body, and documents
 * both, as required twice: generators would ask for every argument twice. The body is the
 * documented way; path parameters stay in the path only.
 */
function onlyBodyInputs(operation: OpenApiOperation): void {
  const pathParams = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
  operation.parameters = operation.parameters?.filter((p) => p.in !== 'query');
  if (!operation.parameters?.length) delete operation.parameters;
  const body = operation.requestBody?.content?.['application/json']?.schema;
  if (!body?.properties) return;
  for (const name of pathParams) delete body.properties[name];
  body.required = body.required?.filter((name) => !pathParams.includes(name));
  if (!body.required?.length) delete body.required;
  if (Object.keys(body.properties).length === 0) delete operation.requestBody;
  else operation.requestBody!.required = body.required !== undefined;
}

/** Bounds of the arguments (parameters and body fields): declared ones, and those of a paged field's page size and offset. */
function addArgumentBounds(operation: OpenApiOperation, field: GraphQLField<unknown, unknown>): void {
  const pageSize = pageSizeOf(field);
  const argumentBounds = (name: string): (Bounds & { default?: number }) | undefined => {
    if (pageSize && (PAGE_SIZE_ARGUMENTS as readonly string[]).includes(name))
      return { minimum: 1, maximum: pageSize.max, default: pageSize.default };
    // Every paged field refuses a negative offset.
    if (pageSize && name === 'offset') return { minimum: 0 };
    return boundsOf(field.args.find((a) => a.name === name));
  };
  for (const parameter of operation.parameters ?? []) setBounds(parameter.schema, argumentBounds(parameter.name));
  const properties = operation.requestBody?.content?.['application/json']?.schema?.properties ?? {};
  for (const [name, property] of Object.entries(properties)) setBounds(property, argumentBounds(name));
}

function setBounds(schema: OpenApiSchema | undefined, declared: (Bounds & { default?: number }) | undefined): void {
  if (!schema || !declared) return;
  const { default: fallback, minItems, maxItems, ...numeric } = declared;
  if (schema.type === 'array')
    Object.assign(schema, minItems === undefined ? {} : { minItems }, maxItems === undefined ? {} : { maxItems });
  if (schema.type !== 'number' && schema.type !== 'integer') return;
  Object.assign(schema, numeric);
  if (fallback !== undefined) schema.default ??= fallback;
}

/**
 * The error responses an operation can answer, from what the route is: any keyed route may meet a bad
 * key (401) or a rate limit (429); inputs can be invalid (400); a body can be too large (413); its
 * declared access may refuse a key (402, 403); an id names a record that may not exist (404);
 * anything else the route declares (RestRoute.errors); and `default`, any other error. A route
 * outside API keys (no access) has its own errors only. Descriptions a hand-written route gives stay.
 */
function addErrorResponses(operation: OpenApiOperation, access: Access | undefined, declared: NonNullable<RestRoute['errors']>): void {
  const forbidden = access && forbiddenReasons(access);
  const identifiesRecord =
    operation.parameters?.some((p) => p.in === 'path') ||
    [
      ...(operation.parameters ?? []).filter((p) => p.required).map((p) => p.name),
      ...(operation.requestBody?.content?.['application/json']?.schema?.required ?? []),
    ].some((name) => name === 'id' || name.endsWith('_id'));
  const statuses: Record<number, boolean> = access
    ? {
        400: Boolean(operation.parameters?.length || operation.requestBody),
        401: true,
        402: Boolean(access.bi),
        403: forbidden !== undefined,
        404: Boolean(identifiesRecord),
        413: Boolean(operation.requestBody),
        429: true,
      }
    : {};
  const responses = (operation.responses ??= {});
  const describe = (status: number, description: string, schema?: OpenApiSchema) => {
    const given = responses[status];
    responses[status] = {
      ...given,
      description: given?.description || description,
      content: given?.content ?? { 'application/json': { schema: schema ?? ref(status === 429 ? 'RateLimitError' : 'ApiError') } },
    };
  };
  // What the route declares first: the defaults below only fill what is left.
  for (const [status, answer] of Object.entries(declared)) {
    if (typeof answer === 'string') describe(Number(status), answer);
    else describe(Number(status), answer.description, answer.schema);
  }
  for (const [status, applies] of Object.entries(statuses)) {
    if (!applies) continue;
    const description =
      status === '401' && access?.public
        ? 'Invalid or revoked API key (the route also answers without one)'
        : status === '403'
          ? forbidden
          : ERROR_DESCRIPTIONS[Number(status)];
    describe(Number(status), description!);
  }
  // Errors a hand-written route lists with a description only get their body's schema.
  for (const [status, response] of Object.entries(responses)) {
    if (Number(status) >= 400) describe(Number(status), response.description);
  }
  responses.default = {
    description: 'Any other error (docs/errors.md lists every code and its status)',
    content: { 'application/json': { schema: ref('ApiError') } },
  };
}

/**
 * The headers of each response: X-Request-Id on every answer; on the metered /v1 routes the request
 * quota's X-RateLimit-*; on a 429 the refusing window's and Retry-After, which a 503 also gives;
 * Content-Disposition on binary attachments. Headers a route declares itself stay.
 */
function addResponseHeaders(operation: OpenApiOperation, metered: boolean): void {
  for (const [status, response] of Object.entries(operation.responses ?? {}) as [string, OpenApiResponse][]) {
    const names = new Set([
      'X-Request-Id',
      ...(metered ? ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Plan'] : []),
      // Every 429 names the refusing window (RateLimitError), the per-address limits outside /v1 too.
      ...(status === '429' ? ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'] : []),
      ...(status === '503' ? ['Retry-After'] : []),
    ]);
    const attachment = Object.keys(response.content ?? {}).some((type) => ATTACHMENT_TYPES.has(type));
    response.headers = {
      ...Object.fromEntries([...names].map((name) => [name, headerRef(name)])),
      ...(attachment && {
        'Content-Disposition': { description: 'attachment; filename="…"', required: true, schema: { type: 'string' } },
      }),
      ...response.headers,
    };
  }
}

/** OpenAPI 3.0 cannot mark a $ref nullable: it is wrapped (toOpenApi31 makes it anyOf with null). */
function nullable(property: OpenApiSchema): OpenApiSchema {
  if (property.$ref === undefined) return { ...property, nullable: true };
  const { $ref, ...annotations } = property;
  return { ...annotations, nullable: true, allOf: [{ $ref }] };
}

/** SOFA also describes the GraphQL root types Query and Mutation, which no REST route answers. */
function withoutRootTypes(schemas: Record<string, OpenApiSchema>): Record<string, OpenApiSchema> {
  const { Query: _query, Mutation: _mutation, ...rest } = schemas;
  return rest;
}

/** The Standard Webhooks headers of every delivery (docs/webhooks.md, "Signatures"). */
const WEBHOOK_HEADERS = [
  { name: 'webhook-id', description: 'The message id, msg_…: the same on every attempt of one event to one endpoint' },
  { name: 'webhook-timestamp', description: 'Unix time of this attempt' },
  { name: 'webhook-signature', description: 'v1,<base64 HMAC-SHA256 of id.timestamp.body> under the endpoint secret' },
].map(({ name, description }) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } }));

/**
 * The events the service POSTs to webhook endpoints, as OpenAPI 3.1 `webhooks`: each a
 * {type, timestamp, data} body (component `<Event>Event`) with its data schema (WEBHOOK_EVENT_DATA).
 */
export function addWebhooks(document: OpenApiDocument): OpenApiDocument {
  const schemas = document.components!.schemas!;
  const webhooks: Record<string, { post: OpenApiOperation }> = {};
  for (const [type, { summary, schema }] of Object.entries(WEBHOOK_EVENT_DATA)) {
    const name = `${type
      .split('.')
      .slice(1)
      .map((word) => word[0]!.toUpperCase() + word.slice(1))
      .join('')}Event`;
    schemas[name] = {
      type: 'object',
      description: `The body of a ${type} delivery`,
      required: ['type', 'timestamp', 'data'],
      properties: { type: { type: 'string', enum: [type] }, timestamp: { type: 'string', format: 'date-time' }, data: schema },
    };
    webhooks[type] = {
      post: {
        operationId: `on${name}`,
        summary,
        tags: ['Webhooks'],
        security: NO_KEY,
        parameters: WEBHOOK_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: ref(name) } } },
        responses: { 200: { description: 'Any 2xx acknowledges the delivery; anything else is retried' } },
      },
    };
  }
  document.webhooks = webhooks;
  return document;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The finished document in OpenAPI 3.1 (JSON Schema 2020-12), the one place that knows the
 * difference: `nullable` becomes a type array (a $ref: anyOf with null), a boolean
 * exclusiveMinimum/Maximum its number, and a binary body also names its media type.
 */
export function toOpenApi31(document: OpenApiDocument): OpenApiDocument {
  const convert = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(convert);
    if (!isObject(node)) return;
    if (node.nullable === true) {
      if (Array.isArray(node.allOf) && node.allOf.length === 1) {
        node.anyOf = [node.allOf[0], { type: 'null' }];
        // 3.0's `type` beside allOf (Redocly's nullable-type-sibling) would refuse the null anyOf allows.
        delete node.allOf;
        delete node.type;
      } else if (typeof node.type === 'string') {
        node.type = [node.type, 'null'];
        if (Array.isArray(node.enum)) node.enum = [...node.enum, null];
      }
    }
    delete node.nullable;
    for (const [exclusive, inclusive] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (node[exclusive] === true) {
        node[exclusive] = node[inclusive];
        delete node[inclusive];
      } else if (node[exclusive] === false) delete node[exclusive];
    }
    Object.values(node).forEach(convert);
  };
  convert(document);
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const response of Object.values(operation.responses ?? {})) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (media.schema?.format === 'binary') media.schema.contentMediaType = type;
        }
      }
    }
  }
  document.openapi = '3.1.0';
  return document;
}
