import {
  coerceInputValue,
  getNullableType,
  isInputObjectType,
  isListType,
  Kind,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { RestRoute } from '../graphql/builder.ts';
import { ApiError } from '../errors/api-error.ts';
import { rephraseCoercion } from '../errors/render.ts';
import { currentRequest } from '../observability/request-context.ts';
import { normalizeEnums } from './arguments.ts';
import type * as z from 'zod';
import { problemsOf } from '../validation/schemas.ts';

/** Why one field of an item was refused; `field` is relative to the item, empty for the item itself. */
export interface ItemProblem {
  field: string;
  reason: string;
}

declare module '../observability/request-context.ts' {
  interface RequestState {
    /** Items of a REST per-item list argument that GraphQL would refuse: index -> problems. */
    refusedItems?: ReadonlyMap<number, readonly ItemProblem[]>;
  }
}

/** "field: reason; field: reason", as the engine words the problems of an item. */
export const describeProblems = (problems: readonly ItemProblem[]): string =>
  problems.map((p) => (p.field ? `${p.field}: ${p.reason}` : p.reason)).join('; ');

/**
 * For a REST route with a per-item list argument (RestRoute.perItemArgument): each item GraphQL
 * would refuse is replaced by an empty item, so that the others still reach the resolver, and
 * its problems are kept in the request state for refusedItems(). Returns the variables to execute.
 */
export function setAsideRefusedItems(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): Record<string, unknown> {
  const field = rootField(schema, operation);
  const name = (field?.extensions?.rest as RestRoute | undefined)?.perItemArgument;
  const arg = field?.args.find((a) => a.name === name);
  const list = arg && getNullableType(arg.type);
  const items = name === undefined ? undefined : variables[name];
  if (!isListType(list) || !Array.isArray(items)) return variables;
  const itemType = list.ofType as GraphQLInputType;
  const refused = new Map<number, ItemProblem[]>();
  const checked = items.map((item, index) => {
    const reasons: ItemProblem[] = [];
    const normalized = withEnumsNormalized(itemType, item, reasons);
    coerceInputValue(normalized, itemType, (path, _value, error) => {
      const described = rephraseCoercion(path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join(''), error.message);
      // Named relative to the item, as the engine names the fields of an item error (`brand: is required`).
      reasons.push({ field: described.field.replace(/^\./, ''), reason: described.reason });
    });
    if (reasons.length === 0) reasons.push(...fieldSchemaProblems(itemType, normalized));
    if (reasons.length === 0) return normalized;
    refused.set(index, reasons);
    return {};
  });
  if (refused.size === 0) return variables;
  currentRequest()!.refusedItems = refused;
  return { ...variables, [name!]: checked };
}

/**
 * The request SOFA is to read, with each string item of the per-item list argument written as a
 * JSON string: SOFA parses a string given for an input object as JSON (as a query parameter
 * is), which would fail the whole request on `"x"`; quoted, it parses back to itself and is
 * refused as that item (setAsideRefusedItems).
 */
export function withStringItemsQuoted(request: Request, body: Record<string, unknown>, perItemArgument: string | undefined): Request {
  const items = perItemArgument === undefined ? undefined : body[perItemArgument];
  if (!Array.isArray(items) || !items.some((item) => typeof item === 'string')) return request;
  const quoted = items.map((item) => (typeof item === 'string' ? JSON.stringify(item) : item));
  const headers = new Headers(request.headers);
  headers.delete('content-length');
  return new Request(request.url, {
    method: request.method,
    headers,
    body: JSON.stringify({ ...body, [perItemArgument!]: quoted }),
    signal: request.signal,
  });
}

/** The problems refused items were set aside for (setAsideRefusedItems), by index; empty when none were. */
export const refusedItems = (): ReadonlyMap<number, readonly ItemProblem[]> => currentRequest()?.refusedItems ?? new Map();

function rootField(schema: GraphQLSchema, operation: OperationDefinitionNode): GraphQLField<unknown, unknown> | undefined {
  const selection = operation.selectionSet.selections[0];
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  return selection?.kind === Kind.FIELD ? root?.getFields()[selection.name.value] : undefined;
}

/**
 * What the schemas declared on the item's fields (text limits, bounds: @pothos/plugin-validation's)
 * refuse: checked here so that they refuse the item, not the whole request.
 */
function fieldSchemaProblems(itemType: GraphQLInputType, item: unknown): ItemProblem[] {
  const objectType = getNullableType(itemType);
  if (!isInputObjectType(objectType) || item === null || typeof item !== 'object') return [];
  return Object.values(objectType.getFields()).flatMap((field) => {
    const value = (item as Record<string, unknown>)[field.name];
    if (value === undefined || value === null) return [];
    const schemas = (field.extensions?.[VALIDATION] as { schemas?: z.ZodType[] } | undefined)?.schemas ?? [];
    return schemas.flatMap((schema) =>
      problemsOf(schema, value).map((p) => ({
        field: `${field.name}${p.field ? (p.field.startsWith('[') ? '' : '.') + p.field : ''}`,
        reason: p.reason,
      })),
    );
  });
}

const VALIDATION = '@pothos/plugin-validation';

/** The item with its enum fields in their declared case (normalizeEnums); a field no enum value matches is left out and its reason added. */
function withEnumsNormalized(itemType: GraphQLInputType, item: unknown, reasons: ItemProblem[]): unknown {
  const objectType = getNullableType(itemType);
  if (!isInputObjectType(objectType) || item === null || typeof item !== 'object' || Array.isArray(item)) return item;
  const normalized: Record<string, unknown> = { ...(item as Record<string, unknown>) };
  for (const [name, definition] of Object.entries(objectType.getFields())) {
    if (!(name in normalized)) continue;
    try {
      normalized[name] = normalizeEnums(definition.type, normalized[name], name);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // invalidParameter's details: "<field>: <reason>".
      const at = error.details.indexOf(': ');
      reasons.push({ field: error.details.slice(0, at), reason: error.details.slice(at + 2) });
      delete normalized[name];
    }
  }
  return normalized;
}
