/**
 * "Refurbish instead of buying new" for the coming quarter (pure; definitions in docs/assets.md).
 *
 * Per asset, with `footprint` the lifecycle footprint of a new device of the same model in the
 * asset's country of use:
 *
 *   current  (buy new)    = new device's production + transport  +  its use for one quarter
 *   scenario (refurbish)  = refurbishment overhead (grade, no swaps) + the old device's use for one
 *                           quarter (with the older-device efficiency penalty)
 *
 * The existing device's production is already incurred and appears on neither side; end of life is
 * excluded from both (the old device reaches it either way: joint end of life). Both quarters use
 * the current grid factor of the asset's country. delta = scenario - current: negative means the
 * refurbishment scenario emits less, an estimate, not an inventory deduction.
 */
import {
  refurbishmentModel,
  round1,
  round2,
  type CategoryDefinition,
  type DeviceSpecs,
  type FootprintResult,
  type Grade,
} from '../footprint/engine/index.ts';

export const QUARTER_YEARS = 0.25;
export const DEFAULT_GRADE: Grade = 'B';

export interface AssetQuarterInput {
  /** unrounded (footprintModelOf): the quarters are summed and rounded once, in summarise */
  footprint: FootprintResult;
  category: CategoryDefinition;
  specs: DeviceSpecs;
  grid_factor_kg_per_kwh: number;
  grade: Grade;
}

export interface AssetQuarter {
  /** buy new: embodied (production + transport) of the new device + its quarter of use, kg CO2e */
  current_kg: number;
  /** refurbish: grade overhead + the old device's quarter of use, kg CO2e */
  scenario_kg: number;
}

export function assetQuarter(input: AssetQuarterInput): AssetQuarter {
  const r = refurbishmentModel({
    footprint: input.footprint,
    category: input.category,
    specs: input.specs,
    grade: input.grade,
    swaps: [],
    remaining_years: QUARTER_YEARS,
    reuse_grid_factor_kg_per_kwh: input.grid_factor_kg_per_kwh,
  });
  return {
    current_kg: r.new_device.embodied_kg + r.adjusted_use_phase.new_device_use_phase_kg,
    scenario_kg: r.refurbishment_total_kg + r.adjusted_use_phase.refurbished_use_phase_kg,
  };
}

export interface ScenarioSummary {
  current_quarterly_co2e: number;
  scenario_quarterly_co2e: number;
  delta_kg_co2e: number;
  /** delta / current x 100; 0 when current is 0 */
  delta_percentage: number;
  affected_assets_count: number;
}

export function summarise(quarters: readonly AssetQuarter[]): ScenarioSummary {
  // Rounded first, so that delta is exactly the difference of the two figures shown.
  const current = round2(quarters.reduce((t, q) => t + q.current_kg, 0));
  const scenario = round2(quarters.reduce((t, q) => t + q.scenario_kg, 0));
  const delta = round2(scenario - current);
  return {
    current_quarterly_co2e: current,
    scenario_quarterly_co2e: scenario,
    delta_kg_co2e: delta,
    delta_percentage: current > 0 ? round1((delta / current) * 100) : 0,
    affected_assets_count: quarters.length,
  };
}

export const SCENARIO_ASSUMPTIONS = (grade: Grade) => [
  `period: the coming quarter (${QUARTER_YEARS} years), grid factors of each asset's country valid today`,
  'current (buy new): production and transport of one new device of the same model per asset, plus its use for the quarter',
  `scenario (refurbish): grade ${grade} refurbishment overhead without component swaps, plus the existing device's use for the quarter at 15% more electricity than a new one`,
  "the existing device's production is already incurred and counted on neither side; end of life is excluded from both (joint end of life)",
  'a negative delta means less estimated emission, not an inventory deduction',
];
