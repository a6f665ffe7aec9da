/**
 * The query as Prisma arguments: the filter expression as a where clause, the sort order, the
 * keyset condition of server-driven paging and the field selection. Objects only: Prisma makes the
 * SQL, with every value a bound parameter.
 *
 * OData logic is two-valued (a comparison with null is false, and `not` of false is true) where SQL
 * is three-valued. Negations are therefore pushed down to the comparisons (De Morgan) and each
 * comparison says itself whether null rows match, so no SQL NOT ever sees a NULL.
 *
 * The functions become SQL that PGlite and PostgreSQL read alike: tolower()/toupper() Prisma's
 * case-insensitive mode (LOWER(column) = LOWER($1), ILIKE for the text functions); year(), month()
 * and day() ranges of the column itself (year(d) eq 2024 is d >= 2024-01-01 and d < 2025-01-01), so
 * that an index on the column serves them. month() and day() are ranges in each year from the
 * column's first to its last value (YearSpans, read in the query's snapshot).
 */
import { isEnum, type PropertyDef } from './entity-sets.ts';
import { ODataNotImplemented } from './errors.ts';
import type { CaseFold, CompareOp, DatePart, Expression, OrderItem, Value } from './expression.ts';

export type Where = Record<string, unknown>;

// Constant conditions are folded away before Prisma sees them (it mistranslates an empty AND nested in an OR).
const TRUE: Where = { AND: [] };
const FALSE: Where = { OR: [] };

/** Nested conjunctions (disjunctions) made here are flattened into one. */
const flatten = (parts: Where[], operator: 'AND' | 'OR') =>
  parts.flatMap((p) => (Object.keys(p).length === 1 && Array.isArray(p[operator]) ? (p[operator] as Where[]) : [p]));

/** Conjunction with constants folded; TRUE and FALSE survive only alone. */
export function all(...parts: Where[]): Where {
  if (parts.includes(FALSE)) return FALSE;
  const rest = flatten(
    parts.filter((p) => p !== TRUE),
    'AND',
  );
  return rest.length === 0 ? TRUE : rest.length === 1 ? rest[0]! : { AND: rest };
}

function any(...parts: Where[]): Where {
  if (parts.includes(TRUE)) return TRUE;
  const rest = flatten(
    parts.filter((p) => p !== FALSE),
    'OR',
  );
  return rest.length === 0 ? FALSE : rest.length === 1 ? rest[0]! : { OR: rest };
}

/** The where argument: no condition for TRUE. */
export const whereArgument = (where: Where): Where => (where === TRUE ? {} : where);

const PRISMA_OP: Record<Exclude<CompareOp, 'eq' | 'ne'>, string> = { gt: 'gt', ge: 'gte', lt: 'lt', le: 'lte' };
const COMPLEMENT: Record<CompareOp, CompareOp> = { eq: 'ne', ne: 'eq', gt: 'le', ge: 'lt', lt: 'ge', le: 'gt' };

/** `{a: {b: value}}` for the field path [a, b]: a value on a related row is a condition through the relation. */
export function nest(path: readonly string[], value: unknown): Where {
  return path.reduceRight<unknown>((inner, segment) => ({ [segment]: inner }), value) as Where;
}

const fieldOf = (property: PropertyDef) => property.field!;

/** LIKE wildcards in the searched text are literal characters (Prisma passes them through). */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The rows where `property op value` holds, for non-null values of the property (compared case-insensitively under tolower/toupper). */
function valueCondition(property: PropertyDef, op: CompareOp, value: Value, fold?: CaseFold): Where {
  const field = fieldOf(property);
  if (fold) {
    // Prisma writes LOWER(column) only for in/notIn and the orderings (equals becomes ILIKE, which reads wildcards).
    const insensitive = op === 'eq' ? { in: [value.prisma] } : op === 'ne' ? { notIn: [value.prisma] } : { [PRISMA_OP[op]]: value.prisma };
    return nest(field, { ...insensitive, mode: 'insensitive' });
  }
  if (isEnum(property.type)) {
    // Enumerations compare by member order (the database's order); the matching members are listed.
    const members = property.type.members;
    const at = members.indexOf(String(value.prisma));
    const matching = members.filter((_, i) => ({ eq: i === at, ne: i !== at, gt: i > at, ge: i >= at, lt: i < at, le: i <= at })[op]);
    return nest(field, { in: matching });
  }
  if (op === 'eq') return nest(field, { equals: value.prisma });
  if (op === 'ne') return nest(field, { not: value.prisma });
  return nest(field, { [PRISMA_OP[op]]: value.prisma });
}

