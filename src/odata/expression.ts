/**
 * $filter: the text is parsed by odata-v4-parser; its syntax tree is checked against the entity set
 * and turned into a small expression tree of what the interface supports (comparisons, and/or/not,
 * contains/startswith/endswith, tolower/toupper, year/month/day, literals). Everything else that is
 * valid OData is a 501 naming it.
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
/** tolower()/toupper() of a text property: compared case-insensitively (SQL LOWER on both sides). */
export type CaseFold = 'tolower' | 'toupper';
export type DatePart = 'year' | 'month' | 'day';
const CASE_FOLDS = new Set<string>(['tolower', 'toupper']);
const DATE_PARTS = new Set<string>(['year', 'month', 'day']);

/** A literal value converted for the property it is compared with; `text` is its canonical OData form. */
export interface Value {
  prisma: string | number | boolean | Date;
  text: string;
}

export type Expression =
  | { kind: 'const'; value: boolean }
  | { kind: 'and' | 'or'; left: Expression; right: Expression }
  | { kind: 'not'; operand: Expression }
  | { kind: 'compare'; op: CompareOp; property: PropertyDef; value: Value | null; fold?: CaseFold }
  | { kind: 'text'; fn: TextFunction; property: PropertyDef; value: string; fold?: CaseFold }
  | { kind: 'part'; part: DatePart; op: CompareOp; property: PropertyDef; value: number };

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

type Operand =
  | { kind: 'property'; property: PropertyDef }
  | { kind: 'function'; fn: CaseFold | DatePart; property: PropertyDef }
  | { kind: 'literal'; literal: Literal; raw: string };
type LiteralOperand = Extract<Operand, { kind: 'literal' }>;

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
 * What the parser is given: the client's text with the forms that real clients send but
 * odata-v4-parser does not read rewritten into forms it does, token by token; `origin[i]` is the
 * position in the client's text of character i of the rewritten text (for error positions).
 * - The parser reads URL syntax (RFC 3986 pchar): inside string literals it accepts percent-encoded
 *   octets but not a raw %, /, ?, #, " or a few other characters. The option arrives decoded, so those
 *   characters of string literals are encoded again (decodeStringLiteral undoes that).
 * - Numbers with a type suffix (100D, 1.5M, 2F, 7L; the SAP Cloud SDK writes Double literals so):
 *   the suffix is dropped, the property's type decides the value's type.
 * - `not(` without a space (Power Query writes it so): a space is put in.
 * - `fn(…) eq true|false` (also ne) for a Boolean function (SAP Cloud SDK): the call, or `not` the call.
 * - `x in (a, b)`: `(x eq a or x eq b)`.
 */
const NOT_PCHAR = /[%/?#"\\[\]{}<>|^`]/;
const TOKEN = /'(?:[^']|'')*'?|\s+|[(),]|[^\s'(),]+/g;
const TYPED_NUMBER = /^(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)[dDfFmMlL]$/;
const BOOLEAN_FUNCTIONS = new Set(['contains', 'startswith', 'endswith']);
const UNPARSED_FUNCTIONS = new Set(['cast']);
const KEYWORD_LITERALS = new Set(['null', 'true', 'false', 'INF', 'NaN']);

interface Piece {
  text: string;
  /** Position in the client's text of each character. */
  origin: number[];
}

const piece = (text: string, at: number, originOf?: (k: number) => number): Piece => ({
  text,
  origin: [...text].map((_, k) => (originOf ? originOf(k) : at)),
});
const isBlank = (p: Piece | undefined) => p !== undefined && /^\s+$/.test(p.text);

/** Index of the parenthesis that closes (or, backwards, opens) the one at `at`; -1 when unbalanced. */
function matching(pieces: readonly Piece[], at: number, step: 1 | -1): number {
  let depth = 0;
  for (let i = at; i >= 0 && i < pieces.length; i += step) {
    const t = pieces[i]!.text;
    if (t === '(' || t === ')') depth += (t === '(') === (step === 1) ? 1 : -1;
    if (depth === 0) return i;
  }
  return -1;
}

/** The next (or previous) piece that is not white space. */
function around(pieces: readonly Piece[], at: number, step: 1 | -1): number {
  let i = at + step;
  while (isBlank(pieces[i])) i += step;
  return i;
}

