import { GraphQLError } from 'graphql';
import { ApiError } from '../errors/api-error.ts';
import { toApiError } from '../errors/render.ts';

/**
 * GraphQL's error masking: the service's ApiErrors keep their message, extensions.code and details;
 * GraphQL's own errors (syntax, validation) pass through with their codes, given details; anything
 * unexpected is logged and masked as INTERNAL_ERROR by toApiError.
 */
export function maskGraphQLError(error: unknown): Error {
  if (error instanceof GraphQLError && error.originalError === undefined && !(error instanceof ApiError)) {
    if (error.extensions?.code && error.extensions.details) return error;
    // GraphQL's own coercion errors (a missing or mistyped variable) carry no code: named like REST's.
    // A library's coded error without details (Yoga's request errors) is its own details: every error has both.
    const { code, details } = error.extensions?.code ? { code: error.extensions.code, details: error.message } : toApiError(error);
    return new GraphQLError(error.message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      extensions: { ...error.extensions, code, details },
    });
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