const isNull = (property: PropertyDef) => nest(fieldOf(property), null);
const isNotNull = (property: PropertyDef) => nest(fieldOf(property), { not: null });

/** The first and last year of a date property's values (null: it has none), for month() and day(). */
export type YearSpans = ReadonlyMap<PropertyDef, { first: number; last: number } | null>;

/** The properties whose year span month() and day() of the expression need. */
export function yearSpanProperties(expression: Expression | undefined): Set<PropertyDef> {
  if (!expression) return new Set();
  switch (expression.kind) {
    case 'part':
      return expression.part === 'year' ? new Set() : new Set([expression.property]);
    case 'not':
      return yearSpanProperties(expression.operand);
    case 'and':
    case 'or':
      return new Set([...yearSpanProperties(expression.left), ...yearSpanProperties(expression.right)]);
    default:
      return new Set();
  }
}

/** More ranges than this (day() over more than ~160 years of data) is refused rather than sent. */
const MAX_DATE_RANGES = 4_000;

/** Midnight UTC of a calendar day; month and day overflow into the next (month 13 is January of the next year). */
function utcDate(year: number, month: number, day: number): Date {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date;
}

/** The integer intervals [from, to] (inclusive; undefined: unbounded) of the values v with `v op n`. */
function intervals(op: CompareOp, n: number): [number | undefined, number | undefined][] {
  switch (op) {
    case 'eq':
      return [[n, n]];
    case 'ne':
      return [
        [undefined, n - 1],
        [n + 1, undefined],
      ];
    case 'gt':
      return [[n + 1, undefined]];
    case 'ge':
      return [[n, undefined]];
    case 'lt':
      return [[undefined, n - 1]];
    case 'le':
      return [[undefined, n]];
  }
}

/** The rows where `part(property) op n` holds, for non-null values: ranges of the property's own values. */
function datePartCondition(property: PropertyDef, part: DatePart, op: CompareOp, n: number, years: YearSpans): Where {
  const ranges: [Date | undefined, Date | undefined][] = [];
  const clip = (lo: number | undefined, hi: number | undefined, min: number, max: number): [number, number] | undefined => {
    const [a, b] = [Math.max(lo ?? min, min), Math.min(hi ?? max, max)];
    return a <= b ? [a, b] : undefined;
  };
  if (part === 'year') {
    for (const [lo, hi] of intervals(op, n)) {
      const clipped = clip(lo, hi, 1, 9999);
      if (clipped)
        ranges.push([
          lo === undefined ? undefined : utcDate(clipped[0], 1, 1),
          hi === undefined ? undefined : utcDate(clipped[1] + 1, 1, 1),
        ]);
    }
  } else {
    const span = years.get(property);
    for (let year = span?.first ?? 1; span && year <= span.last; year++) {
      if (part === 'month') {
        for (const [lo, hi] of intervals(op, n)) {
          const months = clip(lo, hi, 1, 12);
          if (months) ranges.push([utcDate(year, months[0], 1), utcDate(year, months[1] + 1, 1)]);
        }
        continue;
      }
      for (let month = 1; month <= 12; month++) {
        const daysInMonth = utcDate(year, month + 1, 0).getUTCDate();
        for (const [lo, hi] of intervals(op, n)) {
          const days = clip(lo, hi, 1, daysInMonth);
          if (days) ranges.push([utcDate(year, month, days[0]), utcDate(year, month, days[1] + 1)]);
        }
      }
      if (ranges.length > MAX_DATE_RANGES)
        throw new ODataNotImplemented(`${part}() over ${span.last - span.first + 1} years of ${property.name}`);
    }
  }
  // Adjacent ranges (month(d) ge 1 in consecutive years) are one.
  const merged: typeof ranges = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last?.[1] && range[0] && last[1].getTime() === range[0].getTime()) last[1] = range[1];
    else merged.push([...range]);
  }
  return any(...merged.map(([from, to]) => nest(fieldOf(property), { ...(from ? { gte: from } : {}), ...(to ? { lt: to } : {}) })));
}

/** The where clause of a filter expression; `years` spans the values of each property whose month() or day() it tests. */
export function filterWhere(expression: Expression, years: YearSpans = new Map()): Where {
  return translate(expression, false, years);
}

