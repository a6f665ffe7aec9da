/**
 * Use phase: annual electricity x lifetime x grid factor of the country of use.
 */
import { ENERGY_MODEL, energyFactor, energyModelCovers } from './energy-model.ts';
import type { EnergyModel } from './energy-model.ts';
import { round2 } from './rounding.ts';
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

/** Which figure gave the annual kWh of the use phase. */
export type EnergySource = 'measured' | 'energy_model' | 'profile';

/**
 * Annual kWh of the use phase: typical_consumption_kwh when supplied; otherwise the category
 * profile times the energy model's factor (category, screen size, TDP, weight, release year),
 * or the plain profile for categories the energy model has no calibration rows for.
 * (annualKwh stays the profile: the embodied adjustment's ln_kwh spec term was fitted on it.)
 */
export function usePhaseKwh(
  category: CategoryDefinition,
  s: ResolvedSpecs,
  releaseYear?: number | null,
  model: EnergyModel = ENERGY_MODEL,
): { kwh: number; measured: boolean; source: EnergySource } {
  const base = annualKwh(category, s);
  if (base.measured) return { ...base, source: 'measured' };
  if (!energyModelCovers(model, category)) return { ...base, source: 'profile' };
  return { kwh: base.kwh * energyFactor(model, category, s, releaseYear), measured: false, source: 'energy_model' };
}

/** The `assumptions` line of the use phase: which figure or model gave the kWh. */
export function usePhaseAssumption(
  category: CategoryDefinition,
  energy: { kwh: number; source: EnergySource },
  releaseYearKnown: boolean,
  lifetimeYears: number,
  gridFactor: number,
  model: EnergyModel = ENERGY_MODEL,
): string {
  const tail = `x ${lifetimeYears} years x ${gridFactor} kg CO2e/kWh`;
  if (energy.source === 'measured') return `use phase: typical consumption ${energy.kwh} kWh/year ${tail}`;
  const kwh = round2(energy.kwh);
  const group = model.groups[category.parameters.fit_group];
  if (energy.source === 'profile' || !group) {
    return `use phase: category profile ${kwh} kWh/year (fallback ${category.fallback_kwh_per_year} scaled by TDP and screen; no energy-model calibration for this category) ${tail}`;
  }
  const year = releaseYearKnown ? 'release year' : 'the reference year (release year not supplied)';
  return `use phase: annual energy ${kwh} kWh/year estimated from category, screen size, TDP, weight and ${year} (energy model, CV median ${group.residual_abs_pct.p50} %) ${tail}`;
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
