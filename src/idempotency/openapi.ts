import { openApiPath, type RouteTable } from '../kernel/routes.ts';
import { REST_BASE } from '../kernel/paths.ts';
import type { OpenApiDocument } from '../kernel/openapi-types.ts';
import { TEXT_LIMITS } from '../validation/text.ts';
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from './plugin.ts';

const PARAMETER_DESCRIPTION =
  'Makes a retry safe: the same key with the same request within 24 hours answers the first request again ' +
  `(status, body and headers, with ${REPLAYED_HEADER}: true) without doing the work or spending quota; ` +
  'the same key with another request is 422 IDEMPOTENCY_KEY_REUSED. Scoped to your API key. docs/api.md, "Retries and Idempotency-Key".';

/**
 * The Idempotency-Key header parameter, its 409 and 422 and the replay header on exactly the operations
 * whose routes declare `idempotent` in the route table (useIdempotency serves the same declaration).
 */
export function addIdempotencyKeys(document: OpenApiDocument, table: RouteTable): OpenApiDocument {
  for (const route of table.routes) {
    if (!route.idempotent || !route.pattern.startsWith(`${REST_BASE}/`)) continue;
    const path = openApiPath(route.pattern.slice(REST_BASE.length));
    const method = route.method.toLowerCase();
    const operation = document.paths?.[path]?.[method];
    if (!operation)
      throw new Error(`OpenAPI: ${route.method} ${route.pattern} takes an Idempotency-Key but the document has no such operation`);
    // Copied, never changed in place: a hand-written route's operation is a module's constant, served by every app.
    const responses = { ...operation.responses };
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
    responses[409] ??= {
      description: 'The first request with this Idempotency-Key is still running (IDEMPOTENCY_KEY_IN_USE); retry after Retry-After seconds',
      headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
    };
    responses[422] = {
      description: [
        responses[422]?.description,
        'The Idempotency-Key was used for another request within 24 hours (IDEMPOTENCY_KEY_REUSED)',
      ]
        .filter(Boolean)
        .join('; '),
    };
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
