/**
 * The spec values a category admits: category-aware "absurd value" bounds, not product rules.
 * Inputs are checked against them by the deviceSpecs schema (src/footprint/inputs.ts), the
 * calibration loader's sheets too.
 */
import { SWAP_LIMITS, swapToken } from './swaps.ts';
import type { CategoryDefinition, DeviceSpecs, FieldProblem, Swap } from './types.ts';

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
  | 'weight_kg'
  | 'screen_size_inch'
  | 'processor_tdp_w'
  | 'ram_gb'
  | 'storage_gb'
  | 'battery_wh'
  | 'typical_consumption_kwh';

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
    out.push({
      field: 'weight_kg',
      reason: `${w} kg is beyond the heaviest real products of category ${category.id} (${real.max_weight_kg} kg)`,
    });
  }
  const sc = specs.screen_size_inch;
  if (isNum(sc) && sc > real.max_screen_inch) {
    out.push({
      field: 'screen_size_inch',
      reason:
        real.max_screen_inch === 0
          ? `${sc} inches on a ${category.id}, which has no built-in screen`
          : `${sc} inches is beyond the largest real products of category ${category.id} (${real.max_screen_inch} inches)`,
    });
  }
  return out;
}

/**
 * Swapped parts beyond the category's refusal bounds (specLimits): a new part is held to the same
 * bounds as the device's own spec, so a 99-inch panel in a laptop is refused as a 99-inch laptop
 * would be. One problem per swap, the field naming its place in the list (`swaps[0]`).
 */
export function swapLimitProblems(swaps: readonly Swap[], category: CategoryDefinition): FieldProblem[] {
  const limits = specLimits(category);
  const bound = (swap: Swap): { value: number; max: number; what: string; min: string; unit: string } | undefined => {
    switch (swap.kind) {
      case 'battery':
        return { value: swap.wh, max: limits.battery_wh, what: 'battery capacity', min: 'above 0', unit: 'Wh' };
      case 'storage':
        return { value: swap.gb, max: limits.storage_gb, what: 'storage capacity', min: 'above 0', unit: 'GB' };
      case 'ram':
        return { value: swap.total_gb, max: limits.ram_gb, what: 'total memory', min: 'above 0', unit: 'GB' };
      case 'display':
        return {
          value: swap.inches,
          max: limits.screen_size_inch,
          what: 'display size',
          min: String(SWAP_LIMITS.display_inches.min),
          unit: 'inches',
        };
      case 'keyboard_trackpad':
        return undefined;
    }
  };
  return swaps.flatMap((swap, i) => {
    const b = bound(swap);
    if (!b || b.value <= b.max) return [];
    return [
      {
        field: `swaps[${i}]`,
        reason: `'${swapToken(swap)}': ${b.what} ${b.value} ${b.unit} is out of range for category ${category.id} (allowed ${b.min} to ${b.max} ${b.unit})`,
      },
    ];
  });
}
