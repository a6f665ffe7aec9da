/**
 * The engine's value of each spec field a device does not state, and how it was formed: the very
 * values its footprint uses (resolveSpecs, usePhaseKwh), so that search and identify can show them.
 */
import { usableReleaseYear } from './brand.ts';
import { ENERGY_MODEL } from './energy-model.ts';
import { round2 } from './rounding.ts';
import { resolveSpecs } from './specs.ts';
import { usePhaseKwh } from './use-phase.ts';
import type { CategoryDefinition, DeviceSpecs, SpecField } from './types.ts';

/**
 * How the engine came to a value the device does not state:
 * - `estimated`: from the device's other figures (annual energy from the energy model; weight from the screen and battery);
 * - `category_typical`: the category's typical configuration of the release year (memory, storage) or its default;
 * - `not_applicable`: none (null): the category has no such part, and the footprint counts none.
 */
export const ESTIMATE_BASES = ['estimated', 'category_typical', 'not_applicable'] as const;
export type EstimateBasis = (typeof ESTIMATE_BASES)[number];

export interface SpecEstimate {
  value: number | string | null;
  basis: EstimateBasis;
  note: string;
}

/** The part a field describes, where a category may have none of it. */
const PART: Partial<Record<SpecField, { part: string; size: keyof CategoryDefinition['defaults'] }>> = {
  screen_size_inch: { part: 'screen', size: 'screen_size_inch' },
  screen_type: { part: 'screen', size: 'screen_size_inch' },
  processor_tdp_w: { part: 'processor', size: 'processor_tdp_w' },
  ram_gb: { part: 'memory', size: 'ram_gb' },
  storage_gb: { part: 'storage', size: 'storage_gb' },
  storage_type: { part: 'storage', size: 'storage_gb' },
  battery_wh: { part: 'battery', size: 'battery_wh' },
};

/** False for a field of a part the category has none of (its default size is 0): a desktop's screen, a monitor's processor. */
export function categoryHasField(category: CategoryDefinition, field: SpecField): boolean {
  const p = PART[field];
  return p === undefined || Number(category.defaults[p.size]) > 0;
}

/**
 * Each field `specs` does not state (resolveSpecs' `defaulted`), with the value the footprint of
 * this device uses for it and its basis; numbers rounded as the footprint answers them.
 */
export function specEstimates(
  category: CategoryDefinition,
  specs: DeviceSpecs,
  releaseYear?: number,
): Partial<Record<SpecField, SpecEstimate>> {
  const resolved = resolveSpecs(category, specs, releaseYear);
  const d = category.defaults;
  const out: Partial<Record<SpecField, SpecEstimate>> = {};
  for (const field of resolved.defaulted) {
    const p = PART[field];
    if (p && !categoryHasField(category, field)) {
      out[field] = { value: null, basis: 'not_applicable', note: `a ${category.id} has no ${p.part}: the footprint counts none` };
    } else if (field === 'typical_consumption_kwh') {
      const energy = usePhaseKwh(category, resolved, releaseYear);
      const group = ENERGY_MODEL.groups[category.parameters.fit_group];
      out[field] = {
        value: round2(energy.kwh),
        basis: 'estimated',
        note:
          energy.source === 'energy_model' && group
            ? `energy model: category ${category.id}, screen size, TDP, weight and ${usableReleaseYear(releaseYear) !== null ? 'release year' : 'the reference year (release year not known)'} (cross-validated error: median ${group.residual_abs_pct.p50} %, 80th percentile ${group.residual_abs_pct.p80} %)`
            : `category profile (${category.fallback_kwh_per_year} kWh/year) scaled by TDP and screen; no energy-model calibration for ${category.id}`,
      };
    } else if (field === 'weight_kg' && (resolved.weight_from_screen || resolved.weight_battery_kg !== 0)) {
      const from = [resolved.weight_from_screen ? 'screen size' : '', resolved.weight_battery_kg !== 0 ? 'battery' : ''].filter(Boolean);
      out[field] = {
        value: round2(resolved.weight_kg),
        basis: 'estimated',
        note: `category default ${d.weight_kg} kg scaled with the ${from.join(' and ')}`,
      };
    } else if ((field === 'ram_gb' || field === 'storage_gb') && resolved.typical_year !== null) {
      out[field] = {
        value: resolved[field],
        basis: 'category_typical',
        note: `typical configuration of ${category.id} devices of ${resolved.typical_year} (median of the catalogue)`,
      };
    } else {
      const value = field === 'weight_kg' ? round2(resolved.weight_kg) : resolved[field];
      out[field] = { value, basis: 'category_typical', note: `category default (${category.id})` };
    }
  }
  return out;
}