/** `left in (a, b)` as `(left eq a or left eq b)`; anything else unchanged. */
function expandIn(pieces: Piece[]): Piece[] {
  for (let i = 0; i < pieces.length; i++) {
    if (pieces[i]!.text !== 'in' || !isBlank(pieces[i - 1])) continue;
    const open = around(pieces, i, 1);
    const leftEnd = around(pieces, i, -1);
    if (pieces[open]?.text !== '(' || leftEnd < 0) continue;
    const close = matching(pieces, open, 1);
    let leftStart = leftEnd;
    if (pieces[leftEnd]!.text === ')') {
      leftStart = matching(pieces, leftEnd, -1);
      if (leftStart > 0 && !isBlank(pieces[leftStart - 1]) && !'(),'.includes(pieces[leftStart - 1]!.text)) leftStart--;
    }
    if (close < 0 || leftStart < 0) continue;
    const items: Piece[][] = [[]];
    for (let k = open + 1, depth = 0; k < close; k++) {
      const t = pieces[k]!.text;
      if (t === '(') depth++;
      if (t === ')') depth--;
      if (t === ',' && depth === 0) items.push([]);
      else items.at(-1)!.push(pieces[k]!);
    }
    // A list of literals only (4.01 says so): `x in (y)` of a property y is left to the parser, which refuses it.
    const isLiteral = (item: Piece[]) => {
      const solid = item.filter((p) => !isBlank(p));
      return solid.length > 0 && !(solid.length === 1 && /^[A-Za-z_]\w*$/.test(solid[0]!.text) && !KEYWORD_LITERALS.has(solid[0]!.text));
    };
    if (!items.every(isLiteral)) continue;
    const at = pieces[i]!.origin[0]!;
    const left = pieces.slice(leftStart, leftEnd + 1);
    const expanded = [
      piece('(', at),
      ...items.flatMap((item, k) => [...(k ? [piece(' or ', at)] : []), ...left, piece(' eq ', at), ...item]),
      piece(')', at),
    ];
    return expandIn([...pieces.slice(0, leftStart), ...expanded, ...pieces.slice(close + 1)]);
  }
  return pieces;
}

