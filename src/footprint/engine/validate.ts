/**
 * Pure validators for the API layer. They return structured problems {field, reason}; an empty
 * array means valid. Limits are category-aware "absurd value" bounds, not product rules.
 */
import { SwapParseError, parseSwaps } from './swaps.ts';
import { getCategory } from './categories.ts';
import { SCREEN_TYPES, STORAGE_TYPES } from './types.ts';
import type { CategoryDefinition, DeviceSpecs, FieldProblem, Grade } from './types.ts';

export const REMAINING_YEARS_MIN = 0;
export const REMAINING_YEARS_MAX = 15;
export const LIFETIME_YEARS_MAX = 30;
export const GRID_FACTOR_MAX = 2;

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * Refusal bounds come from the range of real products (`limits` in data/categories.json: the
 * heaviest and largest real products of the category) with a margin, so that a real product is
 * never refused, even when its sheet carries a slip (the calibration set has a "15.6 kg" laptop
 * whose weight column holds its screen size), while a typo of another order (5000 kg) still is.
 */
export const WEIGHT_MARGIN = 3;
/** screens: 25% above the largest real product of the category */
export const SCREEN_MARGIN = 1.25;
/**
 * Categories without a built-in screen still accept a small status panel (server front-panel
 * LCDs; manufacturer sheets list 4 inches for some rack servers): up to this size.
 */
export const STATUS_PANEL_MAX_INCH = 5;

type LimitedField =
  'weight_kg' | 'screen_size_inch' | 'processor_tdp_w' | 'ram_gb' | 'storage_gb' | 'battery_wh' | 'typical_consumption_kwh';

/** Upper bounds per numeric spec for a category (inclusive unless stated): beyond them, 400. */
export function specLimits(category: CategoryDefinition): Record<LimitedField, number> {
  const d = category.defaults;
  const real = category.parameters.limits;
  return {
    weight_kg: Math.round(real.max_weight_kg * WEIGHT_MARGIN * 100) / 100,
    screen_size_inch: real.max_screen_inch > 0 ? Math.round(real.max_screen_inch * SCREEN_MARGIN * 10) / 10 : STATUS_PANEL_MAX_INCH,
    processor_tdp_w: Math.max(10 * d.processor_tdp_w, 100),
    ram_gb: Math.max(32 * d.ram_gb, 64),
    storage_gb: Math.max(100 * d.storage_gb, 2000),
    battery_wh: Math.max(5 * d.battery_wh, 100),
    typical_consumption_kwh: Math.max(50 * category.fallback_kwh_per_year, 100),
  };
}

export function validateSpecs(specs: DeviceSpecs, category: CategoryDefinition): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const lim = specLimits(category);
  const numeric = (field: keyof typeof lim, unit: string, mustBePositive: boolean): void => {
    const v = (specs as Record<string, unknown>)[field];
    if (v === undefined || v === null) return;
    if (!isNum(v)) {
      problems.push({ field, reason: 'must be a finite number' });
      return;
    }
    if (mustBePositive ? v <= 0 : v < 0) {
      problems.push({ field, reason: mustBePositive ? 'must be greater than 0' : 'must not be negative' });
      return;
    }
    const max = lim[field];
    if (field === 'weight_kg' ? v >= max : v > max) {
      problems.push({
        field,
        reason:
          field === 'screen_size_inch' && category.parameters.limits.max_screen_inch === 0
            ? `must be at most ${max} inches (a status panel): a ${category.id} has no built-in screen`
            : `must be ${field === 'weight_kg' ? 'below' : 'at most'} ${max} ${unit} for category ${category.id}`,
      });
    }
  };
  numeric('weight_kg', 'kg', true);
  numeric('screen_size_inch', 'inches', false);
  numeric('processor_tdp_w', 'W', false);
  numeric('ram_gb', 'GB', false);
  numeric('storage_gb', 'GB', false);
  numeric('battery_wh', 'Wh', false);
  numeric('typical_consumption_kwh', 'kWh per year', false);
  if (specs.screen_type !== undefined && !(SCREEN_TYPES as readonly string[]).includes(specs.screen_type as string)) {
    problems.push({ field: 'screen_type', reason: `must be one of ${SCREEN_TYPES.join(', ')}` });
  }
  if (specs.storage_type !== undefined && !(STORAGE_TYPES as readonly string[]).includes(specs.storage_type as string)) {
    problems.push({ field: 'storage_type', reason: `must be one of ${STORAGE_TYPES.join(', ')}` });
  }
  return problems;
}

