import { GraphQLError } from 'graphql';
import { ApiError } from '../errors/api-error.ts';
import { toApiError } from '../errors/render.ts';

/**
 * GraphQL's error masking: the service's ApiErrors keep their message and extensions.code;
 * GraphQL's own errors (syntax, validation) pass through with Yoga's codes; anything
 * unexpected is logged and masked as INTERNAL_ERROR by toApiError.
 */
export function maskGraphQLError(error: unknown): Error {
  if (error instanceof GraphQLError && error.originalError === undefined && !(error instanceof ApiError)) {
    if (error.extensions?.code) return error;
    // GraphQL's own coercion errors (a missing or mistyped variable) carry no code: named like REST's.
    const { code, details } = toApiError(error);
    return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, extensions: { ...error.extensions, code, details } });
  }
  const api = toApiError(error);
  return new GraphQLError(api.message, {
    nodes: error instanceof GraphQLError ? error.nodes : undefined,
    path: error instanceof GraphQLError ? error.path : undefined,
    // Kept so REST (SOFA) renders the error's own body (e.g. the 404 of /identify).
    originalError: api,
    extensions: { code: api.code, details: api.details, http: { status: api.status, headers: api.headers } },
  });
}
