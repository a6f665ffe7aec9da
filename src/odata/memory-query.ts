/**
 * $filter, $orderby and the $skiptoken position evaluated on rows in memory, for computed entity sets
 * (entity-sets.ts `rows`): the same parsed expressions that prisma-query.ts turns into Prisma, with the
 * same meaning (null sorts first; a comparison with null is false but for eq/ne null).
 */
import type { Expression, OrderItem } from './expression.ts';

type Row = Record<string, unknown>;

const comparable = (value: unknown): unknown => (value instanceof Date ? value.getTime() : value);

/** -1, 0 or 1; null before any value. */
function compareValues(a: unknown, b: unknown): number {
  const [x, y] = [comparable(a ?? null), comparable(b ?? null)];
  if (x === y) return 0;
  if (x === null) return -1;
  if (y === null) return 1;
  return (x as number | string) < (y as number | string) ? -1 : 1;
}

const folded = (value: unknown, fold?: 'tolower' | 'toupper') =>
  typeof value === 'string' && fold ? (fold === 'tolower' ? value.toLowerCase() : value.toUpperCase()) : value;

const OPERATORS = {
  eq: (c: number) => c === 0,
  ne: (c: number) => c !== 0,
  gt: (c: number) => c > 0,
  ge: (c: number) => c >= 0,
  lt: (c: number) => c < 0,
  le: (c: number) => c <= 0,
} as const;

export function matches(expression: Expression, row: Row): boolean {
  switch (expression.kind) {
    case 'const':
      return expression.value;
    case 'and':
      return matches(expression.left, row) && matches(expression.right, row);
    case 'or':
      return matches(expression.left, row) || matches(expression.right, row);
    case 'not':
      return !matches(expression.operand, row);
    case 'compare': {
      const value = folded(row[expression.property.name] ?? null, expression.fold);
      if (expression.value === null) return expression.op === 'eq' ? value === null : expression.op === 'ne' ? value !== null : false;
      if (value === null) return expression.op === 'ne';
      return OPERATORS[expression.op](compareValues(value, expression.value.prisma));
    }
    case 'text': {
      const value = folded(row[expression.property.name] ?? null, expression.fold);
      if (typeof value !== 'string') return false;
      const fn = { contains: 'includes', startswith: 'startsWith', endswith: 'endsWith' } as const;
      return value[fn[expression.fn]](expression.value);
    }
    case 'part': {
      const value = row[expression.property.name];
      if (!(value instanceof Date)) return false;
      const part = { year: value.getUTCFullYear(), month: value.getUTCMonth() + 1, day: value.getUTCDate() }[expression.part];
      return OPERATORS[expression.op](Math.sign(part - expression.value));
    }
  }
}

/** The order of $orderby (the key last, so total). */
export const rowOrder =
  (orderBy: readonly OrderItem[]) =>
  (a: Row, b: Row): number => {
    for (const { property, descending } of orderBy) {
      const c = compareValues(a[property.name], b[property.name]);
      if (c !== 0) return descending ? -c : c;
    }
    return 0;
  };

/** True for a row after the one whose sort-key values are `after` (the $skiptoken position). */
export const isAfter = (orderBy: readonly OrderItem[], after: readonly unknown[], row: Row): boolean =>
  rowOrder(orderBy)(row, Object.fromEntries(orderBy.map((o, i) => [o.property.name, after[i]]))) > 0;
