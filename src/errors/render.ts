import { GraphQLError } from 'graphql';
import { ApiError, invalidParameter, unknownParameters } from './api-error.ts';
import { currentRequest } from '../observability/request-context.ts';
import type { ErrorCode } from './codes.ts';

/**
 * Turns anything thrown while serving a request into an ApiError: the service's own errors
 * pass through, GraphQL's coercion errors (SOFA's coercion of query strings and bodies) become
 * 400s in the service's wording, and everything else is logged and masked as a 500.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof GraphQLError) {
    if (error.originalError instanceof ApiError) return error.originalError;
    const { code, details, http } = error.extensions as {
      code?: unknown;
      details?: unknown;
      http?: { status?: number; headers?: Record<string, string> };
    };
    // Checked first: the masked copy of a coercion error still carries GraphQL's message.
    const coercion = describeCoercionError(error);
    if (coercion?.unknown) return unknownParameters([{ field: coercion.field, closest: coercion.closest }]);
    if (coercion) return invalidParameter(coercion.field, coercion.reason);
    // An ApiError re-created by a layer in between (envelop wraps errors thrown by the context factory).
    if (typeof code === 'string' && typeof details === 'string' && http?.status) {
      return new ApiError(http.status, code as ErrorCode, error.message, details, http.headers);
    }
    if (error.originalError && !(error.originalError instanceof GraphQLError)) return internal(error.originalError);
    const status = http?.status;
    if (status === undefined || (status >= 400 && status < 500)) {
      return new ApiError(status ?? 400, 'INVALID_REQUEST', 'Invalid request', error.message);
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
  return new ApiError(
    500,
    'INTERNAL_ERROR',
    'Internal server error',
    'The error was logged; quote the X-Request-Id header when reporting it.',
  );
}

/**
 * GraphQL's variable coercion errors, rephrased in the service's words and naming the field as
 * REST does (`products[0].ram_gb`); undefined for any other error.
 * 'Variable "$products" got invalid value "lots" at "products[0].ram_gb"; Float cannot represent non numeric value: "lots"'
 *   -> products[0].ram_gb: must be a number, got 'lots'
 */
export function describeCoercionError(error: GraphQLError): CoercionProblem | undefined {
  const variable = /^Variable "\$(\w+)" of (?:required|non-null) type "[^"]+" (was not provided|must not be null)\.$/.exec(error.message);
  if (variable) return { field: variable[1]!, reason: variable[2] === 'was not provided' ? 'is required' : 'must not be null' };
  const invalid = /^Variable "\$(\w+)" got invalid value .*?(?: at "\w+([^"]*)")?; /s.exec(error.message);
  if (!invalid) return undefined;
  const field = `${invalid[1]}${invalid[2] ?? ''}`;
  // graphql-js keeps the reason as the original error; its message is the text after the prefix.
  return rephraseCoercion(field, error.originalError?.message ?? error.message.slice(invalid[0].length));
}

/** A refused value in the service's words; `unknown` for a field the input type does not declare, with GraphQL's closest suggestion. */
export interface CoercionProblem {
  field: string;
  reason: string;
  unknown?: boolean;
  closest?: string | undefined;
}

/** GraphQL's reason for refusing the value of `field` ('Float cannot represent non numeric value: "lots"'), in the service's words. */
export function rephraseCoercion(field: string, reason: string): CoercionProblem {
  for (const [pattern, rephrase] of COERCION_REASONS) {
    const match = pattern.exec(reason);
    if (match) return rephrase(field, match);
  }
  return { field, reason };
}

/** A value as GraphQL's inspect() prints it ("lots", 5, { a: 1 }), quoted as the service quotes values ('lots'). */
const shown = (inspected: string) => (/^".*"$/s.test(inspected) ? `'${inspected.slice(1, -1)}'` : inspected);

const COERCION_REASONS: [RegExp, (field: string, match: RegExpExecArray) => CoercionProblem][] = [
  [/^Int cannot represent non-integer value: (.*)$/s, (field, [, v]) => ({ field, reason: `must be an integer, got ${shown(v!)}` })],
  [
    /^Int cannot represent non 32-bit signed integer value: (.*)$/s,
    (field, [, v]) => ({ field, reason: `must be an integer from -2147483648 to 2147483647, got ${v}` }),
  ],
  [/^Float cannot represent non numeric value: (.*)$/s, (field, [, v]) => ({ field, reason: `must be a number, got ${shown(v!)}` })],
  [/^String cannot represent a non string value: (.*)$/s, (field, [, v]) => ({ field, reason: `must be a string, got ${shown(v!)}` })],
  [
    /^Boolean cannot represent a non boolean value: (.*)$/s,
    (field, [, v]) => ({ field, reason: `must be true or false, got ${shown(v!)}` }),
  ],
  [
    /^ID cannot represent (?:a non-string and non-integer )?value: (.*)$/s,
    (field, [, v]) => ({ field, reason: `must be a string or an integer, got ${shown(v!)}` }),
  ],
  [
    /^Enum "(\w+)" cannot represent non-string value: (.*?)\.(?: Did you mean.*)?$/s,
    (field, [, e, v]) => ({ field, reason: `must be one of the ${e} values, got ${shown(v!)}` }),
  ],
  [
    /^Value (".*") does not exist in "(\w+)" enum\.(?: Did you mean.*)?$/s,
    (field, [, v, e]) => ({ field, reason: `must be one of the ${e} values, got ${shown(v!)}` }),
  ],
  [/^Expected type "\w+" to be an object\.$/, (field) => ({ field, reason: 'must be an object' })],
  [/^Expected non-nullable type "[^"]+" not to be null\.$/, (field) => ({ field, reason: 'must not be null' })],
  [/^Field "(\w+)" of required type "[^"]+" was not provided\.$/, (field, [, f]) => ({ field: `${field}.${f}`, reason: 'is required' })],
  [
    /^Field "(\w+)" is not defined by type "\w+"\.(?: Did you mean (.*)\?)?$/s,
    (field, [, f, similar]) => ({
      field: `${field}.${f}`,
      reason: similar ? `unknown field; did you mean ${similar.replaceAll('"', "'")}?` : 'unknown field',
      unknown: true,
      closest: similar && /"(\w+)"/.exec(similar)?.[1],
    }),
  ],
  // A custom scalar's own message (DateTime, Date, Long), without GraphQL's prefix.
  [/^Expected type "\w+"\. (.+)$/s, (field, [, message]) => ({ field, reason: message! })],
];

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
