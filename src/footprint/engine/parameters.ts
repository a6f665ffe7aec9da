/**
 * Fitted engine parameters (data/engine-parameters.json, written by `npm run calibrate`).
 * Loaded once at module load through a JSON import; the engine functions themselves do no I/O.
 */
import raw from '../../../data/engine-parameters.json' with { type: 'json' };

/**
 * Group-level fitted shape: elasticities of housing to device mass and of display to screen
 * area, anchored at the group's reference weight and screen size (medians of the calibration
 * rows of the group; null = category default).
 */
export interface ComponentShape {
  mass_elasticity: number;
  display_area_elasticity: number;
  reference_weight_kg: number | null;
  reference_screen_inch: number | null;
}

export interface ResidualPercentiles {
  p50: number;
  p80: number;
  p90: number;
}

export interface ProductionMultipliers {
  /** housing, power supply, assembly */
  structure: number;
  /** mainboard, processor, battery */
  electronics: number;
  /** memory and storage */
  memory_storage: number;
  /** display panel */
  display: number;
}

export interface GroupFit {
  /** calibration rows of the group */
  rows: number;
  production_multipliers: ProductionMultipliers;
  /** fitted elasticities of housing to mass and display to screen area (1 = proportional), and their anchors */
  shape: ComponentShape;
  /** cross-validated absolute percentage error of the embodied footprint (brand and release year supplied) */
  residual_abs_pct: ResidualPercentiles;
  /**
   * cross-validated error when the brand is not one the calibration adjustment knows (predicted
   * with the brand withheld); absent in older parameter files
   */
  residual_abs_pct_unknown_brand?: ResidualPercentiles;
  /**
   * cross-validated error when the brand is known but the release year is not (predicted with the
   * year withheld: the group's reference year stands in); absent in older parameter files
   */
  residual_abs_pct_unknown_year?: ResidualPercentiles;
}

/** Calibration adjustment of one fit group (section 3.3 of docs/methodology.md); ln scale. */
export interface GroupAdjustment {
  /** median release year of the group's calibration rows (null: no year trend) */
  reference_year: number | null;
  /** years are clamped to this range before the trend is applied */
  year_range: [number, number] | null;
  /** ln-change of the embodied footprint per year (group trend gamma) */
  year_slope: number;
  /** per brand (normalised key): eta (ln offset on top of the cross-group brand offset) and delta (extra ln slope per year) */
  brands: Record<string, { offset: number; year_slope: number; year_offsets?: Record<string, number> }>;
  /** log-linear spec terms phi (feature - reference, feature clamped to range); empty when not used */
  features: Record<string, { coefficient: number; reference: number; range: [number, number] }>;
}

export interface CalibrationAdjustments {
  method: string;
  /**
   * ridge penalties chosen by inner cross-validation on the training folds; a term the cross-validation
   * switched off has Infinity in the fit, null in the JSON file
   */
  lambdas: { brand: number | null; brand_group: number | null; year: number | null; features: number | null; brand_year: number | null };
  /** per-group overrides of the group-level lambdas (chosen per group by the same inner cross-validation) */
  group_lambdas?: Record<string, Partial<{ brand_group: number; year: number; features: number; brand_year: number }>>;
  /** alpha: cross-group ln offset per normalised brand */
  brand_offsets: Record<string, number>;
  groups: Record<string, GroupAdjustment>;
}

/** Per-category fits of transport and end of life (only categories that publish those shares). */
export interface CategoryFit {
  /** rows publishing a transport share / an end-of-life share */
  transport_rows: number;
  eol_rows: number;
  /** fitted air-freight share, null when fewer than 3 rows publish transport */
  air_share: number | null;
  /** fitted end-of-life factor (kg CO2e per kg), null when fewer than 3 rows publish it */
  eol_kg_per_kg: number | null;
}

export interface EngineParameters {
  engine_version: string;
  generated_at: string | null;
  calibration: Record<string, unknown> | null;
  /** fit over all calibration rows, used for groups without data */
  pooled: GroupFit;
  groups: Record<string, GroupFit>;
  categories: Record<string, CategoryFit>;
  /** uncertainty multiplier per confidence level, relative to the group's p80 residual */
  confidence_multipliers: { estimated_high: number; estimated_medium: number; estimated_low: number };
  /** median error ratio manufacturers publish with their PCFs, percent */
  manufacturer_error_pct: number;
  use_phase_uncertainty_pct: { measured: number; profile: number };
  /**
   * Effective correlation of the embodied and the estimated use-phase error per confidence level
   * (-0.5..1, fitted so that the combined interval covers 80% of held-out totals; docs/methodology.md
   * section 8), used to combine the two intervals; absent = independent errors.
   */
  embodied_use_error_correlation?: { estimated_high: number; estimated_medium: number; estimated_low: number };
  /**
   * per confidence level, the factor on the estimated use part of the total interval (1 unless the
   * correlation's upper end, 1, still covers under 80% of the level's held-out totals)
   */
  total_use_widening?: { estimated_high: number; estimated_medium: number; estimated_low: number };
  /** brand / release-year / spec adjustment of the embodied footprint; absent = factor 1 */
  adjustments?: CalibrationAdjustments;
}

export const ENGINE_PARAMETERS: EngineParameters = raw as unknown as EngineParameters;

export function categoryFit(params: EngineParameters, categoryId: string): CategoryFit | undefined {
  return params.categories?.[categoryId];
}

export function groupFit(params: EngineParameters, fitGroup: string): GroupFit {
  return params.groups[fitGroup] ?? params.pooled;
}
