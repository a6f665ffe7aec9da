/**
 * $filter: the text is parsed by odata-v4-parser; its syntax tree is checked against the entity set
 * and turned into a small expression tree of what the interface supports (comparisons, and/or/not,
 * contains/startswith/endswith, literals). Everything else that is valid OData is a 501 naming it.
 * prisma-query.ts translates the tree into a Prisma where clause; `printExpression` gives its
 * canonical text (the normalised query of the audit log).
 */
import { filter as parseFilter, query as parseQueryOptions } from 'odata-v4-parser';
import { invalidParameter } from '../errors/api-error.ts';
import { checkText } from '../validation/text.ts';
import { isEnum, propertyNamed, type EntitySetDef, type PropertyDef } from './entity-sets.ts';
import { ODataNotImplemented, notQueryable, syntaxError, typeMismatch, unknownProperty } from './errors.ts';

export const FILTER_LIMITS = { maxLength: 2_000, maxNesting: 32, maxConditions: 100 } as const;

export type CompareOp = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';
export type TextFunction = 'contains' | 'startswith' | 'endswith';

/** A literal value converted for the property it is compared with; `text` is its canonical OData form. */
export interface Value {
  prisma: string | number | boolean | Date;
  text: string;
}

export type Expression =
  | { kind: 'const'; value: boolean }
  | { kind: 'and' | 'or'; left: Expression; right: Expression }
  | { kind: 'not'; operand: Expression }
  | { kind: 'compare'; op: CompareOp; property: PropertyDef; value: Value | null }
  | { kind: 'text'; fn: TextFunction; property: PropertyDef; value: string };

/** The parser's syntax tree (odata-v4-parser ships loose typings). */
interface Token {
  type: string;
  raw: string;
  position: number;
  // biome-ignore lint/suspicious/noExplicitAny: each token type has its own value shape, which the parser does not type
  value: any;
}

type Literal =
  | { kind: 'null' }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number; raw: string }
  | { kind: 'date'; value: string }
  | { kind: 'datetime'; value: Date }
  | { kind: 'guid'; value: string }
  | { kind: 'enum'; type: string; member: string }
  | { kind: 'other'; type: string; raw: string };

type Operand = { kind: 'property'; property: PropertyDef } | { kind: 'literal'; literal: Literal; raw: string };

