/**
 * The system query options of an entity-set request, checked and parsed: $filter, $orderby (with the
 * key as the last sort key, so that the order is total and paging stable), $select, $top, $skip,
 * $count, $skiptoken (our own keyset token from @odata.nextLink) and $format.
 */
import { invalidParameter } from '../errors/api-error.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { checkText } from '../validation/text.ts';
import { isEnum, keyProperty, type EntitySetDef, type PropertyDef } from './entity-sets.ts';
import { notAcceptable, ODataNotImplemented } from './errors.ts';
import {
  nonNullProperties,
  parseFilterExpression,
  parseOrderBy,
  parseSelect,
  printExpression,
  type Expression,
  type OrderItem,
} from './expression.ts';
import { refuseUnknown } from '../validation/strict-input.ts';

export const PAGE_SIZE = 1_000;
export const MAX_TOP = 5_000;
const MAX_ORDER_ITEMS = 8;
const MAX_SKIP = 2_147_483_647;
const MAX_SKIPTOKEN_LENGTH = 4_000;

const SUPPORTED_OPTIONS = new Set(['$filter', '$orderby', '$select', '$top', '$skip', '$count', '$skiptoken', '$format']);
const SYSTEM_OPTION_NAMES = [...SUPPORTED_OPTIONS];
/** The options that apply to what the path addresses: the whole set, one entity by its key, or the set's count. */
const APPLICABLE_OPTIONS = {
  collection: SUPPORTED_OPTIONS,
  entity: new Set(['$select', '$format']),
  count: new Set(['$filter']),
} as const;
export type Addressed = keyof typeof APPLICABLE_OPTIONS;
const ADDRESSED_AS: Record<Addressed, string> = { collection: 'an entity set', entity: 'a single entity', count: '/$count' };
const UNSUPPORTED_OPTIONS = new Set([
  '$expand',
  '$apply',
  '$search',
  '$compute',
  '$levels',
  '$index',
  '$schemaversion',
  '$deltatoken',
  '$id',
]);

export interface ODataQuery {
  set: EntitySetDef;
  filter?: Expression;
  /** The sort keys, the entity key last. */
  orderBy: OrderItem[];
  /** Undefined: every property. */
  select?: PropertyDef[];
  top?: number;
  skip: number;
  count: boolean;
  /** Sort-key values of the last row already delivered, from $skiptoken. */
  after?: unknown[];
  skiptoken?: string;
  /** The options as the client wrote them, carried into @odata.nextLink. */
  text: { filter?: string; orderby?: string; select?: string };
  /** The custom query options of a computed set (its period), carried into @odata.nextLink. */
  parameters: Map<string, string>;
}

const integer = (name: string, text: string, max: number): number => {
  if (!/^\d{1,10}$/.test(text) || Number(text) > max)
    throw invalidParameter(name, `must be an integer from 0 to ${max}, got '${text.slice(0, 20)}'`);
  return Number(text);
};

export function parseQuery(set: EntitySetDef, params: URLSearchParams, addressed: Addressed = 'collection'): ODataQuery {
  const options = new Map<string, string>();
  const parameters = new Map<string, string>();
  for (const [rawName, value] of params) {
    // System options start with $; other parameters are custom options, which OData 4.0 lets a service
    // ignore, but not one named like a system option (OData 4.01 makes the $ optional): ignored, a
    // `filter=` would quietly answer everything.
    if (!rawName.startsWith('$')) {
      if (SUPPORTED_OPTIONS.has(`$${rawName.toLowerCase()}`)) refuseUnknown([rawName.slice(0, 40)], SYSTEM_OPTION_NAMES);
      // A computed set takes its own custom options and no others (a misspelt dateFrom would silently answer the default period).
      if (set.rows) {
        refuseUnknown([rawName.slice(0, 40)], set.rows.parameters);
        if (parameters.has(rawName)) throw invalidParameter(rawName, 'is given more than once');
        parameters.set(rawName, value);
      }
      continue;
    }
    const name = rawName.toLowerCase();
    if (UNSUPPORTED_OPTIONS.has(name)) throw new ODataNotImplemented(`The query option ${name}`);
    if (!SUPPORTED_OPTIONS.has(name)) refuseUnknown([rawName.slice(0, 40)], SYSTEM_OPTION_NAMES);
    if (!APPLICABLE_OPTIONS[addressed].has(name)) throw invalidParameter(name, `does not apply to ${ADDRESSED_AS[addressed]}`);
    if (options.has(name)) throw invalidParameter(name, 'is given more than once');
    options.set(name, value);
  }
  const format = options.get('$format');
  if (format !== undefined && format !== 'json' && !format.startsWith('application/json')) throw notAcceptable('json ($format=json)');
  const count = options.get('$count');
  if (count !== undefined && count !== 'true' && count !== 'false')
    throw invalidParameter('$count', `must be true or false, got '${count.slice(0, 20)}'`);
  const top = options.has('$top') ? integer('$top', options.get('$top')!, MAX_TOP) : undefined;
  const skip = options.has('$skip') ? integer('$skip', options.get('$skip')!, MAX_SKIP) : 0;

  const text = { filter: options.get('$filter'), orderby: options.get('$orderby'), select: options.get('$select') };
  const filter = text.filter === undefined ? undefined : parseFilterExpression(text.filter, set);
  const requested = text.orderby === undefined ? [] : parseOrderBy(text.orderby, set);
  if (requested.length > MAX_ORDER_ITEMS) throw invalidParameter('$orderby', `at most ${MAX_ORDER_ITEMS} sort keys`);
  const key = keyProperty(set);
  // Each property once (the first mention decides its direction), the key last: a total order.
  const nonNull = nonNullProperties(filter);
  const orderBy = requested
    .filter((item, i) => requested.findIndex((other) => other.property === item.property) === i)
    .map((item) => ({ ...item, nullable: item.nullable && !nonNull.has(item.property) }));
  if (!orderBy.some((item) => item.property === key)) orderBy.push({ property: key, descending: false, nullable: false });
  const select = text.select === undefined ? undefined : parseSelect(text.select, set);
  const skiptoken = options.get('$skiptoken');
  const after = skiptoken === undefined ? undefined : decodeSkipToken(skiptoken, orderBy);
  return { set, filter, orderBy, select, top, skip, count: count === 'true', after, skiptoken, text, parameters };
}