/** The where clause of an expression (negated: of its negation). */
function translate(expression: Expression, negated: boolean, years: YearSpans): Where {
  switch (expression.kind) {
    case 'const':
      return expression.value !== negated ? TRUE : FALSE;
    case 'not':
      return translate(expression.operand, !negated, years);
    case 'and':
    case 'or': {
      const parts = [translate(expression.left, negated, years), translate(expression.right, negated, years)];
      return (expression.kind === 'and') !== negated ? all(...parts) : any(...parts);
    }
    case 'part': {
      const { property, part, op, value } = expression;
      const nullRowsMatch = (op === 'ne') !== negated;
      const condition = datePartCondition(property, part, negated ? COMPLEMENT[op] : op, value, years);
      return property.nullable && nullRowsMatch ? any(isNull(property), condition) : condition;
    }
    case 'compare': {
      const { property, op, value } = expression;
      if (value === null) {
        // eq/ge/le null: is null; ne null: is not null; gt/lt null: false.
        const test = op === 'ne' ? 'notNull' : op === 'gt' || op === 'lt' ? 'false' : 'null';
        const holds = negated ? ({ null: 'notNull', notNull: 'null', false: 'true' } as const)[test] : test;
        return holds === 'null' ? isNull(property) : holds === 'notNull' ? isNotNull(property) : holds === 'true' ? TRUE : FALSE;
      }
      // For null rows `ne` holds and the other comparisons do not; negation swaps that.
      const nullRowsMatch = (op === 'ne') !== negated;
      const condition = valueCondition(property, negated ? COMPLEMENT[op] : op, value, expression.fold);
      return property.nullable && nullRowsMatch ? any(isNull(property), condition) : condition;
    }
    case 'text': {
      const { property, fn, value, fold } = expression;
      const mode = { contains: 'contains', startswith: 'startsWith', endswith: 'endsWith' }[fn];
      const condition = nest(fieldOf(property), { [mode]: escapeLike(value), ...(fold ? { mode: 'insensitive' } : {}) });
      if (!negated) return condition;
      // The field is not null inside NOT: null rows are matched by their own branch.
      return property.nullable ? any(isNull(property), all(isNotNull(property), { NOT: condition })) : { NOT: condition };
    }
  }
}

/**
 * Sort order: OData sorts null before every value ascending and after every value descending
 * (OData URL conventions, $orderby), stated explicitly since PostgreSQL's default is the reverse;
 * where the result holds no null (item.nullable false) the plain order lets an index serve it.
 */
export function orderByOf(items: readonly OrderItem[]): Where[] {
  return items.map(({ property, descending, nullable }) => {
    const sort = descending ? 'desc' : 'asc';
    return nest(fieldOf(property), nullable ? { sort, nulls: descending ? 'last' : 'first' } : sort);
  });
}

/** Enumeration members after `value` in member order (Prisma compares enumerations only by equality). */
function membersBeyond(members: readonly string[], value: unknown, descending: boolean): string[] {
  const at = members.indexOf(String(value));
  return descending ? members.slice(0, at) : members.slice(at + 1);
}

/**
 * The rows after `values` (the sort keys of the last row of a page) in the order of `items`, whose
 * last item is the key: (k1 after v1) or (k1 = v1 and ((k2 after v2) or …)).
 */
export function afterWhere(items: readonly OrderItem[], values: readonly unknown[]): Where {
  const at = (i: number): Where => {
    const { property, descending, nullable } = items[i]!;
    const value = values[i];
    const field = fieldOf(property);
    let after: Where;
    if (value === null) {
      // Null is first ascending (every value comes after it) and last descending (nothing does).
      after = descending ? FALSE : isNotNull(property);
    } else {
      const beyond = isEnum(property.type)
        ? nest(field, { in: membersBeyond(property.type.members, value, descending) })
        : nest(field, { [descending ? 'lt' : 'gt']: value });
      after = descending && nullable ? any(beyond, isNull(property)) : beyond;
    }
    if (i === items.length - 1) return after;
    const same = value === null ? isNull(property) : nest(field, { equals: value });
    return any(after, all(same, at(i + 1)));
  };
  return at(0);
}

/** Prisma `select` of the given properties (nested through relations). */
export function selectOf(properties: readonly PropertyDef[]): Where {
  const select: Record<string, unknown> = {};
  for (const { field } of properties) {
    if (!field) continue;
    let level = select;
    for (const segment of field.slice(0, -1)) {
      const relation = (level[segment] ??= { select: {} }) as { select: Record<string, unknown> };
      level = relation.select;
    }
    level[field.at(-1)!] = true;
  }
  return select;
}

/** The raw value of a property in a row read with selectOf. */
export function readField(row: Record<string, unknown>, property: PropertyDef): unknown {
  return property.field!.reduce<unknown>((value, segment) => (value as Record<string, unknown> | null)?.[segment] ?? null, row);
}
