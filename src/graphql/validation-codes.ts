import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { ApiError } from '../errors/api-error.ts';
import type { ErrorCode } from '../errors/codes.ts';

// graphql-armor reports its limits as messages without a code; these name them.
const ARMOR_LIMITS: [RegExp, ErrorCode][] = [
  [/Aliases limit/i, 'MAX_ALIASES_EXCEEDED'],
  [/Query depth limit/i, 'MAX_DEPTH_EXCEEDED'],
  [/Directives limit/i, 'MAX_DIRECTIVES_EXCEEDED'],
  [/Token limit/i, 'MAX_TOKENS_EXCEEDED'],
];

/** `details` of an error of the query text, worded like REST's: the field (`query`), then the reason (and where, for a syntax or validation error). */
function queryDetails(error: GraphQLError, withPosition = false): string {
  const at = withPosition ? error.locations?.[0] : undefined;
  return `query: ${error.message.replace(/^Syntax Error: /, '')}${at ? ` (line ${at.line}, column ${at.column})` : ''}`;
}

/**
 * Every parse and validation error leaves with extensions.code and extensions.details, armor's limits
 * included; a limit rejection answers HTTP 400 (docs/api.md, "GraphQL") whatever the Accept header, like a malformed query.
 */
export function useValidationErrorCodes(): Plugin {
  const withCode = (error: GraphQLError, fallback: string) => {
    const limit = ARMOR_LIMITS.find(([pattern]) => pattern.test(error.message))?.[1];
    // As an ApiError a limit keeps its 400 for application/json clients too (Yoga answers those 200
    // for its own parse and validation errors, and marks them so on the way out).
    if (limit) return new ApiError(400, limit, error.message, queryDetails(error));
    if (error.extensions?.code && error.extensions.details) return error;
    return new GraphQLError(error.message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      extensions: { ...error.extensions, code: error.extensions?.code ?? fallback, details: queryDetails(error, true) },
    });
  };
  return {
    onValidate() {
      return ({ result, setResult }) => {
        if (result.length) setResult(result.map((error) => withCode(error as GraphQLError, 'GRAPHQL_VALIDATION_FAILED')));
      };
    },
    onParse() {
      return ({ result, replaceParseResult }) => {
        if (result instanceof GraphQLError) replaceParseResult(withCode(result, 'GRAPHQL_PARSE_FAILED'));
      };
    },
  };
}
