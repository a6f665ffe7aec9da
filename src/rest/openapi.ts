import type { GraphQLArgument, GraphQLField, GraphQLInputField, GraphQLSchema } from 'graphql';
import { isInputObjectType, isNonNullType, isObjectType } from 'graphql';
import type { OpenApiDocument, OpenApiOperation, OpenApiSchema, Security } from '../kernel/openapi-types.ts';
import type { RestRoute } from '../graphql/builder.ts';
import { pageSizeOf, PAGE_SIZE_ARGUMENTS } from '../graphql/cost.ts';
import type { Bounds } from '../validation/schemas.ts';
import type { Access } from '../auth/access.ts';
import { PLAN_RULES } from '../auth/plan-rules.ts';
import { preciseArguments, preciseComponents } from './openapi-schemas.ts';
import { API_ERROR_CODES, RATE_LIMIT_CODES } from '../errors/codes.ts';

/** The document type, for the REST plugin that serves it. */
export type { OpenApiDocument } from '../kernel/openapi-types.ts';

/** Pothos argument/input-field options documenting the bounds the code checks: `t.arg.float({ ...bounds({ minimum: 0 }) })`. */
export const bounds = (declared: Bounds) => ({ extensions: { bounds: declared } });

const boundsOf = (input: GraphQLArgument | GraphQLInputField | undefined) => input?.extensions?.bounds as Bounds | undefined;

const KEY_REQUIRED: Security = [{ bearer: [] }];
const KEY_OPTIONAL: Security = [{ bearer: [] }, {}];
const BODY_METHODS = new Set(['post', 'put', 'patch']);
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

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
 * generators read it right: bodies only as requestBody, an operationId on every operation
 * (the GraphQL field name for SOFA's routes), per-operation security and plan from the route's
 * declared access, the error responses each operation can answer with the ApiError and
 * RateLimitError schemas, and the numeric bounds the code checks. Text limits are addOpenApiLimits'.
 * `routeFields`: SOFA's root fields by `METHOD /path`; `routeAccess`: every route's declared access by the same key.
 */
export function completeOpenApi(
  document: OpenApiDocument,
  schema: GraphQLSchema,
  routeFields: Map<string, GraphQLField<unknown, unknown>>,
  routeAccess: Map<string, Access>,
): OpenApiDocument {
  const operationIds = new Set<string>();
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const field = routeFields.get(`${method.toUpperCase()} ${path}`);
      operation.operationId = field?.name ?? operation.operationId;
      if (!operation.operationId || operationIds.has(operation.operationId)) {
        throw new Error(`OpenAPI: ${method.toUpperCase()} ${path} needs a unique operationId, has ${operation.operationId}`);
      }
      operationIds.add(operation.operationId);
      if (BODY_METHODS.has(method)) onlyBodyInputs(operation);
      if (field) addArgumentBounds(operation, field);
      if (field) preciseArguments(operation, field, document.components?.schemas ?? {}, schema);
      const route = field?.extensions?.rest as RestRoute | undefined;
      const access = routeAccess.get(`${method.toUpperCase()} ${path}`);
      if (!access) throw new Error(`OpenAPI: ${method.toUpperCase()} ${path} is no route of the table that declares its access`);
      operation.security = access.public ? KEY_OPTIONAL : KEY_REQUIRED;
      if (access.plan)
        operation.description = [operation.description, `Requires the ${PLAN_RULES[access.plan].minimum} plan or above.`]
          .filter(Boolean)
          .join(' ');
      addErrorResponses(operation, access, route?.errors ?? {});
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
  document.components = { ...document.components, schemas: { ...withoutRootTypes(document.components?.schemas ?? {}), ...ERROR_SCHEMAS } };
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
 * The error responses an operation can answer, from what the route is: any route may meet a bad key
 * (401) or a rate limit (429); inputs can be invalid (400); a body can be too large (413); its
 * declared access may refuse a key (402, 403); an id names a record that may not exist (404);
 * anything else the route declares (RestRoute.errors). Descriptions a hand-written route gives stay.
 */
function addErrorResponses(operation: OpenApiOperation, access: Access, declared: NonNullable<RestRoute['errors']>): void {
  const forbidden = forbiddenReasons(access);
  const identifiesRecord =
    operation.parameters?.some((p) => p.in === 'path') ||
    [
      ...(operation.parameters ?? []).filter((p) => p.required).map((p) => p.name),
      ...(operation.requestBody?.content?.['application/json']?.schema?.required ?? []),
    ].some((name) => name === 'id' || name.endsWith('_id'));
  const statuses: Record<number, boolean> = {
    400: Boolean(operation.parameters?.length || operation.requestBody),
    401: true,
    402: Boolean(access.bi),
    403: forbidden !== undefined,
    404: Boolean(identifiesRecord),
    413: Boolean(operation.requestBody),
    429: true,
  };
  const responses = (operation.responses ??= {});
  const describe = (status: number, description: string, schema?: OpenApiSchema) => {
    const given = responses[status];
    responses[status] = {
      ...given,
      description: given?.description || description,
      content: given?.content ?? { 'application/json': { schema: schema ?? ref(status === 429 ? 'RateLimitError' : 'ApiError') } },
      ...(status === 429 || status === 503
        ? { headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } } }
        : {}),
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
      status === '401' && access.public
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
}

/** OpenAPI 3.0 cannot mark a $ref nullable: it is wrapped. */
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