function forParser(text: string): { encoded: string; origin: number[] } {
  const pieces = expandIn([...text.matchAll(TOKEN)].map((m) => piece(m[0], m.index, (k) => m.index + k)));
  const out: Piece[] = [];
  const dropped = new Set<number>();
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    if (dropped.has(i)) continue;
    const next = pieces[i + 1]?.text;
    if (p.text.startsWith("'")) {
      for (let k = 0; k < p.text.length; k++) {
        const c = p.text[k]!;
        out.push(piece(NOT_PCHAR.test(c) ? `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}` : c, p.origin[k]!));
      }
      continue;
    }
    if (next === '(' && UNPARSED_FUNCTIONS.has(p.text)) throw new ODataNotImplemented(`The function ${p.text}()`);
    const typed = TYPED_NUMBER.exec(p.text);
    if (typed) {
      out.push({ text: typed[1]!, origin: p.origin.slice(0, typed[1]!.length) });
      continue;
    }
    if (p.text === 'not' && next === '(') {
      out.push(p, piece(' ', p.origin.at(-1)!));
      continue;
    }
    if (BOOLEAN_FUNCTIONS.has(p.text) && next === '(') {
      // fn(…) eq|ne true|false: the comparison is dropped, and the call negated where it says false.
      const close = matching(pieces, i + 1, 1);
      const op = close < 0 ? -1 : around(pieces, close, 1);
      const bool = op < 0 ? -1 : around(pieces, op, 1);
      const [opText, boolText] = [pieces[op]?.text, pieces[bool]?.text];
      if ((opText === 'eq' || opText === 'ne') && (boolText === 'true' || boolText === 'false')) {
        if ((opText === 'eq') !== (boolText === 'true')) out.push(piece('not ', p.origin[0]!));
        for (let k = close + 1; k <= bool; k++) dropped.add(k);
      }
    }
    out.push(p);
  }
  const origin = out.flatMap((p) => p.origin);
  origin.push(text.length);
  return { encoded: out.map((p) => p.text).join(''), origin };
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
        if (property.type !== 'Edm.Boolean')
          throw typeMismatch('$filter', `${property.name} is not Boolean; compare it with a value (e.g. ${property.name} eq …)`);
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
    if (token.type === 'ArrayOrObject' || token.type === 'Array' || token.type === 'Object')
      return new ODataNotImplemented('JSON arrays and objects in $filter');
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
      case 'MethodCallExpression': {
        const fn = String(token.value.method);
        const parameters = token.value.parameters as Token[];
        if (!CASE_FOLDS.has(fn) && !DATE_PARTS.has(fn)) throw new ODataNotImplemented(`The function ${fn}() as a value`);
        const argument = parameters.length === 1 ? this.operand(parameters[0]!) : undefined;
        if (argument?.kind !== 'property') throw new ODataNotImplemented(`${fn}() of anything but a property`);
        return { kind: 'function', fn: fn as CaseFold | DatePart, property: argument.property };
      }
      default:
        throw this.unsupported(token);
    }
  }

  private comparison(op: CompareOp, token: Token): Expression {
    const left = this.operand(token.value.left);
    const right = this.operand(token.value.right);
    if (left.kind !== 'literal' && right.kind !== 'literal') throw new ODataNotImplemented('Comparing two properties');
    if (left.kind === 'literal' && right.kind === 'literal')
      return this.counted({ kind: 'const', value: compareLiterals(op, left, right) });
    const [subject, literal, effectiveOp] =
      left.kind === 'literal' ? [right as Exclude<Operand, LiteralOperand>, left, FLIPPED[op]] : [left, right as LiteralOperand, op];
    if (!subject.property.field) throw notQueryable('$filter', subject.property.name);
    if (subject.kind === 'property') return this.counted(comparisonOf(subject.property, effectiveOp, literal));
    return this.counted(functionComparison(subject.fn, subject.property, effectiveOp, literal));
  }

  private method(token: Token): Expression {
    const name = String(token.value.method);
    if (name !== 'contains' && name !== 'startswith' && name !== 'endswith') throw new ODataNotImplemented(`The function ${name}()`);
    const [first, second] = (token.value.parameters as Token[]).map((p) => this.operand(p));
    const fold = first?.kind === 'function' && CASE_FOLDS.has(first.fn) ? (first.fn as CaseFold) : undefined;
    if ((first?.kind !== 'property' && !fold) || second?.kind !== 'literal') {
      throw new ODataNotImplemented(`${name}() with arguments other than (property, 'text') or (tolower(property), 'text')`);
    }
    const { property } = first as Exclude<Operand, LiteralOperand>;
    if (!property.field) throw notQueryable('$filter', property.name);
    if (property.type !== 'Edm.String')
      throw typeMismatch('$filter', `${name}() needs a text property; ${property.name} is ${typeName(property)}`);
    if (second.literal.kind === 'null') return this.counted({ kind: 'const', value: false });
    if (second.literal.kind !== 'string') throw typeMismatch('$filter', `${name}() needs a text literal in quotes, got ${second.raw}`);
    const value = second.literal.value;
    // tolower(x) holds no upper-case letter: a text with one is found in no row.
    if (fold && folded(fold, value) !== value) return this.counted({ kind: 'const', value: false });
    return this.counted({ kind: 'text', fn: name, property, value, ...(fold ? { fold } : {}) });
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
    if (Number.isNaN(value.getTime()) || !isCalendarDate(raw.slice(0, 10)))
      throw typeMismatch('$filter', `${raw} is not a valid date-time`);
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
function compareLiterals(op: CompareOp, a: LiteralOperand, b: LiteralOperand): boolean {
  const value = (l: Literal) =>
    l.kind === 'null'
      ? null
      : l.kind === 'datetime'
        ? l.value.getTime()
        : l.kind === 'enum'
          ? l.member
          : l.kind === 'other'
            ? undefined
            : l.value;
  const x = value(a.literal);
  const y = value(b.literal);
  if (x === undefined || y === undefined) throw typeMismatch('$filter', `cannot compare ${a.raw} with ${b.raw}`);
  if (x === null || y === null) return op === 'eq' || op === 'ge' || op === 'le' ? x === y : op === 'ne' ? x !== y : false;
  if (typeof x !== typeof y || a.literal.kind !== b.literal.kind) throw typeMismatch('$filter', `cannot compare ${a.raw} with ${b.raw}`);
  return compareValues(op, x < y ? -1 : x > y ? 1 : 0);
}

const compareValues = (op: CompareOp, order: number) =>
  ({ eq: order === 0, ne: order !== 0, gt: order > 0, ge: order >= 0, lt: order < 0, le: order <= 0 })[op];

const folded = (fold: CaseFold, text: string) => (fold === 'tolower' ? text.toLowerCase() : text.toUpperCase());

/**
 * `fn(property) op literal` for tolower/toupper (text) and year/month/day (dates and date-times,
 * in UTC, which is every stored instant's offset). A null literal tests the property for null.
 */
function functionComparison(fn: CaseFold | DatePart, property: PropertyDef, op: CompareOp, operand: LiteralOperand): Expression {
  const { literal } = operand;
  if (literal.kind === 'null') return { kind: 'compare', op, property, value: null };
  if (fn === 'tolower' || fn === 'toupper') {
    if (property.type !== 'Edm.String')
      throw typeMismatch('$filter', `${fn}() needs a text property; ${property.name} is ${typeName(property)}`);
    if (literal.kind !== 'string')
      throw typeMismatch('$filter', `${fn}(${property.name}) is text; compare it with a text literal in quotes, got ${operand.raw}`);
    const value = literal.value;
    const ordering = op !== 'eq' && op !== 'ne';
    // LOWER(x) op LOWER(value) is exactly tolower(x) op value when value is lower case; for toupper only equality matches it.
    if (ordering && (fn === 'toupper' || folded(fn, value) !== value))
      throw new ODataNotImplemented(
        `${fn}() with ${op} and a text not in ${fn === 'tolower' ? 'lower' : 'upper'} case (compare tolower(…) with lower-case text)`,
      );
    if (folded(fn, value) !== value) return { kind: 'const', value: op === 'ne' };
    return { kind: 'compare', op, property, value: { prisma: value, text: quote(value) }, fold: fn };
  }
  if (property.type !== 'Edm.Date' && property.type !== 'Edm.DateTimeOffset') {
    throw typeMismatch('$filter', `${fn}() needs a date or date-time property; ${property.name} is ${typeName(property)}`);
  }
  if (literal.kind !== 'number' || !Number.isInteger(literal.value))
    throw typeMismatch('$filter', `${fn}(${property.name}) is an integer; got ${operand.raw}`);
  return { kind: 'part', part: fn, op, property, value: literal.value };
}

/** `property op literal`, the literal checked against and converted for the property's type. */
function comparisonOf(property: PropertyDef, op: CompareOp, operand: LiteralOperand): Expression {
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
    if (!type.members.includes(member))
      throw typeMismatch('$filter', `${property.name} is one of ${type.members.join(', ')}; got '${member}'`);
    return { kind: 'compare', op, property, value: { prisma: member, text: quote(member) } };
  }
  switch (type) {
    case 'Edm.String':
      if (literal.kind !== 'string') throw mismatch();
      return { kind: 'compare', op, property, value: { prisma: literal.value, text: quote(literal.value) } };
    case 'Edm.Guid': {
      const id =
        literal.kind === 'guid'
          ? literal.value
          : literal.kind === 'string' && UUID.test(literal.value)
            ? literal.value.toLowerCase()
            : undefined;
      if (id === undefined) throw mismatch();
      return { kind: 'compare', op, property, value: { prisma: id, text: id } };
    }
    case 'Edm.Boolean':
      if (literal.kind !== 'boolean') throw mismatch();
      return { kind: 'compare', op, property, value: { prisma: literal.value, text: String(literal.value) } };
    case 'Edm.Date':
      if (literal.kind !== 'date')
        throw typeMismatch('$filter', `${property.name} is Edm.Date; compare it with a date such as 2024-01-31, got ${operand.raw}`);
      return { kind: 'compare', op, property, value: { prisma: new Date(`${literal.value}T00:00:00Z`), text: literal.value } };
    case 'Edm.DateTimeOffset': {
      // A date stands for its first instant (UTC).
      const value =
        literal.kind === 'datetime' ? literal.value : literal.kind === 'date' ? new Date(`${literal.value}T00:00:00Z`) : undefined;
      if (!value) throw mismatch();
      return { kind: 'compare', op, property, value: { prisma: value, text: value.toISOString() } };
    }
    case 'Edm.Double':
    case 'Edm.Decimal':
    case 'Edm.Int32': {
      if (literal.kind !== 'number') throw mismatch();
      if (!Number.isFinite(literal.value))
        throw typeMismatch('$filter', `${operand.raw}: INF and NaN cannot be compared with ${property.name}`);
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
    case 'compare': {
      const subject = expression.fold ? `${expression.fold}(${expression.property.name})` : expression.property.name;
      return `${subject} ${expression.op} ${expression.value?.text ?? 'null'}`;
    }
    case 'text': {
      const subject = expression.fold ? `${expression.fold}(${expression.property.name})` : expression.property.name;
      return `${expression.fn}(${subject},${quote(expression.value)})`;
    }
    case 'part':
      return `${expression.part}(${expression.property.name}) ${expression.op} ${expression.value}`;
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
    case 'part':
      return expression.op === 'ne' ? new Set() : new Set([expression.property]);
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
