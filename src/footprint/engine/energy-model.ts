/**
 * Annual energy model (data/energy-model.json, written by `npm run calibrate:energy`): a log-linear
 * correction of the category profile per fit group, fitted on the yearly TEC manufacturers publish.
 *   kWh = profile kWh x exp(offset + sum c_f x (clamp(x_f, range_f) - reference_f)), factor bounded
 * Loaded once at module load through a JSON import; the functions themselves do no I/O.
 */
import raw from '../../../data/energy-model.json' with { type: 'json' };
import { usableReleaseYear } from './brand.ts';
import type { ResolvedSpecs } from './specs.ts';
import type { CategoryDefinition, Confidence } from './types.ts';

export const ENERGY_FEATURES = ['year', 'ln_screen', 'ln_weight', 'ln_tdp'] as const;
export type EnergyFeature = (typeof ENERGY_FEATURES)[number];
/** terms fitted with a coefficient >= 0: a larger screen or processor never lowers the estimate */
export const NON_NEGATIVE_FEATURES: ReadonlySet<EnergyFeature> = new Set(['ln_screen', 'ln_tdp']);

export interface EnergyTerm {
  coefficient: number;
  /** feature value at which the term is 0 (median of the group's calibration rows) */
  reference: number;
  /** the feature is clamped to this range (the group's calibration rows) before the term is applied */
  range: [number, number];
}

export interface EnergyGroup {
  /** calibration rows with a published yearly TEC */
  rows: number;
  /** ln offset on the category profile */
  offset: number;
  /** extra ln offset of a category of the group (shrunk towards 0 = the group's offset) */
  category_offsets: Record<string, number>;
  terms: Partial<Record<EnergyFeature, EnergyTerm>>;
  /** cross-validated absolute percentage error of the annual kWh (held-out folds) */
  residual_abs_pct: { p50: number; p80: number; p90: number };
}

export interface EnergyModel {
  model_version: number;
  generated_at: string | null;
  method: string;
  /** bounds of exp(...) so that extrapolated specs cannot explode the estimate */
  factor_range: [number, number];
  groups: Record<string, EnergyGroup>;
  /**
   * use-phase uncertainty of an estimated kWh, percent (~80 % coverage): cross-validated p80 of the
   * energy model over all groups, and of the plain profile (groups the model does not cover)
   */
  use_phase_uncertainty_pct: { energy_model: number; profile: number };
  /** per confidence level (yearly TEC not supplied): multiplier of the use-phase p80 (fewer specs, wider interval) */
  confidence_multipliers: { estimated_high: number; estimated_medium: number; estimated_low: number };
  cross_validation: Record<string, unknown>;
}

export const ENERGY_MODEL: EnergyModel = raw as unknown as EnergyModel;

const lnPositive = (v: number): number => Math.log(Math.max(v, 0) + 1);

/**
 * Feature values of a device; null when the feature does not apply (no screen, no processor, no
 * release year): the term is then left out, i.e. the device sits at the group's reference.
 */
export function energyFeatures(s: ResolvedSpecs, releaseYear: number | null | undefined): Record<EnergyFeature, number | null> {
  return {
    year: usableReleaseYear(releaseYear),
    ln_screen: s.screen_size_inch > 0 ? lnPositive(s.screen_size_inch) : null,
    ln_weight: s.weight_kg > 0 ? lnPositive(s.weight_kg) : null,
    ln_tdp: s.processor_tdp_w > 0 ? lnPositive(s.processor_tdp_w) : null,
  };
}

/** Multiplier of the category profile for this device (1 when the group has no fit). */
export function energyFactor(model: EnergyModel, category: CategoryDefinition, s: ResolvedSpecs, releaseYear?: number | null): number {
  const g = model.groups[category.parameters.fit_group];
  if (!g) return 1;
  const x = energyFeatures(s, releaseYear);
  let ln = g.offset + (g.category_offsets[category.id] ?? 0);
  for (const f of ENERGY_FEATURES) {
    const t = g.terms[f];
    const v = x[f];
    if (!t || v === null) continue;
    ln += t.coefficient * (Math.min(t.range[1], Math.max(t.range[0], v)) - t.reference);
  }
  const [lo, hi] = model.factor_range;
  return Math.min(hi, Math.max(lo, Math.exp(ln)));
}

/** True when the model has a fit for the category's group (else the plain profile applies). */
export function energyModelCovers(model: EnergyModel, category: CategoryDefinition): boolean {
  return model.groups[category.parameters.fit_group] !== undefined;
}

/**
 * Use-phase uncertainty of an estimated kWh: the group's cross-validated p80 (the plain profile's
 * for a group the model does not cover) times the confidence level's multiplier (1 for a
 * manufacturer-verified footprint, whose specs are the catalogue's).
 */
export function energyUncertaintyPct(model: EnergyModel, category: CategoryDefinition, confidence: Confidence): number {
  const base = model.groups[category.parameters.fit_group]?.residual_abs_pct.p80 ?? model.use_phase_uncertainty_pct.profile;
  return base * (confidence === 'manufacturer_verified' ? 1 : model.confidence_multipliers[confidence]);
}
