/**
 * Calibration adjustment of the embodied footprint (docs/methodology.md section 3.3): a fitted,
 * shrunk log-linear term per calibration group on top of the component model,
 *
 *   ln f = alpha_brand + eta_(group, brand)                       (manufacturer method level)
 *        + (gamma_group + delta_(group, brand)) x (year - ref_year)  (release-year trend)
 *        + sum_k phi_(group, k) x (x_k - ref_k)                    (log-linear spec terms)
 *
 * and embodied = f x (production + transport + end of life). Unknown brands take alpha = eta = 0
 * (the group's pooled level) and no year terms, a missing release year takes the group's reference
 * year, years are clamped to the range the group was fitted on. Groups without an adjustment entry
 * use f = 1.
 */
import type { CalibrationAdjustments, GroupAdjustment } from './parameters.ts';
import type { ResolvedSpecs } from './specs.ts';
import { normaliseBrand, usableReleaseYear } from './brand.ts';
import type { CategoryDefinition } from './types.ts';

/**
 * Names of the log-linear spec terms the fit may use (values from the resolved specs). No weight or
 * screen size: their responses are the group's elasticities, bounded to be >= 0, which a log-linear
 * term could undo (docs/methodology.md section 3.3).
 */
export const ADJUSTMENT_FEATURES = ['ln_ram', 'ln_storage', 'hdd', 'ln_cpus', 'ln_kwh', 'tower', 'blade'] as const;
export type AdjustmentFeature = (typeof ADJUSTMENT_FEATURES)[number];

/**
 * Terms that measure an amount of hardware or energy: the fit bounds their coefficients to >= 0 and
 * the engine applies no negative one, so more memory, storage, processor or energy never lowers a
 * footprint (docs/methodology.md section 3.3).
 */
export const AMOUNT_FEATURES: ReadonlySet<AdjustmentFeature> = new Set(['ln_ram', 'ln_storage', 'ln_cpus', 'ln_kwh']);

const lnp = (v: number): number => Math.log(Math.max(v, 0) + 1);

/**
 * Feature values of a device (resolved specs: supplied over category defaults, exactly as the
 * production model sees them). ln(x + 1) keeps zero-valued specs finite.
 */
export function adjustmentFeatures(
  category: CategoryDefinition,
  s: ResolvedSpecs,
  annualKwhValue: number,
): Record<AdjustmentFeature, number> {
  const d = category.defaults;
  const perSocket = d.processor_count > 0 && d.processor_tdp_w > 0 ? d.processor_tdp_w / d.processor_count : 0;
  return {
    ln_ram: lnp(s.ram_gb),
    ln_storage: lnp(s.storage_gb),
    hdd: s.storage_type === 'hdd' ? 1 : 0,
    ln_cpus: perSocket > 0 ? lnp(s.processor_tdp_w / perSocket) : 0,
    ln_kwh: lnp(annualKwhValue),
    tower: category.id === 'tower_server' ? 1 : 0,
    blade: category.id === 'blade_server' ? 1 : 0,
  };
}

export interface AdjustmentResult {
  /** multiplier on the embodied footprint (1 = no adjustment) */
  factor: number;
  /** ln of the factor split into its terms */
  brand_log: number;
  year_log: number;
  spec_log: number;
  /** normalised brand key, and whether the fit knows it (for this group or across groups) */
  brand: string | null;
  brand_known: boolean;
  /** release year used (clamped), null when missing or the group has no year trend */
  year_used: number | null;
  group: GroupAdjustment | null;
}

export function adjustmentFor(
  adjustments: CalibrationAdjustments | undefined,
  category: CategoryDefinition,
  s: ResolvedSpecs,
  annualKwhValue: number,
  brandInput: string | undefined,
  releaseYear: number | undefined,
): AdjustmentResult {
  const brand = normaliseBrand(brandInput);
  const g = adjustments?.groups[category.parameters.fit_group];
  if (!adjustments || !g) {
    return { factor: 1, brand_log: 0, year_log: 0, spec_log: 0, brand, brand_known: false, year_used: null, group: null };
  }
  const alpha = brand !== null ? adjustments.brand_offsets[brand] : undefined;
  const own = brand !== null ? g.brands[brand] : undefined;
  const known = alpha !== undefined || own !== undefined;
  const brandLog = (alpha ?? 0) + (own?.offset ?? 0);
  let yearLog = 0;
  let yearUsed: number | null = null;
  // The year terms follow the calibrated manufacturers' sheets, whose methods change from year to
  // year; for another manufacturer they predicted worse than none (docs/methodology.md section 3.3).
  const y = known ? usableReleaseYear(releaseYear) : null;
  if (y !== null && g.reference_year !== null && g.year_range !== null) {
    yearUsed = Math.min(g.year_range[1], Math.max(g.year_range[0], y));
    yearLog = (g.year_slope + (own?.year_slope ?? 0)) * (yearUsed - g.reference_year);
  }
  // offset of this brand's sheets of that exact year (methodology version), when fitted
  if (y !== null) yearLog += own?.year_offsets?.[String(y)] ?? 0;
  let specLog = 0;
  const features = Object.keys(g.features).length > 0 ? adjustmentFeatures(category, s, annualKwhValue) : null;
  if (features) {
    for (const [k, t] of Object.entries(g.features)) {
      const v = features[k as AdjustmentFeature];
      if (v === undefined) continue;
      const coefficient = AMOUNT_FEATURES.has(k as AdjustmentFeature) ? Math.max(0, t.coefficient) : t.coefficient;
      specLog += coefficient * (Math.min(t.range[1], Math.max(t.range[0], v)) - t.reference);
    }
  }
  const total = brandLog + yearLog + specLog;
  return {
    factor: Math.exp(total),
    brand_log: brandLog,
    year_log: yearLog,
    spec_log: specLog,
    brand,
    brand_known: known,
    year_used: yearUsed,
    group: g,
  };
}
