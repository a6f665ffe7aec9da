import { GraphQLError } from 'graphql';
import { ApiError } from './api-error.ts';
import type { Plugin } from 'graphql-yoga';
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

/** The client went away mid-request (Node reports "aborted" / ECONNRESET): nobody is waiting for an answer. */
function isClientDisconnect(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return error.name === 'AbortError' || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || error.message === 'aborted';
}

function internal(error: unknown): ApiError {
  if (isClientDisconnect(error)) {
    currentRequest()?.log.info({ reason: (error as Error).message }, 'client disconnected before the response');
    return new ApiError(499, 'CLIENT_CLOSED_REQUEST', 'Client closed request', 'The connection was closed before the response was ready');
  }
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

const STATUS_CODES: Record<number, [string, string]> = {
  404: ['ROUTE_NOT_FOUND', 'Route not found'],
  405: ['METHOD_NOT_ALLOWED', 'Method not allowed'],
  406: ['NOT_ACCEPTABLE', 'Not acceptable: ask for application/json'],
  415: ['UNSUPPORTED_MEDIA_TYPE', 'Unsupported media type: send Content-Type: application/json'],
};

/**
 * Every error response carries a JSON body with a code: an error answered without a body by a
 * library (Yoga's 415 for a GraphQL POST that is not JSON, say) gets the ApiError body for its status.
 */
export function useErrorBodies(graphqlEndpoint: string): Plugin {
  return {
    onResponse({ request, response, setResponse }) {
      if (response.status < 400 || request.method === 'HEAD' || response.headers.get('content-type')) return;
      const [code, error] = STATUS_CODES[response.status] ?? [`HTTP_${response.status}`, response.statusText || 'Request failed'];
      const replaced = errorResponse([new ApiError(response.status, code, error, `${request.method} ${new URL(request.url).pathname}: ${error}`)], {
        graphql: new URL(request.url).pathname === graphqlEndpoint,
      });
      response.headers.forEach((value, name) => {
        if (name !== 'content-length' && name !== 'content-type') replaced.headers.set(name, value);
      });
      setResponse(replaced);
    },
  };
}