/** One entity by its key (a GUID): the set's query with the key as its filter; only $select applies. */
export function entityQuery(set: EntitySetDef, key: string, params: URLSearchParams): ODataQuery {
  const query = parseQuery(set, params, 'entity');
  return { ...query, filter: { kind: 'compare', op: 'eq', property: keyProperty(set), value: { prisma: key, text: key } }, top: 1 };
}

/** The number of entities (that match $filter), without rows. */
export function countQuery(set: EntitySetDef, params: URLSearchParams): ODataQuery {
  return { ...parseQuery(set, params, 'count'), top: 0, count: true };
}

/** The query in one canonical text (the audit log's normalised query): same request, same text. */
export function normalisedQuery(query: ODataQuery): string {
  const parts = [
    query.filter && `$filter=${printExpression(query.filter)}`,
    `$orderby=${query.orderBy.map((o) => `${o.property.name} ${o.descending ? 'desc' : 'asc'}`).join(',')}`,
    `$select=${query.select ? query.select.map((p) => p.name).join(',') : '*'}`,
    query.top !== undefined && `$top=${query.top}`,
    `$skip=${query.skip}`,
    `$count=${query.count}`,
    query.skiptoken && `$skiptoken=${query.skiptoken}`,
    ...[...query.parameters].sort(([a], [b]) => a.localeCompare(b)).map(([name, value]) => `${name}=${value}`),
  ];
  return parts.filter(Boolean).join('&');
}

// ---------------------------------------------------------------- $skiptoken

/** A sort-key value as the token carries it: JSON, exact (decimals as text, instants as ISO text). */
function tokenValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Prisma.Decimal.isDecimal(value)) return value.toString();
  return value;
}

/** The token of the page after the row whose sort-key values are `values`: base64url of a JSON array. */
export function encodeSkipToken(values: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(values.map(tokenValue))).toString('base64url');
}

function decodeSkipToken(token: string, orderBy: readonly OrderItem[]): unknown[] {
  const bad = (reason: string) => invalidParameter('$skiptoken', `${reason}; use the @odata.nextLink of the previous page as it is`);
  checkText(token, '$skiptoken', { maxLength: MAX_SKIPTOKEN_LENGTH });
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw bad('is not a token of this service');
  }
  if (!Array.isArray(values) || values.length !== orderBy.length) throw bad('does not match $orderby');
  return values.map((value, i) => {
    const property = orderBy[i]!.property;
    const converted = fromToken(property, value);
    if (converted === undefined) throw bad(`has no valid value for ${property.name}`);
    return converted;
  });
}

function fromToken(property: PropertyDef, value: unknown): unknown {
  if (value === null) return property.nullable ? null : undefined;
  const type = property.type;
  if (isEnum(type)) return typeof value === 'string' && type.members.includes(value) ? value : undefined;
  switch (type) {
    case 'Edm.String':
      return typeof value === 'string' && value.length <= MAX_SKIPTOKEN_LENGTH ? value : undefined;
    case 'Edm.Guid':
      return typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value) ? value : undefined;
    case 'Edm.Double':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'Edm.Int32':
      return Number.isInteger(value) && Math.abs(value as number) <= 2_147_483_648 ? value : undefined;
    case 'Edm.Decimal':
      return typeof value === 'string' && /^-?\d{1,20}(\.\d{1,20})?$/.test(value) ? value : undefined;
    case 'Edm.Boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'Edm.Date':
    case 'Edm.DateTimeOffset': {
      const date = typeof value === 'string' ? new Date(value) : undefined;
      return date && !Number.isNaN(date.getTime()) ? date : undefined;
    }
  }
}
