import {
  getNamedType,
  getNullableType,
  getVariableValues,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  valueFromAST,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import { ApiError } from '../errors/api-error.ts';

/**
 * The page size of a paged field (a connection or a page object, or a field returning a list
 * directly), declared on the field: `extensions: { pageSize: { default: 20, max: 100 } }`.
 * The cost model reads it with the field's `first`, `last` or `limit` argument.
 */
export interface PageSize {
  default: number;
  max: number;
}

/** The arguments that size a paged field. */
export const PAGE_SIZE_ARGUMENTS = ['first', 'last', 'limit'] as const;

/** Highest cost a GraphQL operation may have (docs/api.md, "GraphQL"). */
export const MAX_COST = 2_000;

/** Items assumed of a list no page size bounds (reference tables, a batch's results, an organisation's webhook endpoints). */
export const UNSIZED_LIST_LENGTH = 10;

export const pageSizeOf = (field: GraphQLField<unknown, unknown>) => field.extensions.pageSize as PageSize | undefined;

/**
 * Cost of an operation, like GitHub's and Shopify's: every object the response can hold costs 1,
 * scalars cost nothing, and a list counts as many items as it can hold: the page size of its field
 * or of the paged field just above it (a connection's `first` sizes its `edges`), at most the
 * declared maximum, the declared default when not given; a list without a page size counts
 * UNSIZED_LIST_LENGTH items. Nested lists multiply. Fragments count in full (an upper bound);
 * introspection costs nothing (its depth is bounded apart). Undefined when the variables do not
 * coerce: execution refuses those itself.
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
  variables?: Record<string, unknown> | null,
): number | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName
    ? operations.find((op) => op.name?.value === operationName)
    : operations.length === 1
      ? operations[0]
      : undefined;
  const rootType = operation && schema.getRootType(operation.operation);
  if (!operation || !rootType) return undefined;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors) return undefined;
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]),
  );

  const requestedSize = (field: GraphQLField<unknown, unknown>, node: FieldNode, pageSize: PageSize): number => {
    const sizes = PAGE_SIZE_ARGUMENTS.flatMap((name) => {
      const argument = field.args.find((a) => a.name === name);
      const given = node.arguments?.find((a) => a.name.value === name);
      const value = argument && given && valueFromAST(given.value, argument.type, coerced.coerced);
      return typeof value === 'number' ? [value] : [];
    });
    // Above the maximum the field itself refuses the request, with its own error.
    return sizes.length ? Math.min(Math.max(0, ...sizes), pageSize.max) : pageSize.default;
  };

  /** `pageSize`: the page size of the paged field this selection belongs to, for the first list in it. */
  const selectionCost = (type: GraphQLNamedType, selectionSet: SelectionSetNode, pageSize: number | undefined): number => {
    let cost = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        cost += fieldCost(type, selection, pageSize);
      } else {
        const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value);
        if (!fragment) continue;
        const condition = fragment.typeCondition ? schema.getType(fragment.typeCondition.name.value) : type;
        if (condition) cost += selectionCost(condition, fragment.selectionSet, pageSize);
      }
    }
    return cost;
  };

  const fieldCost = (parentType: GraphQLNamedType, node: FieldNode, pageSize: number | undefined): number => {
    // Leaves cost nothing; __typename, __schema and __type are not among the type's fields.
    const field = isObjectType(parentType) || isInterfaceType(parentType) ? parentType.getFields()[node.name.value] : undefined;
    if (!field || !node.selectionSet) return 0;
    const declared = pageSizeOf(field);
    const size = declared && requestedSize(field, node, declared);
    const itemType = getNamedType(field.type);
    if (isListType(getNullableType(field.type)))
      return (size ?? pageSize ?? UNSIZED_LIST_LENGTH) * (1 + selectionCost(itemType, node.selectionSet, undefined));
    return 1 + selectionCost(itemType, node.selectionSet, size);
  };

  return selectionCost(rootType, operation.selectionSet, undefined);
}

const costExceeded = (cost: number, limit: number) =>
  new ApiError(
    400,
    'MAX_COST_EXCEEDED',
    'Query cost limit exceeded',
    `query: costs ${cost}, more than the limit of ${limit}; ask for smaller pages (first, limit) or fewer nested lists`,
  );

/**
 * Prices every operation sent to the GraphQL endpoint before it executes (operationCost, with the
 * request's variables) and refuses one above `limit` with 400 MAX_COST_EXCEEDED. Every response to
 * a priced operation reports `extensions.cost = { requested, limit }`. REST routes (SOFA) run
 * fixed operations through the same executor and are not priced.
 */
export function useCostLimit(graphqlEndpoint: string, limit = MAX_COST): Plugin {
  const costs = new WeakMap<Request, number>();
  return {
    // Not in onValidate: Yoga caches validation results by document, and the cost depends on the variables.
    onExecute({ args, setResultAndStopExecution }) {
      const { request } = args.contextValue as YogaInitialContext;
      if (new URL(request.url).pathname !== graphqlEndpoint) return;
      const cost = operationCost(args.schema, args.document, args.operationName, args.variableValues);
      if (cost === undefined) return;
      costs.set(request, cost);
      if (cost > limit) setResultAndStopExecution({ errors: [costExceeded(cost, limit)] });
    },
    onResultProcess({ request, result, setResult }) {
      const cost = costs.get(request);
      if (cost === undefined || Array.isArray(result) || Symbol.asyncIterator in result) return;
      setResult({ ...result, extensions: { ...result.extensions, cost: { requested: cost, limit } } });
    },
  };
}
