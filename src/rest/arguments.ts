import {
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isScalarType,
  typeFromAST,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { invalidParameter } from '../errors/api-error.ts';
import { isQueryBoolean, queryNumber, refuseUnknown } from '../validation/strict-input.ts';

const INT_RANGE = [-(2 ** 31), 2 ** 31 - 1] as const;

/**
 * A value as the service quotes it in `details`: strings in single quotes cut at 50 characters, other
 * scalars as JSON, arrays and objects by their kind only (never walked: the input may be hostile).
 */
const shown = (value: unknown) => {
  if (Array.isArray(value)) return 'an array';
  if (value !== null && typeof value === 'object') return 'an object';
  const text = typeof value === 'string' ? `'${value}'` : String(value);
  return text.length > 50 ? `${text.slice(0, 50)}…` : text;
};

/**
 * The top-level arguments of a REST route as SOFA reads them (a path parameter, else the query
 * parameter, else the body field), checked before SOFA parses them: SOFA's own parse errors
 * ("Int cannot represent non-integer value") name no field, and SOFA ignores what it does not
 * know. A query parameter or body field that is no argument is 400 UNKNOWN_PARAMETER; a body
 * value must have its argument's JSON type exactly, a query value follows the query-string rule
 * (queryNumber, isQueryBoolean). The per-item list argument must be a list; its items are the
 * items' own (setAsideRefusedItems). Deeper values are GraphQL's to coerce (rephrased by
 * describeCoercionError), enums are normalizeEnumInputs'.
 */
export function checkRestArguments(
  args: readonly GraphQLArgument[],
  pathParams: ReadonlySet<string>,
  url: URL,
  body: Record<string, unknown>,
  perItemArgument?: string,
): void {
  const declared = args.map((arg) => arg.name);
  // A bracketed parameter (`a[x]=1`) is refused by name below (queryValue) when `a` is declared.
  refuseUnknown(
    new Set([...url.searchParams.keys()].map((key) => (declared.includes(key.split('[')[0]!) ? key.split('[')[0]! : key))),
    declared,
  );
  refuseUnknown(Object.keys(body), declared);
  for (const arg of args) {
    if (pathParams.has(arg.name)) continue;
    const fromQuery = queryValue(url.searchParams, arg.name);
    // SOFA takes the query parameter when it is non-empty, the body field otherwise.
    const inQuery = fromQuery !== undefined && fromQuery !== '';
    const value = inQuery ? fromQuery : body[arg.name];
    if (value === undefined || value === null) continue;
    if (arg.name === perItemArgument) {
      if (!Array.isArray(value)) throw invalidParameter(arg.name, `must be an array, got ${shown(value)}`);
      continue;
    }
    checkArgument(arg.type, value, arg.name, inQuery);
  }
}

/** A query parameter given once; repeated (`a=1&a=2`) or bracketed (`a[x]=1`), SOFA's parser would make it a list or an object. */
function queryValue(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1 || [...params.keys()].some((key) => key.startsWith(`${name}[`))) {
    throw invalidParameter(name, `must be given once, as ${name}=value`);
  }
  return values[0];
}

function checkArgument(type: GraphQLInputType, value: unknown, field: string, inQuery: boolean): void {
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    // A single value stands for a list of one, as in GraphQL.
    if (!Array.isArray(value)) return checkArgument(nullable.ofType, value, field, inQuery);
    value.forEach((item, index) => {
      if (item !== null) checkArgument(nullable.ofType, item, `${field}[${index}]`, inQuery);
    });
    return;
  }
  if (isInputObjectType(nullable)) {
    // SOFA reads an object given as text (a query parameter) as JSON.
    if (typeof value === 'string' && !isJsonObject(value)) throw invalidParameter(field, `must be a JSON object, got ${shown(value)}`);
    return;
  }
  if (!isScalarType(nullable)) return;
  const text = typeof value === 'string';
  // A JSON body is exact ("5" is no number); a query string is text, read by the query-string rule.
  const number = !inQuery ? value : text ? queryNumber(value) : Number.NaN;
  switch (nullable.name) {
    case 'Int':
      if (typeof number !== 'number' || !Number.isInteger(number)) throw invalidParameter(field, `must be an integer, got ${shown(value)}`);
      if (number < INT_RANGE[0] || number > INT_RANGE[1])
        throw invalidParameter(field, `must be an integer from ${INT_RANGE[0]} to ${INT_RANGE[1]}, got ${shown(value)}`);
      return;
    case 'Float':
      if (typeof number !== 'number' || !Number.isFinite(number)) throw invalidParameter(field, `must be a number, got ${shown(value)}`);
      return;
    case 'String':
      if (!text) throw invalidParameter(field, `must be a string, got ${shown(value)}`);
      return;
    case 'ID':
      if (!text && !(typeof value === 'number' && Number.isInteger(value)))
        throw invalidParameter(field, `must be a string or an integer, got ${shown(value)}`);
      return;
    case 'Boolean':
      // SOFA reads anything but true and 'true' as false: a query parameter is `true` or `false`, a JSON value true or false.
      if (inQuery ? !isQueryBoolean(value as string) : typeof value !== 'boolean') {
        throw invalidParameter(field, `must be ${inQuery ? "'true' or 'false'" : 'true or false'}, got ${shown(value)}`);
      }
      return;
    default:
      // A scalar of the service's own (Date): its parser, before SOFA's, which formats the value with the scalar's serialize
      // (an invalid date throws there, unnamed; 2020/01/02 would become a day of the server's time zone).
      try {
        nullable.parseValue(value);
      } catch (error) {
        throw invalidParameter(field, error instanceof Error ? error.message : String(error));
      }
  }
}

function isJsonObject(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

/**
 * Enum inputs of REST routes accept any case, as `country` does (`grade=a`, `storage_type=SSD`),
 * and an unknown value is refused naming the field and the values it may take, in place of
 * GraphQL's "Value ... does not exist in ... enum". GraphQL itself keeps enums case-sensitive.
 */
export function normalizeEnumInputs(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): Record<string, unknown> {
  const normalized = { ...variables };
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (type && normalized[name] != null) normalized[name] = normalizeEnums(type, normalized[name], name);
  }
  return normalized;
}

export function normalizeEnums(type: GraphQLInputType, value: unknown, field: string): unknown {
  if (value === null || value === undefined) return value;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    return Array.isArray(value)
      ? value.map((item, index) => normalizeEnums(nullable.ofType, item, `${field}[${index}]`))
      : normalizeEnums(nullable.ofType, value, field);
  }
  if (isInputObjectType(nullable)) {
    if (typeof value !== 'object' || Array.isArray(value)) return value;
    const object = { ...(value as Record<string, unknown>) };
    for (const [name, definition] of Object.entries(nullable.getFields())) {
      if (name in object) object[name] = normalizeEnums(definition.type, object[name], `${field}.${name}`);
    }
    return object;
  }
  if (!isEnumType(nullable)) return value;
  const names = nullable.getValues().map((v) => v.name);
  if (typeof value === 'string') {
    if (names.includes(value)) return value;
    const matches = names.filter((name) => name.toLowerCase() === value.toLowerCase());
    if (matches.length === 1) return matches[0];
  }
  throw invalidParameter(field, `must be one of ${[...names].sort().join(', ')}, got ${shown(value)}`);
}
