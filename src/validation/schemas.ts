/**
 * The one way inputs are checked: zod schemas, run by @pothos/plugin-validation for GraphQL and
 * SOFA's REST routes (declared on arguments and input fields: checkedBy), by readJsonBody for
 * hand-written routes, and by problemsOf where a service checks a value itself (the CSV import,
 * a batch item). OpenAPI states what they check from the same schemas (openApiBounds,
 * openApiSchema). A feature's own pieces live with it (src/footprint/inputs.ts); these are shared.
 */
import * as z from 'zod';
import { invalidFields, type ApiError, type FieldProblem } from '../errors/api-error.ts';
import { textProblem, type TextLimit } from './text.ts';

/** A string with the text rules (text.ts); OpenAPI shows its maxLength. */
export function text(maxLength: number, options: Omit<TextLimit, 'maxLength'> = {}) {
  return z
    .string()
    .superRefine((value, ctx) => {
      const problem = textProblem(value, { maxLength, ...options });
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ maxLength });
}

/** `products[3].country`: how a path is named in an answer. */
export function fieldPath(path: readonly (PropertyKey | { key: PropertyKey })[] | undefined): string {
  let named = '';
  for (const segment of path ?? []) {
    const key = typeof segment === 'object' ? segment.key : segment;
    named += typeof key === 'number' ? `[${key}]` : `${named ? '.' : ''}${String(key)}`;
  }
  return named;
}

/** The 400 INVALID_PARAMETER for a failed check (any Standard Schema's issues), naming each field. */
export function invalidInput(
  issues: readonly { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[] | undefined }[],
): ApiError {
  return invalidFields(issues.map((issue) => ({ field: fieldPath(issue.path) || 'body', reason: issue.message })));
}

/** The problems of a value against a schema, each naming its field, in the schema's order. */
export function problemsOf(schema: z.ZodType, value: unknown): FieldProblem[] {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((issue) => ({ field: fieldPath(issue.path), reason: issue.message }));
}

/** Bounds an argument or input field is checked against, as OpenAPI 3.0 states them. */
export interface Bounds {
  minimum?: number;
  maximum?: number;
  /** With minimum: the value must be greater than it. */
  exclusiveMinimum?: boolean;
  /** Of a list. */
  minItems?: number;
  maxItems?: number;
}

/** Numeric bounds a schema checks, as the OpenAPI of SOFA's routes states them (Bounds). */
export function openApiBounds(schema: z.ZodType): { extensions: { bounds: Bounds } } {
  const json = openApiSchema(schema) as Bounds;
  const bounds = Object.fromEntries(BOUND_KEYWORDS.filter((k) => json[k] !== undefined && json[k] !== false).map((k) => [k, json[k]]));
  return { extensions: { bounds } };
}

const BOUND_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'minItems', 'maxItems'] as const;

/** The OpenAPI 3.0 schema of what a request may send (zod's JSON Schema of the input). */
export const openApiSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;

/** Pothos options of an argument or input field checked by `schema`: the check, and its bounds in OpenAPI. */
export const checkedBy = (schema: z.ZodType) => ({ validate: schema, ...openApiBounds(schema) });

/** A list of `min` to `max` items. */
export const itemCount = (min: number, max: number) => {
  const count = (issue: { input?: unknown }) =>
    `must contain ${min} to ${max} items, got ${Array.isArray(issue.input) ? issue.input.length : 0}`;
  return z.array(z.unknown()).min(min, { error: count }).max(max, { error: count });
};
