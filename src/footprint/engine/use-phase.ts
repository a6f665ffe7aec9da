/**
 * Use phase: annual electricity x lifetime x grid factor of the country of use.
 */
import { screenAreaM2 } from './specs.ts';
import type { ResolvedSpecs } from './specs.ts';
import type { CategoryDefinition } from './types.ts';

/** Lower bound of the profile relative to the category's fallback consumption. */
const MIN_PROFILE_FACTOR = 0.2;
/** Upper bound, so that absurd-but-valid specs cannot explode the use phase. */
const MAX_PROFILE_FACTOR = 6;

/**
 * Annual kWh: typical_consumption_kwh when supplied; otherwise the category profile
 * fallback_kwh_per_year x [1 - a - b + a x TDP/TDP_default + b x area/area_default],
 * a = tdp_share, b = screen_share (b only when the category has a default screen).
 */
export function annualKwh(category: CategoryDefinition, s: ResolvedSpecs): { kwh: number; measured: boolean } {
  if (s.typical_consumption_kwh !== null) return { kwh: s.typical_consumption_kwh, measured: true };
  return { kwh: profileKwh(category, s.processor_tdp_w, s.screen_size_inch), measured: false };
}

export function profileKwh(category: CategoryDefinition, tdpW: number, screenInch: number): number {
  const d = category.defaults;
  const { tdp_share, screen_share } = category.parameters.use_phase;
  const a = d.processor_tdp_w > 0 ? tdp_share : 0;
  const area0 = screenAreaM2(d.screen_size_inch, d.screen_aspect_ratio);
  const b = area0 > 0 ? screen_share : 0;
  const tdpRatio = a > 0 ? Math.max(0, tdpW) / d.processor_tdp_w : 0;
  const areaRatio = b > 0 ? screenAreaM2(screenInch, d.screen_aspect_ratio) / area0 : 0;
  const factor = 1 - a - b + a * tdpRatio + b * areaRatio;
  return category.fallback_kwh_per_year * Math.min(MAX_PROFILE_FACTOR, Math.max(MIN_PROFILE_FACTOR, factor));
}

export function usePhaseKg(annualKwhValue: number, lifetimeYears: number, gridFactor: number): number {
  return Math.max(0, annualKwhValue) * Math.max(0, lifetimeYears) * Math.max(0, gridFactor);
}