const COMPARISONS: Record<string, CompareOp> = {
  EqualsExpression: 'eq',
  NotEqualsExpression: 'ne',
  GreaterThanExpression: 'gt',
  GreaterOrEqualsExpression: 'ge',
  LesserThanExpression: 'lt',
  LesserOrEqualsExpression: 'le',
};
const FLIPPED: Record<CompareOp, CompareOp> = { eq: 'eq', ne: 'ne', gt: 'lt', ge: 'le', lt: 'gt', le: 'ge' };
const ARITHMETIC: Record<string, string> = {
  AddExpression: 'add',
  SubExpression: 'sub',
  MulExpression: 'mul',
  DivExpression: 'div',
  ModExpression: 'mod',
  NegateExpression: 'negation (-)',
};
const NUMBER_TYPES = new Set(['Edm.SByte', 'Edm.Byte', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64', 'Edm.Decimal', 'Edm.Double', 'Edm.Single']);
const INT32 = { min: -2_147_483_648, max: 2_147_483_647 };
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The parser reads URL syntax (RFC 3986 pchar): inside string literals it accepts percent-encoded
 * octets but not a raw %, /, ?, #, " or a few other characters. The option arrives decoded, so those
 * characters of string literals are encoded again for it (decodeStringLiteral undoes that);
 * `origin[i]` is the position in the client's text of character i of the encoded text.
 */
const NOT_PCHAR = /[%/?#"\\[\]{}<>|^`]/;

function forParser(text: string): { encoded: string; origin: number[] } {
  let encoded = '';
  const origin: number[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") quoted = !quoted;
    const out = quoted && NOT_PCHAR.test(c) ? `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}` : c;
    encoded += out;
    for (let k = 0; k < out.length; k++) origin.push(i);
  }
  origin.push(text.length);
  return { encoded, origin };
}

const decodeStringLiteral = (raw: string) => decodeURIComponent(raw.slice(1, -1).replaceAll("''", "'"));

/** Parses `prefix + text`; parser errors say only "Unexpected character at N" or "Fail at N": the position is all they give. */
function parsed(option: string, text: string, prefix: string, parse: (source: string) => unknown): Token {
  const { encoded, origin } = forParser(text);
  try {
    return parse(prefix + encoded) as Token;
  } catch (error) {
    const at = /at (\d+)/.exec((error as Error).message);
    const index = at ? Number(at[1]) - prefix.length : 0;
    throw syntaxError(option, text, origin[Math.max(0, Math.min(index, origin.length - 1))]!);
  }
}

/** Bounds checked before the parser runs: its work grows with length and nesting. */
function checkBounds(option: string, text: string): void {
  checkText(text, option, { maxLength: FILTER_LIMITS.maxLength });
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") quoted = !quoted;
    else if (!quoted && c === '(' && ++depth > FILTER_LIMITS.maxNesting) {
      throw syntaxError(option, text, i, `more than ${FILTER_LIMITS.maxNesting} nested parentheses`);
    } else if (!quoted && c === ')') depth--;
  }
}

export function parseFilterExpression(text: string, set: EntitySetDef): Expression {
  checkBounds('$filter', text);
  if (text.trim() === '') throw syntaxError('$filter', text, 0, 'empty expression');
  const tree = parsed('$filter', text, '', parseFilter);
  return new FilterReader(set).boolean(tree);
}

class FilterReader {
  private conditions = 0;

  constructor(private readonly set: EntitySetDef) {}

  // Recursion depth is bounded by the text: at most maxLength characters and maxNesting parentheses.
  boolean(token: Token): Expression {
    switch (token.type) {
      case 'CommonExpression':
      case 'BoolParenExpression':
      case 'ParenExpression':
        return this.boolean(token.value);
      case 'AndExpression':
      case 'OrExpression':
        return {
          kind: token.type === 'AndExpression' ? 'and' : 'or',
          left: this.boolean(token.value.left),
          right: this.boolean(token.value.right),
        };
      case 'NotExpression':
        return this.negation(token.value);
      case 'MethodCallExpression':
        return this.method(token);
      case 'Literal': {
        const literal = literalOf(token);
        if (literal.kind === 'boolean') return { kind: 'const', value: literal.value };
        throw typeMismatch('$filter', `${token.raw} is not a boolean expression`);
      }
      case 'FirstMemberExpression': {
        // A Boolean property on its own is a condition.
        const property = this.propertyOf(token);
        if (property.type !== 'Edm.Boolean') throw typeMismatch('$filter', `${property.name} is not Boolean; compare it with a value (e.g. ${property.name} eq …)`);
        return this.counted({ kind: 'compare', op: 'eq', property, value: { prisma: true, text: 'true' } });
      }
      default: {
        const op = COMPARISONS[token.type];
        if (op) return this.comparison(op, token);
        throw this.unsupported(token);
      }
    }
  }

  /**
   * `not` binds tighter than and/or (OData operator precedence), but the parser lets it take the
   * whole and/or expression that follows: `not a and b` arrives as not(a and b). The negation is
   * moved back onto the first operand; a parenthesised operand arrives as a BoolParenExpression.
   */
  private negation(operand: Token): Expression {
    const inner = operand.type === 'CommonExpression' ? operand.value : operand;
    if (inner.type === 'AndExpression' || inner.type === 'OrExpression') {
      return {
        kind: inner.type === 'AndExpression' ? 'and' : 'or',
        left: this.negation(inner.value.left),
        right: this.boolean(inner.value.right),
      };
    }
    return { kind: 'not', operand: this.boolean(operand) };
  }

  private counted(expression: Expression): Expression {
    if (++this.conditions > FILTER_LIMITS.maxConditions) {
      throw invalidParameter('$filter', `more than ${FILTER_LIMITS.maxConditions} conditions`);
    }
    return expression;
  }

  private unsupported(token: Token): ODataNotImplemented {
    if (ARITHMETIC[token.type]) return new ODataNotImplemented(`Arithmetic (${ARITHMETIC[token.type]}) in $filter`);
    if (token.type === 'HasExpression') return new ODataNotImplemented('The has operator');
    if (token.type === 'IsOfExpression' || token.type === 'CastExpression') return new ODataNotImplemented('isof() and cast()');
    if (token.type === 'ParameterAlias') return new ODataNotImplemented('Parameter aliases (@name)');
    if (token.type === 'RootExpression') return new ODataNotImplemented('$root');
    if (token.type === 'ArrayOrObject' || token.type === 'Array' || token.type === 'Object') return new ODataNotImplemented('JSON arrays and objects in $filter');
    return new ODataNotImplemented(`'${token.raw}' (${token.type.replace(/Expression$/, '')})`);
  }

  /** A property reference: one structural property of the set; paths, lambdas and $it are refused. */
  propertyOf(token: Token, option = '$filter'): PropertyDef {
    const raw = token.raw;
    if (IDENTIFIER.test(raw)) {
      const property = propertyNamed(this.set, raw);
      if (property) return property;
      if (this.set.navigation.some((n) => n.name === raw)) throw new ODataNotImplemented(`Navigation property '${raw}' in ${option}`);
      throw unknownProperty(option, raw, this.set);
    }
    if (raw.startsWith('$')) throw new ODataNotImplemented(`${raw.split('/')[0]} in ${option}`);
    if (/\/(any|all)\(/.test(raw)) throw new ODataNotImplemented(`Lambda operators (any, all) in ${option}`);
    const first = raw.split(/[/(]/)[0]!;
    if (this.set.navigation.some((n) => n.name === first)) throw new ODataNotImplemented(`Navigation paths (${raw}) in ${option}`);
    if (!propertyNamed(this.set, first)) throw unknownProperty(option, first, this.set);
    throw typeMismatch(option, `'${raw}': ${first} is a primitive property; it has no properties or functions`);
  }

  private operand(token: Token): Operand {
    switch (token.type) {
      case 'CommonExpression':
      case 'ParenExpression':
        return this.operand(token.value);
      case 'Literal':
      case 'Enum':
        return { kind: 'literal', literal: literalOf(token), raw: token.raw };
      case 'FirstMemberExpression':
        return { kind: 'property', property: this.propertyOf(token) };
      case 'MethodCallExpression':
        throw new ODataNotImplemented(`The function ${token.value.method}() as a value`);
      default:
        throw this.unsupported(token);
    }
  }

  private comparison(op: CompareOp, token: Token): Expression {
    const left = this.operand(token.value.left);
    const right = this.operand(token.value.right);
    if (left.kind === 'property' && right.kind === 'property') throw new ODataNotImplemented('Comparing two properties');
    if (left.kind === 'literal' && right.kind === 'literal') return this.counted({ kind: 'const', value: compareLiterals(op, left, right) });
    const [property, literal, effectiveOp] =
      left.kind === 'property' ? [left.property, right as Extract<Operand, { kind: 'literal' }>, op] : [(right as Extract<Operand, { kind: 'property' }>).property, left, FLIPPED[op]];
    if (!property.field) throw notQueryable('$filter', property.name);
    return this.counted(comparisonOf(property, effectiveOp, literal));
  }

  private method(token: Token): Expression {
    const name = String(token.value.method);
    if (name !== 'contains' && name !== 'startswith' && name !== 'endswith') throw new ODataNotImplemented(`The function ${name}()`);
    const [first, second] = (token.value.parameters as Token[]).map((p) => this.operand(p));
    if (first?.kind !== 'property' || second?.kind !== 'literal') {
      throw new ODataNotImplemented(`${name}() with arguments other than (property, 'text')`);
    }
    const { property } = first;
    if (!property.field) throw notQueryable('$filter', property.name);
    if (property.type !== 'Edm.String') throw typeMismatch('$filter', `${name}() needs a text property; ${property.name} is ${typeName(property)}`);
    if (second.literal.kind === 'null') return this.counted({ kind: 'const', value: false });
    if (second.literal.kind !== 'string') throw typeMismatch('$filter', `${name}() needs a text literal in quotes, got ${second.raw}`);
    return this.counted({ kind: 'text', fn: name, property, value: second.literal.value });
  }
}

const typeName = (property: PropertyDef) => (isEnum(property.type) ? `an enumeration (${property.type.name})` : property.type);

function literalOf(token: Token): Literal {
  if (token.type === 'Enum') {
    const members = token.value.value.value.values as Token[];
    if (members.length !== 1) throw new ODataNotImplemented('Enumeration flag combinations');
    return { kind: 'enum', type: String(token.value.name.raw), member: members[0]!.raw };
  }
  const type = String(token.value);
  const raw = token.raw;
  if (type === 'null') return { kind: 'null' };
  if (type === 'Edm.Boolean') return { kind: 'boolean', value: raw.toLowerCase() === 'true' };
  if (type === 'Edm.String') return { kind: 'string', value: decodeStringLiteral(raw) };
  if (NUMBER_TYPES.has(type)) return { kind: 'number', value: Number(raw.replace(/^(-?)INF$/, '$1Infinity')), raw };
  if (type === 'Edm.Date') {
    if (!isCalendarDate(raw)) throw typeMismatch('$filter', `${raw} is not a calendar date`);
    return { kind: 'date', value: raw };
  }
  if (type === 'Edm.DateTimeOffset') {
    const value = new Date(raw);
    if (Number.isNaN(value.getTime()) || !isCalendarDate(raw.slice(0, 10))) throw typeMismatch('$filter', `${raw} is not a valid date-time`);
    return { kind: 'datetime', value };
  }
  if (type === 'Edm.Guid') return { kind: 'guid', value: raw.toLowerCase() };
  return { kind: 'other', type, raw };
}

function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  return y >= 1 && date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** A comparison of two literals is decided here (OData: null equals only null; ordering with null is false). */
function compareLiterals(op: CompareOp, a: Extract<Operand, { kind: 'literal' }>, b: Extract<Operand, { kind: 'literal' }>): boolean {
  const value = (l: Literal) =>
    l.kind === 'null' ? null : l.kind === 'datetime' ? l.value.getTime() : l.kind === 'enum' ? l.member : l.kind === 'other' ? undefined : l.value;
  const x = value(a.literal);
  const y = value(b.literal);
  if (x === undefined || y === undefined) throw typeMismatch('$filter', `cannot compare ${a.raw} with ${b.raw}`);
  if (x === null || y === null) return op === 'eq' || op === 'ge' || op === 'le' ? x === y : op === 'ne' ? x !== y : false;
  if (typeof x !== typeof y || a.literal.kind !== b.literal.kind) throw typeMismatch('$filter', `cannot compare ${a.raw} with ${b.raw}`);
  return compareValues(op, x < y ? -1 : x > y ? 1 : 0);
}

const compareValues = (op: CompareOp, order: number) =>
  ({ eq: order === 0, ne: order !== 0, gt: order > 0, ge: order >= 0, lt: order < 0, le: order <= 0 })[op];

/** `property op literal`, the literal checked against and converted for the property's type. */
function comparisonOf(property: PropertyDef, op: CompareOp, operand: Extract<Operand, { kind: 'literal' }>): Expression {
  const literal = operand.literal;
  if (literal.kind === 'null') return { kind: 'compare', op, property, value: null };
  const mismatch = () => typeMismatch('$filter', `${property.name} is ${typeName(property)}; ${operand.raw} does not fit it`);
  const type = property.type;
  if (isEnum(type)) {
    const member = literal.kind === 'string' ? literal.value : literal.kind === 'enum' ? literal.member : undefined;
    if (member === undefined) throw mismatch();
    if (literal.kind === 'enum' && literal.type !== type.name && literal.type !== `Service.${type.name}`) {
      throw typeMismatch('$filter', `${property.name} is Service.${type.name}, not ${literal.type}`);
    }
    if (!type.members.includes(member)) throw typeMismatch('$filter', `${property.name} is one of ${type.members.join(', ')}; got '${member}'`);
    return { kind: 'compare', op, property, value: { prisma: member, text: quote(member) } };
  }
  switch (type) {
    case 'Edm.String':
      if (literal.kind !== 'string') throw mismatch();
      return { kind: 'compare', op, property, value: { prisma: literal.value, text: quote(literal.value) } };
    case 'Edm.Guid': {
      const id = literal.kind === 'guid' ? literal.value : literal.kind === 'string' && UUID.test(literal.value) ? literal.value.toLowerCase() : undefined;
      if (id === undefined) throw mismatch();
      return { kind: 'compare', op, property, value: { prisma: id, text: id } };
    }
    case 'Edm.Boolean':
      if (literal.kind !== 'boolean') throw mismatch();
      return { kind: 'compare', op, property, value: { prisma: literal.value, text: String(literal.value) } };
    case 'Edm.Date':
      if (literal.kind !== 'date') throw typeMismatch('$filter', `${property.name} is Edm.Date; compare it with a date such as 2024-01-31, got ${operand.raw}`);
      return { kind: 'compare', op, property, value: { prisma: new Date(`${literal.value}T00:00:00Z`), text: literal.value } };
    case 'Edm.DateTimeOffset': {
      // A date stands for its first instant (UTC).
      const value = literal.kind === 'datetime' ? literal.value : literal.kind === 'date' ? new Date(`${literal.value}T00:00:00Z`) : undefined;
      if (!value) throw mismatch();
      return { kind: 'compare', op, property, value: { prisma: value, text: value.toISOString() } };
    }
    case 'Edm.Double':
    case 'Edm.Decimal':
    case 'Edm.Int32': {
      if (literal.kind !== 'number') throw mismatch();
      if (!Number.isFinite(literal.value)) throw typeMismatch('$filter', `${operand.raw}: INF and NaN cannot be compared with ${property.name}`);
      if (type === 'Edm.Int32') return integerComparison(property, op, literal.value);
      // Decimal columns get the literal's own digits, so that nothing is lost to binary floating point.
      const prisma = type === 'Edm.Decimal' ? literal.raw : literal.value;
      return { kind: 'compare', op, property, value: { prisma, text: type === 'Edm.Decimal' ? literal.raw : String(literal.value) } };
    }
  }
}

/**
 * An Int32 property compared with any number: the same rows as the exact comparison, with an integer
 * bound inside the Int32 range (x gt 2.5 is x gt 2; x lt 1e12 is every non-null x).
 */
function integerComparison(property: PropertyDef, op: CompareOp, n: number): Expression {
  const value = (v: number): Value => ({ prisma: v, text: String(v) });
  const compare = (o: CompareOp, v: number): Expression => ({ kind: 'compare', op: o, property, value: value(v) });
  const everyNonNull: Expression = { kind: 'compare', op: 'ne', property, value: null };
  if (op === 'eq' || op === 'ne') {
    if (Number.isInteger(n) && n >= INT32.min && n <= INT32.max) return compare(op, n);
    // No Int32 equals it: eq is false for every row, ne true for every row (null included).
    return { kind: 'const', value: op === 'ne' };
  }
  const bound = op === 'gt' || op === 'le' ? Math.floor(n) : Math.ceil(n);
  const lower = op === 'gt' || op === 'ge';
  if (lower && bound > INT32.max - (op === 'gt' ? 1 : 0)) return { kind: 'const', value: false };
  if (lower && bound < INT32.min) return everyNonNull;
  if (!lower && bound < INT32.min + (op === 'lt' ? 1 : 0)) return { kind: 'const', value: false };
  if (!lower && bound > INT32.max) return everyNonNull;
  return compare(op, bound);
}

/** The canonical text of a filter: fixed spacing, literals in one form, parentheses only where precedence needs them. */
export function printExpression(expression: Expression): string {
  switch (expression.kind) {
    case 'const':
      return String(expression.value);
    case 'compare':
      return `${expression.property.name} ${expression.op} ${expression.value?.text ?? 'null'}`;
    case 'text':
      return `${expression.fn}(${expression.property.name},${quote(expression.value)})`;
    case 'not': {
      const inner = printExpression(expression.operand);
      return expression.operand.kind === 'and' || expression.operand.kind === 'or' ? `not (${inner})` : `not ${inner}`;
    }
    case 'and':
    case 'or': {
      const side = (e: Expression) => (expression.kind === 'and' && e.kind === 'or' ? `(${printExpression(e)})` : printExpression(e));
      return `${side(expression.left)} ${expression.kind} ${side(expression.right)}`;
    }
  }
}

export interface OrderItem {
  property: PropertyDef;
  descending: boolean;
  /** Whether rows of the result can hold null here (false when the filter excludes them): decides the SQL null ordering. */
  nullable: boolean;
}

/**
 * The properties the filter keeps non-null in every matching row (a comparison with a value, a text
 * function, `ne null`, in a conjunction or in every branch of a disjunction). Sorting on them needs no
 * explicit null order, which lets PostgreSQL walk an index instead of sorting.
 */
export function nonNullProperties(expression: Expression | undefined): Set<PropertyDef> {
  if (!expression) return new Set();
  switch (expression.kind) {
    case 'compare':
      return (expression.value === null) === (expression.op === 'ne') ? new Set([expression.property]) : new Set();
    case 'text':
      return new Set([expression.property]);
    case 'and':
      return new Set([...nonNullProperties(expression.left), ...nonNullProperties(expression.right)]);
    case 'or': {
      const right = nonNullProperties(expression.right);
      return new Set([...nonNullProperties(expression.left)].filter((p) => right.has(p)));
    }
    default:
      return new Set();
  }
}

/** $orderby: properties of the set with asc/desc; expressions are a 501. */
export function parseOrderBy(text: string, set: EntitySetDef): OrderItem[] {
  checkBounds('$orderby', text);
  const tree = parsed('$orderby', text, '$orderby=', parseQueryOptions);
  const items = tree.value.options[0].value.items as Token[];
  const reader = new FilterReader(set);
  return items.map((item) => {
    const expr = item.value.expr as Token;
    const member = expr.type === 'CommonExpression' ? expr.value : expr;
    if (member.type !== 'FirstMemberExpression') throw new ODataNotImplemented(`Expressions in $orderby ('${expr.raw}')`);
    const property = reader.propertyOf(member, '$orderby');
    if (!property.field) throw notQueryable('$orderby', property.name);
    return { property, descending: item.value.direction === -1, nullable: property.nullable };
  });
}

/** $select: properties of the set (or *); paths and navigation are a 501. */
export function parseSelect(text: string, set: EntitySetDef): PropertyDef[] | undefined {
  checkBounds('$select', text);
  const tree = parsed('$select', text, '$select=', parseQueryOptions);
  const names = (tree.value.options[0].value.items as Token[]).map((item) => item.raw.trim());
  if (names.includes('*')) return undefined;
  const selected: PropertyDef[] = [];
  for (const name of names) {
    if (!IDENTIFIER.test(name)) throw new ODataNotImplemented(`'${name}' in $select (only property names and *)`);
    const property = propertyNamed(set, name);
    if (!property) {
      if (set.navigation.some((n) => n.name === name)) throw new ODataNotImplemented(`Navigation property '${name}' in $select`);
      throw unknownProperty('$select', name, set);
    }
    if (!selected.includes(property)) selected.push(property);
  }
  return selected;
}
