import { openApiPath, type RouteTable } from '../kernel/routes.ts';
import type { OpenApiDocument } from '../kernel/openapi-types.ts';
import { TEXT_LIMITS } from '../validation/text.ts';
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from './plugin.ts';

const PARAMETER_DESCRIPTION =
  'Makes a retry safe: the same key with the same request within 24 hours answers the first request again ' +
  `(status, body and headers, with ${REPLAYED_HEADER}: true) without doing the work or spending quota; ` +
  'the same key with another request is 422 IDEMPOTENCY_KEY_REUSED. Scoped to your API key. docs/api.md, "Retries and Idempotency-Key".';

const API_ERROR = { 'application/json': { schema: { $ref: '#/components/schemas/ApiError' } } };
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } };
const IN_USE = 'the first request with this Idempotency-Key is still running (IDEMPOTENCY_KEY_IN_USE): retry after Retry-After seconds';
const REUSED = 'the Idempotency-Key was used for another request within 24 hours (IDEMPOTENCY_KEY_REUSED)';
const INVALID_KEY = 'the Idempotency-Key is empty, too long or has a control character (INVALID_PARAMETER)';

type Responses = NonNullable<NonNullable<OpenApiDocument['paths']>[string][string]['responses']>;

/**
 * The error response `status` with `reason` added to what the route already declares for it; a new one
 * carries the headers of the operation's other error answers (X-Request-Id, X-RateLimit-*: the 401's, which every keyed route has).
 */
function withReason(responses: Responses, status: number, reason: string, headers: Record<string, unknown> = {}): void {
  const given = responses[status];
  const description = given ? `${given.description}; or ${reason}` : `${reason[0]!.toUpperCase()}${reason.slice(1)}`;
  responses[status] = {
    ...given,
    description,
    content: given?.content ?? API_ERROR,
    headers: { ...(given?.headers ?? responses[401]?.headers), ...headers },
  };
}

/**
 * The Idempotency-Key header parameter, its 400, 409 and 422 reasons and the replay header on exactly
 * the operations whose routes declare `idempotent` in the route table (useIdempotency serves the same
 * declaration). Applied to the completed document, so the routes' own error responses are there to add to.
 */
export function addIdempotencyKeys(document: OpenApiDocument, table: RouteTable): OpenApiDocument {
  for (const route of table.routes) {
    if (!route.idempotent) continue;
    const path = openApiPath(route.pattern);
    const method = route.method.toLowerCase();
    const operation = document.paths?.[path]?.[method];
    if (!operation)
      throw new Error(`OpenAPI: ${route.method} ${route.pattern} takes an Idempotency-Key but the document has no such operation`);
    // Copied, never changed in place: a hand-written route's operation is a module's constant, served by every app.
    const responses: Responses = { ...operation.responses };
    for (const [status, response] of Object.entries(responses)) {
      if (!status.startsWith('2')) continue;
      responses[status] = {
        ...response,
        headers: {
          ...response.headers,
          [REPLAYED_HEADER]: {
            description: 'true when this answer is the stored answer of an earlier request with the same Idempotency-Key',
            schema: { type: 'string', enum: ['true'] },
          },
        },
      };
    }
    withReason(responses, 400, INVALID_KEY);
    withReason(responses, 409, IN_USE, RETRY_AFTER);
    withReason(responses, 422, REUSED);
    const parameter = {
      name: IDEMPOTENCY_KEY_HEADER,
      in: 'header',
      required: false,
      description: PARAMETER_DESCRIPTION,
      schema: { type: 'string', minLength: 1, maxLength: TEXT_LIMITS.idempotencyKey },
    };
    document.paths![path] = {
      ...document.paths![path],
      [method]: { ...operation, parameters: [...(operation.parameters ?? []), parameter], responses },
    };
  }
  return document;
}