/**
 * Values a request may carry (inside the refusal bounds) but beyond the range of real products of
 * the category (`limits` in data/categories.json): the API accepts them with a note, the
 * calibration loader drops them as sheet slips.
 */
export function outsideRealRange(specs: DeviceSpecs, category: CategoryDefinition): FieldProblem[] {
  const real = category.parameters.limits;
  const out: FieldProblem[] = [];
  const w = specs.weight_kg;
  if (isNum(w) && w >= real.max_weight_kg) {
    out.push({ field: 'weight_kg', reason: `${w} kg is beyond the heaviest real products of category ${category.id} (${real.max_weight_kg} kg)` });
  }
  const sc = specs.screen_size_inch;
  if (isNum(sc) && sc > real.max_screen_inch) {
    out.push({
      field: 'screen_size_inch',
      reason: real.max_screen_inch === 0
        ? `${sc} inches on a ${category.id}, which has no built-in screen`
        : `${sc} inches is beyond the largest real products of category ${category.id} (${real.max_screen_inch} inches)`,
    });
  }
  return out;
}

export function validateRemainingYears(value: unknown, field = 'remaining_years'): FieldProblem[] {
  if (!isNum(value)) return [{ field, reason: 'must be a finite number' }];
  if (value < REMAINING_YEARS_MIN || value > REMAINING_YEARS_MAX) {
    return [{ field, reason: `must be between ${REMAINING_YEARS_MIN} and ${REMAINING_YEARS_MAX} years` }];
  }
  return [];
}

export function validateLifetimeYears(value: unknown, field = 'lifetime_years'): FieldProblem[] {
  if (!isNum(value)) return [{ field, reason: 'must be a finite number' }];
  if (value <= 0 || value > LIFETIME_YEARS_MAX) return [{ field, reason: `must be greater than 0 and at most ${LIFETIME_YEARS_MAX} years` }];
  return [];
}

export function validateGridFactor(value: unknown, field = 'grid_factor_kg_per_kwh'): FieldProblem[] {
  if (!isNum(value)) return [{ field, reason: 'must be a finite number' }];
  if (value < 0 || value > GRID_FACTOR_MAX) return [{ field, reason: `must be between 0 and ${GRID_FACTOR_MAX} kg CO2e/kWh` }];
  return [];
}

export function isGrade(value: unknown): value is Grade {
  return value === 'A' || value === 'B' || value === 'C';
}

export function validateGrade(value: unknown, field = 'grade'): FieldProblem[] {
  return isGrade(value) ? [] : [{ field, reason: 'must be one of A (Like New), B (Good), C (Fair)' }];
}

export function validateCategoryId(value: unknown, field = 'category'): FieldProblem[] {
  if (typeof value !== 'string' || getCategory(value) === undefined) {
    return [{ field, reason: 'must be one of the 48 device categories (see /reference/categories)' }];
  }
  return [];
}

/** Validates a swaps string; the reason names the offending token. */
export function validateSwaps(value: unknown, field = 'swaps'): FieldProblem[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'string') return [{ field, reason: 'must be a string' }];
  try {
    parseSwaps(value);
    return [];
  } catch (e) {
    if (e instanceof SwapParseError) return [{ field, reason: e.message }];
    throw e;
  }
}
