/**
 * The zod pieces inputs are checked with, on every path: GraphQL and SOFA's REST routes (through
 * @pothos/plugin-validation), hand-written routes (readJsonBody) and the CSV import (problemsOf).
 * OpenAPI states what they check from the same schemas (openApiBounds, z.toJSONSchema).
 */
import * as z from 'zod';
import { SCREEN_TYPES, STORAGE_TYPES, specLimits, type CategoryDefinition, type DeviceSpecs } from '../footprint/engine/index.ts';
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
export function invalidInput(issues: readonly { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[] | undefined }[]): ApiError {
  return invalidFields(issues.map((issue) => ({ field: fieldPath(issue.path) || 'body', reason: issue.message })));
}

/** The problems of a value against a schema, each naming its field, in the schema's order. */
export function problemsOf(schema: z.ZodType, value: unknown): FieldProblem[] {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((issue) => ({ field: fieldPath(issue.path), reason: issue.message }));
}

/** Bounds an argument or input field is checked against (by its resolver), as OpenAPI 3.0 states them. */
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
export const openApiSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;

/** Pothos options of an argument or input field checked by `schema`: the check, and its bounds in OpenAPI. */
export const checkedBy = (schema: z.ZodType) => ({ validate: schema, ...openApiBounds(schema) });

const FINITE = { error: 'must be a finite number' };
const finite = () => z.number(FINITE);

/** Spec values a device may have in any category: weight above 0, the others not negative. */
export const SPEC_VALUES = {
  weight_kg: finite().gt(0, 'must be greater than 0'),
  nonNegative: finite().min(0, 'must not be negative'),
} as const;

export const screenType = z.enum(SCREEN_TYPES, { error: `must be one of ${SCREEN_TYPES.join(', ')}` });
export const storageType = z.enum(STORAGE_TYPES, { error: `must be one of ${STORAGE_TYPES.join(', ')}` });

type LimitedField = keyof ReturnType<typeof specLimits>;
const UNITS: Record<LimitedField, string> = {
  weight_kg: 'kg',
  screen_size_inch: 'inches',
  processor_tdp_w: 'W',
  ram_gb: 'GB',
  storage_gb: 'GB',
  battery_wh: 'Wh',
  typical_consumption_kwh: 'kWh per year',
};

/**
 * The specs a device of `category` may be given (the engine's field names): finite, weight above 0
 * and below its category's refusal bound, the others not negative and at most theirs
 * (specLimits), screen and storage types of the engine's lists. Every problem is reported; a
 * number left null is not given (sheets of the calibration set have them).
 */
export function deviceSpecs(category: CategoryDefinition): z.ZodType<DeviceSpecs> {
  let schema = DEVICE_SPECS.get(category);
  if (!schema) DEVICE_SPECS.set(category, (schema = specsSchema(category)));
  return schema;
}

const DEVICE_SPECS = new WeakMap<CategoryDefinition, z.ZodType<DeviceSpecs>>();

function specsSchema(category: CategoryDefinition): z.ZodType<DeviceSpecs> {
  const limits = specLimits(category);
  const noScreen = category.parameters.limits.max_screen_inch === 0;
  const within = (field: LimitedField) => {
    const max = limits[field];
    const reason =
      field === 'screen_size_inch' && noScreen
        ? `must be at most ${max} inches (a status panel): a ${category.id} has no built-in screen`
        : `must be ${field === 'weight_kg' ? 'below' : 'at most'} ${max} ${UNITS[field]} for category ${category.id}`;
    return field === 'weight_kg' ? SPEC_VALUES.weight_kg.lt(max, reason) : SPEC_VALUES.nonNegative.max(max, reason);
  };
  return z.object({
    weight_kg: within('weight_kg').nullish(),
    screen_size_inch: within('screen_size_inch').nullish(),
    processor_tdp_w: within('processor_tdp_w').nullish(),
    ram_gb: within('ram_gb').nullish(),
    storage_gb: within('storage_gb').nullish(),
    battery_wh: within('battery_wh').nullish(),
    typical_consumption_kwh: within('typical_consumption_kwh').nullish(),
    screen_type: screenType.optional(),
    storage_type: storageType.optional(),
  }) as z.ZodType<DeviceSpecs>;
}

/** Years of further use (savings, refurbishment). */
export const REMAINING_YEARS_MIN = 0;
export const REMAINING_YEARS_MAX = 15;
const betweenYears = (issue: { input?: unknown }) => `must be between ${REMAINING_YEARS_MIN} and ${REMAINING_YEARS_MAX}, got ${String(issue.input)}`;
export const remainingYears = z.number().min(REMAINING_YEARS_MIN, { error: betweenYears }).max(REMAINING_YEARS_MAX, { error: betweenYears });

/** A list of `min` to `max` items. */
export const itemCount = (min: number, max: number) => {
  const count = (issue: { input?: unknown }) => `must contain ${min} to ${max} items, got ${Array.isArray(issue.input) ? issue.input.length : 0}`;
  return z.array(z.unknown()).min(min, { error: count }).max(max, { error: count });
};
