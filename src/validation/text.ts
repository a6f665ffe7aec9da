import { validate as isUuid } from 'uuid';
import { invalidParameter } from '../errors/api-error.ts';

/**
 * The text rules every string input follows, on every interface: a maximum length checked
 * before any work, no control characters, well-formed Unicode (no lone UTF-16 surrogates).
 * Multi-line text (CSV content) may contain tab, line feed and carriage return.
 */
export interface TextLimit {
  maxLength: number;
  multiline?: boolean;
}

/** What a string input without a declared limit may hold. */
export const DEFAULT_MAX_LENGTH = 200;

// C0 controls, DEL and C1 controls; the multi-line set spares \t \n \r.
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/;
const CONTROL_MULTILINE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
// In a /u pattern, surrogates match only when unpaired.
const LONE_SURROGATE = /\p{Cs}/u;

/** The reason a value breaks its limit, or undefined when it is fine. */
export function textProblem(value: string, limit: TextLimit): string | undefined {
  if (value.length > limit.maxLength) return `must be at most ${limit.maxLength} characters, got ${value.length}`;
  const control = (limit.multiline ? CONTROL_MULTILINE : CONTROL).exec(value);
  if (control) {
    const codePoint = `U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    return `must not contain control characters (${codePoint}${positionOf(value, control.index, limit.multiline)})`;
  }
  if (LONE_SURROGATE.test(value)) return 'must be well-formed Unicode (a lone UTF-16 surrogate was sent)';
  return undefined;
}

function positionOf(value: string, index: number, multiline = false): string {
  if (!multiline) return ` at character ${index + 1}`;
  let line = 1;
  for (let i = value.indexOf('\n'); i !== -1 && i < index; i = value.indexOf('\n', i + 1)) line++;
  return ` on line ${line}`;
}

/** Throws the 400 INVALID_PARAMETER naming `field` when the value breaks its limit. */
export function checkText(value: string, field: string, limit: TextLimit): void {
  const problem = textProblem(value, limit);
  if (problem) throw invalidParameter(field, problem);
}

/** Pothos field/argument options declaring a limit: `t.arg.string({ ...maxChars(100) })`. */
export function maxChars(maxLength: number, options: Omit<TextLimit, 'maxLength'> = {}) {
  return { extensions: { textLimit: { maxLength, ...options } satisfies TextLimit } };
}

/** Limits of the inputs several routes share (characters). */
export const TEXT_LIMITS = {
  brand: 100,
  mpn: 100,
  model: 200,
  category: 64,
  /** Region codes, or names for the "did you mean" suggestions. */
  country: 64,
  swaps: 500,
  searchQuery: 200,
  serialNumber: 100,
  shortCode: 32,
  id: 64,
  /** CSV import content; the request body limit of the CSV route allows it. */
  csv: 2_000_000,
  /** Idempotency-Key header of the creating POST routes (src/idempotency/; a UUID or a client's own token). */
  idempotencyKey: 255,
  /** Export scope: a table name. */
  tableName: 64,
} as const;

/** Ids are UUIDs: anything else is the caller's mistake (400 naming the field), not a missing row. */
export function checkUuid(field: string, value: string): void {
  if (!isUuid(value)) throw invalidParameter(field, `must be a UUID, got '${value}'`);
}
