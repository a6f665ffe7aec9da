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
 * Every criterion (GWP, ADPe, PE) by phase, from the footprint's and the refurbishment's impacts
 * (docs/methodology.md section 13.2): current = the new device's production and transport + a quarter
 * of its lifetime use phase, end of life 0; scenario = current - the refurbishment's net savings over
 * the quarter, phase by phase: production = the refurbishment's own (cleaning, testing, parts, packaging;
 * ADPe/PE: testing and parts), transport = its logistics, use = the older device's quarter (the new
 * device's + the extra electricity), end of life 0. Uncertainty: each asset's figures carry its
 * footprint's uncertainty_pct in the criterion (as the refurbishment's savings do); the assets' intervals
 * are summed bound by bound (fully correlated, summedCriterion); confidence: the lowest of the assets'.
 */
import {
  CRITERIA,
  CRITERION_UNIT,
  criterionResult,
  criterionRounding,
  refurbishmentModel,
  round1,
  summedCriterion,
  type CategoryDefinition,
  type Criterion,
  type CriterionPhases,
  type CriterionResult,
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

/** One asset's quarter in one criterion, unrounded: buy new, refurbish, and scenario - current, by phase. */
export interface QuarterCriterion {
  current: CriterionResult;
  scenario: CriterionResult;
  difference: CriterionResult;
}

/** One asset's quarter in every criterion. */
export type AssetQuarter = Record<Criterion, QuarterCriterion>;

export function assetQuarter(input: AssetQuarterInput): AssetQuarter {
  const f = input.footprint;
  const r = refurbishmentModel({
    footprint: f,
    category: input.category,
    specs: input.specs,
    grade: input.grade,
    swaps: [],
    remaining_years: QUARTER_YEARS,
    reuse_grid_factor_kg_per_kwh: input.grid_factor_kg_per_kwh,
  });
  // footprintModel always answers impacts; only a stored result from before them lacks them.
  if (!f.impacts || !r.impacts) throw new Error('assetQuarter needs a footprint with impacts (footprintModel)');
  const useShare = f.lifetime_years > 0 ? QUARTER_YEARS / f.lifetime_years : 0;
  const quarter = (c: Criterion) => quarterIn(c, f.impacts![c], r.impacts![c], useShare);
  return { gwp: quarter('gwp'), adpe: quarter('adpe'), pe: quarter('pe') };
}

/**
 * The quarter in one criterion from the footprint's lifetime figures and the refurbishment's net savings
 * over the quarter (`saved`, by phase): current = production and transport + `useShare` of the use phase;
 * scenario = current - saved, phase by phase; difference = -saved. Each side carries the footprint's
 * uncertainty and confidence (the refurbishment's are the footprint's); scenario and difference the
 * refurbishment's notes (its gaps).
 */
export function quarterIn(c: Criterion, footprint: CriterionResult, saved: CriterionResult, useShare: number): QuarterCriterion {
  const p = footprint.phases;
  const current: CriterionPhases = { production: p.production, transport: p.transport, use: p.use * useShare, end_of_life: 0 };
  const s = saved.phases;
  const side = (phases: CriterionPhases, of: CriterionResult) =>
    criterionResult(c, phases, of.uncertainty_pct, of.confidence, of.sources, of.notes);
  return {
    current: side(current, footprint),
    scenario: side(
      {
        production: current.production - s.production,
        transport: current.transport - s.transport,
        use: current.use - s.use,
        end_of_life: current.end_of_life - s.end_of_life,
      },
      saved,
    ),
    difference: side({ production: -s.production, transport: -s.transport, use: -s.use, end_of_life: -s.end_of_life }, saved),
  };
}

/** One criterion of the quarter compared, in its unit (a type, not an interface: it is stored as JSON with the run). */
export type ScenarioCriterion = {
  unit: string;
  current_quarterly: number;
  scenario_quarterly: number;
  /** scenario - current; negative: the scenario uses less */
  delta: number;
  delta_percentage: number;
  /** buy new by phase, total = current_quarterly, with its interval and confidence */
  current: CriterionResult;
  /** refurbish by phase, total = scenario_quarterly */
  scenario: CriterionResult;
  /** scenario - current by phase, total = delta */
  difference: CriterionResult;
};

export interface ScenarioSummary {
  current_quarterly_co2e: number;
  scenario_quarterly_co2e: number;
  delta_kg_co2e: number;
  /** delta / current x 100; 0 when current is 0 */
  delta_percentage: number;
  affected_assets_count: number;
  /** GWP (the figures above), ADPe and PE of the same comparison, summed over the assets. */
  impacts: Record<Criterion, ScenarioCriterion>;
}

/** One criterion over the assets; delta is the difference of the two rounded figures, so that it is exactly what they show. */
function compared(c: Criterion, quarters: readonly AssetQuarter[]): ScenarioCriterion {
  const current = summedCriterion(
    c,
    quarters.map((q) => q[c].current),
  );
  const scenario = summedCriterion(
    c,
    quarters.map((q) => q[c].scenario),
  );
  const delta = criterionRounding(c)(scenario.total - current.total);
  return {
    unit: CRITERION_UNIT[c],
    current_quarterly: current.total,
    scenario_quarterly: scenario.total,
    delta,
    delta_percentage: current.total > 0 ? round1((delta / current.total) * 100) : 0,
    current,
    scenario,
    difference: summedCriterion(
      c,
      quarters.map((q) => q[c].difference),
      delta,
    ),
  };
}

/** The run's result over its assets (at least one: a scenario names its assets). */
export function summarise(quarters: readonly AssetQuarter[]): ScenarioSummary {
  const impacts = Object.fromEntries(CRITERIA.map((c) => [c, compared(c, quarters)])) as Record<Criterion, ScenarioCriterion>;
  return {
    current_quarterly_co2e: impacts.gwp.current_quarterly,
    scenario_quarterly_co2e: impacts.gwp.scenario_quarterly,
    delta_kg_co2e: impacts.gwp.delta,
    delta_percentage: impacts.gwp.delta_percentage,
    affected_assets_count: quarters.length,
    impacts,
  };
}

export const SCENARIO_ASSUMPTIONS = (grade: Grade) => [
  `period: the coming quarter (${QUARTER_YEARS} years), grid factors of each asset's country valid today`,
  'current (buy new): production and transport of one new device of the same model per asset, plus its use for the quarter',
  `scenario (refurbish): grade ${grade} refurbishment overhead without component swaps, plus the existing device's use for the quarter at 15% more electricity than a new one`,
  "the existing device's production is already incurred and counted on neither side; end of life is excluded from both (joint end of life)",
  'a negative delta means less estimated emission, not an inventory deduction',
];
