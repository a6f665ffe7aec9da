import { GraphQLError } from 'graphql';
import { ApiError } from './api-error.ts';
import { currentRequest } from '../observability/request-context.ts';

/**
 * Turns anything thrown while serving a request into an ApiError: the service's own errors
 * pass through, GraphQL argument errors (SOFA's coercion of query strings and bodies) become
 * 400s, and everything else is logged and masked as a 500.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof GraphQLError) {
    if (error.originalError instanceof ApiError) return error.originalError;
    const { code, details, http } = error.extensions as { code?: unknown; details?: unknown; http?: { status?: number; headers?: Record<string, string> } };
    // An ApiError re-created by a layer in between (envelop wraps errors thrown by the context factory).
    if (typeof code === 'string' && typeof details === 'string' && http?.status) {
      return new ApiError(http.status, code, error.message, details, http.headers);
    }
    if (error.originalError && !(error.originalError instanceof GraphQLError)) return internal(error.originalError);
    const status = http?.status;
    if (status === undefined || (status >= 400 && status < 500)) {
      const described = describeGraphQLError(error);
      return described.field
        ? new ApiError(status ?? 400, 'INVALID_PARAMETER', `Invalid parameter '${described.field}'`, described.details)
        : new ApiError(status ?? 400, 'INVALID_REQUEST', 'Invalid request', described.details);
    }
  }
  return internal(error);
}

function internal(error: unknown): ApiError {
  currentRequest()?.log.error({ err: error }, 'unhandled error');
  return new ApiError(500, 'INTERNAL_ERROR', 'Internal server error', 'The error was logged; quote the X-Request-Id header when reporting it.');
}

// GraphQL's coercion messages, rephrased to name the REST parameter:
// 'Variable "$country" of required type "String!" was not provided.' -> country: is required
function describeGraphQLError(error: GraphQLError): { field?: string; details: string } {
  const missing = /^Variable "\$(\w+)" of required type "[^"]+" was not provided\.$/.exec(error.message);
  if (missing) return { field: missing[1], details: `${missing[1]}: is required` };
  const invalid = /^Variable "\$(\w+)" got invalid value (.*?)(?: at "\w+(.*?)")?; (.*)$/s.exec(error.message);
  if (invalid) {
    const field = `${invalid[1]}${invalid[3] ?? ''}`;
    return { field, details: `${field}: ${invalid[4]}` };
  }
  const coercion = /^(Int|Float|Boolean|String|ID) cannot represent (.*)$/.exec(error.message);
  if (coercion) return { details: `expected ${coercion[1]}: cannot represent ${coercion[2]}` };
  return { details: error.message };
}

/**
 * The HTTP response for errors: the ApiError body for REST, or a GraphQL error document
 * (extensions.code) for the GraphQL endpoint when the request is refused before execution.
 */
export function errorResponse(errors: readonly unknown[], { graphql = false } = {}): Response {
  // Several errors (GraphQL may report more than one): the most severe status wins.
  const apiErrors = errors.map(toApiError).sort((a, b) => b.status - a.status);
  const first = apiErrors[0] ?? toApiError(new Error('empty error list'));
  const body = graphql ? { errors: [{ message: first.message, extensions: { code: first.code, ...first.toBody() } }] } : first.toBody();
  return Response.json(body, {
    status: first.status,
    headers: { ...first.headers, 'Content-Type': 'application/json; charset=utf-8' },
  });
}
