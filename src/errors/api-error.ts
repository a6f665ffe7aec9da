import { GraphQLError } from 'graphql';
import type { ErrorCode, RateLimitCode } from './codes.ts';

/**
 * The one error type of the service. REST renders it as the spec's ApiError body
 * {error, code, details}; GraphQL carries `code` in extensions. `status` is the HTTP status.
 */
export class ApiError extends GraphQLError {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: string;
  readonly headers: Record<string, string>;

  constructor(status: number, code: ErrorCode, error: string, details = '', headers: Record<string, string> = {}) {
    // spec: false — the status is the service's own; Yoga would otherwise turn a 400 it marks as a
    // GraphQL-over-HTTP rule (parse, validation) into 200 for application/json clients.
    super(error, { extensions: { code, details, http: { status, headers, spec: false } } });
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  /** The JSON body of a REST error response. */
  toBody(): Record<string, unknown> {
    return { error: this.message, code: this.code, details: this.details };
  }
}

/** The allowance that refused a request: how many it allows, and when it resets (Unix seconds). */
export interface RefusingWindow {
  limit: number;
  reset: number;
}

/**
 * 429: the spec gives rate limiting its own body {error, message, retry_after_seconds}; `code` names which limit.
 * Its headers: Retry-After, and X-RateLimit-Limit, -Remaining (0) and -Reset of the refusing `window` for a
 * limit of its own outside the request quota (sign-in, certificate verification). Under /v1 the pipeline
 * sets the request quota's X-RateLimit-* on every answer, so a route's own allowance passes no window and
 * names its headers in `headers` (X-Report-*, X-Export-*).
 */
export class RateLimitError extends ApiError {
  readonly retryAfterSeconds: number;

  constructor(
    code: RateLimitCode,
    message: string,
    retryAfterSeconds: number,
    window: RefusingWindow | undefined,
    headers: Record<string, string> = {},
  ) {
    const windowHeaders = window && {
      'X-RateLimit-Limit': String(window.limit),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(window.reset),
    };
    super(429, code, 'Rate limit exceeded', message, { ...headers, ...windowHeaders, 'Retry-After': String(retryAfterSeconds) });
    this.retryAfterSeconds = retryAfterSeconds;
  }

  override toBody(): Record<string, unknown> {
    return { error: this.message, code: this.code, message: this.details, retry_after_seconds: this.retryAfterSeconds };
  }
}

export const invalidParameter = (field: string, reason: string) =>
  new ApiError(400, 'INVALID_PARAMETER', `Invalid parameter '${field}'`, `${field}: ${reason}`);

/** Fields or parameters the route does not declare, each with the closest declared name when one is close; the first in the message. */
export function unknownParameters(unknown: readonly { field: string; closest?: string | undefined }[]): ApiError {
  const details = unknown.map(({ field, closest }) => `${field}: unknown parameter${closest ? `, did you mean '${closest}'?` : ''}`);
  return new ApiError(400, 'UNKNOWN_PARAMETER', `Unknown parameter '${unknown[0]!.field}'`, details.join('; '));
}

/** What is wrong with one input, naming it as the caller wrote it (`products[3].country`). */
export interface FieldProblem {
  field: string;
  reason: string;
}

/** One 400 for all problems of a request, each naming its field (the first in the message). */
export function invalidFields(problems: readonly FieldProblem[]): ApiError {
  const [first] = problems;
  return new ApiError(
    400,
    'INVALID_PARAMETER',
    `Invalid parameter '${first!.field}'`,
    problems.map((p) => `${p.field}: ${p.reason}`).join('; '),
  );
}

export const notFound = (what: string, details = '') => new ApiError(404, 'NOT_FOUND', `${what} not found`, details);

export const unauthorized = (code: ErrorCode, details: string) =>
  new ApiError(401, code, 'Unauthorized', details, { 'WWW-Authenticate': 'Bearer realm="v1"' });

export const forbidden = (code: ErrorCode, details: string) => new ApiError(403, code, 'Forbidden', details);
