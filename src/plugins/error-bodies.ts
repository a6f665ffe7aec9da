import type { Plugin } from 'graphql-yoga';
import { ApiError } from '../errors/api-error.ts';
import type { ErrorCode } from '../errors/codes.ts';
import { errorResponse } from '../errors/render.ts';

export interface ErrorBodiesOptions {
  /** Its errors get a GraphQL error document instead of the ApiError body. */
  graphqlEndpoint: string;
}

const STATUS_CODES: Record<number, [ErrorCode, string]> = {
  404: ['ROUTE_NOT_FOUND', 'Route not found'],
  405: ['METHOD_NOT_ALLOWED', 'Method not allowed'],
  406: ['NOT_ACCEPTABLE', 'Not acceptable: ask for application/json'],
  415: ['UNSUPPORTED_MEDIA_TYPE', 'Unsupported media type: send Content-Type: application/json'],
};

/**
 * Every error response carries a JSON body with a code: an error answered without a body by a
 * library (Yoga's 415 for a GraphQL POST that is not JSON, say) gets the ApiError body for its status.
 */
export function useErrorBodies({ graphqlEndpoint }: ErrorBodiesOptions): Plugin {
  return {
    onResponse({ request, response, setResponse }) {
      if (response.status < 400 || request.method === 'HEAD' || response.headers.get('content-type')) return;
      // Any other status keeps to the documented codes (src/errors/codes.ts): a refused request or a fault.
      const [code, error] = STATUS_CODES[response.status] ?? [
        response.status < 500 ? 'INVALID_REQUEST' : 'INTERNAL_ERROR',
        response.statusText || 'Request failed',
      ];
      const replaced = errorResponse(
        [new ApiError(response.status, code, error, `${request.method} ${new URL(request.url).pathname}: ${error}`)],
        {
          graphql: new URL(request.url).pathname === graphqlEndpoint,
        },
      );
      response.headers.forEach((value, name) => {
        if (name !== 'content-length' && name !== 'content-type') replaced.headers.set(name, value);
      });
      setResponse(replaced);
    },
  };
}
