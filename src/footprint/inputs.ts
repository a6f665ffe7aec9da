/**
 * The zod schemas of device inputs (footprint, savings, refurbishment, batch items, asset import,
 * the calibration loader): the one definition of what they accept, against the bounds the engine
 * states per category (engine/limits.ts).
 */
import * as z from 'zod';
import {
  DURATION_YEARS_MAX,
  RELEASE_YEAR_MIN,
  SCREEN_TYPES,
  STORAGE_TYPES,
  specLimits,
  type CategoryDefinition,
  type DeviceSpecs,
} from './engine/index.ts';

const FINITE = { error: 'must be a finite number' };
const finite = () => z.number(FINITE);

/** Spec values a device may have in any category: weight above 0, the others not negative. */
export const SPEC_VALUES = {
  weight_kg: finite().gt(0, 'must be greater than 0'),
  nonNegative: finite().min(0, 'must not be negative'),
} as const;

const screenType = z.enum(SCREEN_TYPES, { error: `must be one of ${SCREEN_TYPES.join(', ')}` });
const storageType = z.enum(STORAGE_TYPES, { error: `must be one of ${STORAGE_TYPES.join(', ')}` });

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
const betweenYears = (issue: { input?: unknown }) =>
  `must be between ${REMAINING_YEARS_MIN} and ${REMAINING_YEARS_MAX}, got ${String(issue.input)}`;
export const remainingYears = z
  .number()
  .min(REMAINING_YEARS_MIN, { error: betweenYears })
  .max(REMAINING_YEARS_MAX, { error: betweenYears });

/** The duration figures are allocated to (footprint, savings, refurbishment); the device's lifetime bounds it too (allocationProblems). */
export const durationYears = z
  .number(FINITE)
  .gt(0, { error: (issue) => `must be greater than 0 (omit it for whole-life figures), got ${String(issue.input)}` })
  .max(DURATION_YEARS_MAX, { error: (issue) => `must be at most ${DURATION_YEARS_MAX} years, got ${String(issue.input)}` });

/** Release years a caller may state: from the engine's earliest (1990) to next year (a model announced for next year). */
export const latestReleaseYear = (): number => new Date().getUTCFullYear() + 1;
export const releaseYear = z
  .number()
  .int({ error: (issue) => `must be a whole year, got ${String(issue.input)}` })
  .min(RELEASE_YEAR_MIN, { error: (issue) => `must be ${RELEASE_YEAR_MIN} or later, got ${String(issue.input)}` })
  .refine((year) => year <= latestReleaseYear(), {
    error: (issue) => `must be at most ${latestReleaseYear()} (next year), got ${String(issue.input)}`,
  });
