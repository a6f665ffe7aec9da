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
 *
 * ADPe and PE (impacts): the same two quarters in each criterion. current = the new device's production
 * and transport + a quarter of its lifetime use phase; scenario = current - the refurbishment's net
 * savings in the criterion over the quarter (the engine's refurbishment impacts: the overhead and the
 * older device's extra electricity, docs/methodology.md section 13.2).
 */
import {
  CRITERION_UNIT,
  refurbishmentModel,
  round1,
  round2,
  type CategoryDefinition,
  type DeviceSpecs,
  type FootprintResult,
  type Grade,
} from '../footprint/engine/index.ts';
import { criterionRounding } from '../footprint/engine/impacts.ts';
import type { Criterion, RefurbishmentResult, ResourceCriterion } from '../footprint/engine/types.ts';

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
  /** The same quarters in ADPe (kg Sb eq) and PE (MJ); absent when the footprint has no impacts. */
  resources?: Record<ResourceCriterion, { current: number; scenario: number }>;
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
  const quarter: AssetQuarter = {
    current_kg: r.new_device.embodied_kg + r.adjusted_use_phase.new_device_use_phase_kg,
    scenario_kg: r.refurbishment_total_kg + r.adjusted_use_phase.refurbished_use_phase_kg,
  };
  const adpe = quarterIn('adpe', input.footprint, r);
  const pe = quarterIn('pe', input.footprint, r);
  if (adpe && pe) quarter.resources = { adpe, pe };
  return quarter;
}

/**
 * The quarter in one criterion from the footprint's and the refurbishment's impacts: current = the new
 * device's production and transport + a quarter of its lifetime use; scenario = current - the net
 * savings. For GWP this gives current_kg and scenario_kg (refurbish.test.ts checks it); undefined
 * without impacts.
 */
export function quarterIn(
  c: Criterion,
  footprint: FootprintResult,
  refurbishment: RefurbishmentResult,
): { current: number; scenario: number } | undefined {
  const fi = footprint.impacts?.[c];
  const saved = refurbishment.impacts?.[c];
  if (!fi || !saved || footprint.lifetime_years <= 0) return undefined;
  const current = fi.phases.production + fi.phases.transport + fi.phases.use * (QUARTER_YEARS / footprint.lifetime_years);
  return { current, scenario: current - saved.total };
}

/** One criterion of the quarter compared, in its unit (a type, not an interface: it is stored as JSON with the run). */
export type ScenarioCriterion = {
  unit: string;
  current_quarterly: number;
  scenario_quarterly: number;
  /** scenario - current; negative: the scenario uses less */
  delta: number;
  delta_percentage: number;
};

export interface ScenarioSummary {
  current_quarterly_co2e: number;
  scenario_quarterly_co2e: number;
  delta_kg_co2e: number;
  /** delta / current x 100; 0 when current is 0 */
  delta_percentage: number;
  affected_assets_count: number;
  /**
   * GWP (the figures above), ADPe and PE of the same comparison. ADPe and PE are summed over the assets
   * whose footprint has them (all, when calculated by this engine); null when none has.
   */
  impacts: { gwp: ScenarioCriterion; adpe: ScenarioCriterion | null; pe: ScenarioCriterion | null };
}

/** current, scenario and their delta, rounded first so that delta is exactly the difference of the two figures shown. */
function compared(unit: string, currentSum: number, scenarioSum: number, round: (v: number) => number): ScenarioCriterion {
  const current = round(currentSum);
  const scenario = round(scenarioSum);
  const delta = round(scenario - current);
  return {
    unit,
    current_quarterly: current,
    scenario_quarterly: scenario,
    delta,
    delta_percentage: current > 0 ? round1((delta / current) * 100) : 0,
  };
}

export function summarise(quarters: readonly AssetQuarter[]): ScenarioSummary {
  const sum = (value: (q: AssetQuarter) => number, of = quarters) => of.reduce((t, q) => t + value(q), 0);
  const gwp = compared(
    CRITERION_UNIT.gwp,
    sum((q) => q.current_kg),
    sum((q) => q.scenario_kg),
    round2,
  );
  const resource = (c: ResourceCriterion) => {
    const withImpacts = quarters.filter((q) => q.resources);
    if (withImpacts.length === 0) return null;
    return compared(
      CRITERION_UNIT[c],
      sum((q) => q.resources![c].current, withImpacts),
      sum((q) => q.resources![c].scenario, withImpacts),
      criterionRounding(c),
    );
  };
  return {
    current_quarterly_co2e: gwp.current_quarterly,
    scenario_quarterly_co2e: gwp.scenario_quarterly,
    delta_kg_co2e: gwp.delta,
    delta_percentage: gwp.delta_percentage,
    affected_assets_count: quarters.length,
    impacts: { gwp, adpe: resource('adpe'), pe: resource('pe') },
  };
}

export const SCENARIO_ASSUMPTIONS = (grade: Grade) => [
  `period: the coming quarter (${QUARTER_YEARS} years), grid factors of each asset's country valid today`,
  'current (buy new): production and transport of one new device of the same model per asset, plus its use for the quarter',
  `scenario (refurbish): grade ${grade} refurbishment overhead without component swaps, plus the existing device's use for the quarter at 15% more electricity than a new one`,
  "the existing device's production is already incurred and counted on neither side; end of life is excluded from both (joint end of life)",
  'a negative delta means less estimated emission, not an inventory deduction',
];
