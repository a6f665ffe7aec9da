import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import type { GraphQLError, ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';

// Armor's validation limits report as validation errors (code and 400 added by useValidationErrorCodes)
// instead of throwing out of validation, which GraphQL would answer with 200.
const reportAsValidationError = {
  propagateOnRejection: false,
  onReject: [(ctx: ValidationContext | null, error: GraphQLError) => ctx?.reportError(error)],
};
const armorLimits = {
  maxDepth: { n: 10, ...reportAsValidationError },
  // __typename aliases count like any other.
  maxAliases: { n: 15, allowList: [], ...reportAsValidationError },
  maxDirectives: { n: 20, ...reportAsValidationError },
  // Priced by useCostLimit (src/graphql/cost.ts) instead: armor's cost sees only literal first/last, not variables, limit or defaults.
  costLimit: { enabled: false },
  maxTokens: { n: 2_000 },
  blockFieldSuggestion: { enabled: true },
};
// The depth limit above skips __schema; introspection gets its own bound, the depth of the standard
// introspection query (graphql-js getIntrospectionQuery, what GraphiQL and codegen send).
export const INTROSPECTION_MAX_DEPTH = 21;
const introspectionDepthLimit = {
  maxDepth: { n: INTROSPECTION_MAX_DEPTH, ignoreIntrospection: false, ...reportAsValidationError },
  maxAliases: { enabled: false },
  maxDirectives: { enabled: false },
  costLimit: { enabled: false },
  maxTokens: { enabled: false },
  blockFieldSuggestion: { enabled: false },
};

/** GraphQL's depth, alias, directive and token limits for every plan (values documented in docs/api.md, "GraphQL"), introspection's depth bound. */
export function useArmor(): Plugin[] {
  return [EnvelopArmorPlugin(armorLimits), EnvelopArmorPlugin(introspectionDepthLimit)];
}
