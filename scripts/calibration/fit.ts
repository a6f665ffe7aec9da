/**
 * `npm run calibrate`: fits the engine's group coefficients on the calibration set and writes
 * data/engine-parameters.json (coefficients, cross-validated residual percentiles, uncertainty
 * parameters; no calibration rows).
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { confidenceFor, residualFit, uncertaintyPct } from '../../src/footprint/engine/footprint.ts';
import { insideInterval, intervalErrorPct } from '../../src/footprint/engine/interval.ts';
import type { EngineParameters, GroupFit, ResidualPercentiles } from '../../src/footprint/engine/parameters.ts';
import { groupFit } from '../../src/footprint/engine/parameters.ts';
import { CALIBRATION_PATH, REPO_ROOT, calibrationAvailable, loadCalibration } from './load.ts';
import {
  ADJUST_DEFAULT,
  K_FOLDS,
  LAMBDA_ELASTICITY,
  LAMBDA_GROUP,
  defaultParameters,
  LAMBDA_POOLED,
  MIN_GROUP_ROWS,
  crossValidate,
  COVERAGE_TARGET_PCT,
  fitParameters,
  levelMultipliers,
  median,
  percentile,
  prepare,
  profileEnergyErrors,
  stats,
  coverageCounter,
  ESTIMATE_LEVELS,
  type Coverage,
  type EstimateLevel,
} from './model.ts';
import type { Prediction } from './model.ts';
import {
  crossValidateEnergy,
  energyRows,
  energyUncertainty,
  levelWithoutTec,
  useUncertaintyPct,
  type EnergyPrediction,
  type EnergyUncertainty,
} from './energy-fit.ts';

export const PARAMETERS_PATH = resolve(REPO_ROOT, 'data/engine-parameters.json');
/** Groups with fewer cross-validated rows take the pooled residual percentiles. */
export const MIN_RESIDUAL_ROWS = 8;

const r1 = (v: number): number => Math.round(v * 10) / 10;
/** Residual percentiles of error stats, to one decimal. */
const percentiles = (s: ReturnType<typeof stats>): ResidualPercentiles => ({ p50: r1(s.p50), p80: r1(s.p80), p90: r1(s.p90) });
/** Whether the engine knows the row's release year (the sheet's report date). */
const yearKnown = (p: Prediction): boolean => p.prepared.row.release_year !== null;
/** The manufacturer's embodied value of a row with one (the predictions filtered on embodiedApe). */
const publishedEmbodied = (p: Prediction): number => p.prepared.row.embodied as number;

export function residualFields(preds: Prediction[], params: EngineParameters): EngineParameters {
  const emb = preds.filter((p) => p.embodiedApe !== null);
  const all = stats(emb.map((p) => p.embodiedApe as number));
  const pooled = percentiles(all);
  // unknown brand: the same held-out rows predicted with the brand withheld (release year kept)
  const nb = stats(emb.map((p) => p.embodiedApeNoBrand).filter((v): v is number => v !== null));
  const pooledNoBrand = percentiles(nb);
  // unknown year: the rows of brands the adjustment knows predicted with the release year withheld
  const noYear = (ps: Prediction[]) =>
    stats(
      ps
        .filter((p) => p.brandKnown)
        .map((p) => p.embodiedApeNoYear)
        .filter((v): v is number => v !== null),
    );
  // less known never narrows an interval: at least the percentiles with the year
  const atLeast = (s: ReturnType<typeof stats>, floor: ResidualPercentiles): ResidualPercentiles => {
    const own = percentiles(s);
    return { p50: Math.max(own.p50, floor.p50), p80: Math.max(own.p80, floor.p80), p90: Math.max(own.p90, floor.p90) };
  };
  const pooledNoYear = atLeast(noYear(emb), pooled);
  const groups: Record<string, GroupFit> = {};
  for (const [g, fit] of Object.entries(params.groups)) {
    const inGroup = emb.filter((p) => p.prepared.fitGroup === g);
    const s = stats(inGroup.map((p) => p.embodiedApe as number));
    const u = stats(inGroup.map((p) => p.embodiedApeNoBrand).filter((v): v is number => v !== null));
    const y = noYear(inGroup);
    const withYear = s.n >= MIN_RESIDUAL_ROWS ? percentiles(s) : pooled;
    groups[g] = {
      ...fit,
      residual_abs_pct: withYear,
      residual_abs_pct_unknown_brand: u.n >= MIN_RESIDUAL_ROWS ? percentiles(u) : pooledNoBrand,
      residual_abs_pct_unknown_year: y.n >= MIN_RESIDUAL_ROWS ? atLeast(y, withYear) : pooledNoYear,
    };
  }
  const withResiduals: EngineParameters = {
    ...params,
    pooled: {
      ...params.pooled,
      residual_abs_pct: pooled,
      residual_abs_pct_unknown_brand: pooledNoBrand,
      residual_abs_pct_unknown_year: pooledNoYear,
    },
    groups,
  };
  // confidence multipliers from (held-out multiplicative error / the row's residual p80) over the
  // observations the engine labels with each level (Prediction.intervals: the file's specs, weight and
  // screen only, category defaults; plus the file's specs with the brand withheld, against the
  // unknown-brand percentiles, and with the release year withheld, against the unknown-year ones).
  // The multiplicative error is what the stated interval [v / (1 + u), v x (1 + u)] must cover.
  const ratios = (level: EstimateLevel): number[] =>
    emb.flatMap((p) => {
      const base = residualFitOf(withResiduals, p, p.brandKnown, yearKnown(p)).residual_abs_pct.p80;
      const error = (estimate: number): number => intervalErrorPct(estimate, publishedEmbodied(p));
      const out = p.intervals.filter((o) => o.confidence === level).map((o) => error(o.estimate) / base);
      if (confidenceFor(p.prepared.row.supplied_spec_count, false) === level) {
        for (const o of extraObservations(withResiduals, p)) out.push(error(o.estimate) / o.fit.residual_abs_pct.p80);
      }
      return out;
    });
  return { ...withResiduals, confidence_multipliers: levelMultipliers(ratios, MIN_RESIDUAL_ROWS) };
}

/** The group fit whose residual percentiles the engine uses for this row (brand and release year known or not). */
export function residualFitOf(params: EngineParameters, p: Prediction, brandKnown: boolean, yearKnown: boolean): GroupFit {
  const g = p.prepared.fitGroup;
  return residualFit(groupFit(params, g), params.adjustments?.groups[g] !== undefined, brandKnown, yearKnown);
}

/**
 * The file's specs with the brand withheld, and (for a brand the adjustment knows and a row with a
 * year) with the release year withheld: held-out estimate and the residual p80 the engine uses then.
 */
function extraObservations(
  params: EngineParameters,
  p: Prediction,
): { kind: 'unknown_brand' | 'unknown_year'; estimate: number; fit: GroupFit }[] {
  const out: { kind: 'unknown_brand' | 'unknown_year'; estimate: number; fit: GroupFit }[] = [
    { kind: 'unknown_brand', estimate: p.embodiedNoBrand, fit: residualFitOf(params, p, false, true) },
  ];
  if (p.brandKnown && yearKnown(p))
    out.push({ kind: 'unknown_year', estimate: p.embodiedNoYear, fit: residualFitOf(params, p, true, false) });
  return out;
}

/**
 * Cross-validated coverage of the embodied uncertainty_pct: the share of the observations of fold k
 * (held-out predictions, Prediction.intervals) whose published value lies inside the stated interval
 * (insideInterval), against the uncertainty parameters (residual percentiles and
 * confidence multipliers) estimated from the other folds' held-out errors only. Per confidence
 * level, overall, and for the file's specs with the brand withheld ('unknown_brand') or the release
 * year withheld ('unknown_year', rows with a year of brands the adjustment knows).
 */
export function crossValidatedCoverage(
  preds: Prediction[],
  fitted: EngineParameters,
): Record<EstimateLevel | 'all' | 'unknown_brand' | 'unknown_year', Coverage> {
  const { count, of } = coverageCounter();
  const emb = preds.filter((p) => p.embodiedApe !== null);
  for (let k = 0; k < K_FOLDS; k++) {
    const params = residualFields(
      emb.filter((p) => p.prepared.fold !== k),
      fitted,
    );
    for (const p of emb.filter((q) => q.prepared.fold === k)) {
      for (const o of p.intervals) {
        const u = uncertaintyPct(params, residualFitOf(params, p, p.brandKnown, yearKnown(p)), o.confidence, 1, 0, false);
        const inside = insideInterval(o.estimate, publishedEmbodied(p), u);
        count(o.confidence, inside);
        count('all', inside);
      }
      const level = confidenceFor(p.prepared.row.supplied_spec_count, false);
      for (const o of extraObservations(params, p)) {
        count(o.kind, insideInterval(o.estimate, publishedEmbodied(p), uncertaintyPct(params, o.fit, level, 1, 0, false)));
      }
    }
  }
  return {
    estimated_high: of('estimated_high'),
    estimated_medium: of('estimated_medium'),
    estimated_low: of('estimated_low'),
    all: of('all'),
    unknown_brand: of('unknown_brand'),
    unknown_year: of('unknown_year'),
  };
}

/** Fewer rows at a confidence level leave its error correlation at 0 (independent errors). */
export const MIN_CORRELATION_ROWS = 15;

/** A row publishing a use share and a yearly TEC, with its held-out embodied and energy-model estimates. */
interface TotalObservation {
  p: Prediction;
  e: EnergyPrediction;
  /** the confidence level of the file's specs without its yearly TEC */
  level: EstimateLevel;
  /** our use phase: the held-out energy-model kWh at the sheet's own use assumptions (its use phase per kWh of TEC) */
  use: number;
}

function totalObservations(preds: Prediction[], energy: EnergyPrediction[]): TotalObservation[] {
  const energyOf = new Map(energy.map((e) => [e.row.prepared.row.index, e]));
  return preds.flatMap((p) => {
    const e = energyOf.get(p.prepared.row.index);
    const row = p.prepared.row;
    if (!e || p.embodiedApe === null || row.use_ratio === null) return [];
    return [{ p, e, level: levelWithoutTec(p.prepared), use: e.kwh * ((row.gwp_total * row.use_ratio) / e.row.tec) }];
  });
}

/** Candidate correlations: from -0.5 (the combined interval never narrower than 0.87 x its larger part) to 1. */
const CORRELATION_GRID = Array.from({ length: 31 }, (_, i) => Math.round((i * 0.05 - 0.5) * 100) / 100);
/** Candidate widenings of the use part: 1 to 3 in steps of 0.05. */
const WIDENING_GRID = Array.from({ length: 41 }, (_, i) => Math.round((1 + i * 0.05) * 100) / 100);

/** Whether the engine's total uncertainty_pct for an observation covers the published total. */
function totalCovered(o: TotalObservation, params: EngineParameters, useUncertainty: EnergyUncertainty): boolean {
  const total = o.p.prepared.row.gwp_total;
  const usePct = useUncertaintyPct(useUncertainty, o.e.row.fitGroup, o.level);
  const u = uncertaintyPct(params, residualFitOf(params, o.p, o.p.brandKnown, yearKnown(o.p)), o.level, o.p.embodied, o.use, false, usePct);
  return insideInterval(o.p.embodied + o.use, total, u);
}

export interface TotalIntervalFit {
  embodied_use_error_correlation: Record<EstimateLevel, number>;
  total_use_widening: Record<EstimateLevel, number>;
}

/**
 * How the embodied and use-phase intervals combine into the total's, per confidence level, fitted
 * on coverage of the level's held-out totals (0 and 1 below MIN_CORRELATION_ROWS observations):
 * - the effective correlation: the value of CORRELATION_GRID whose combined interval (uncertaintyPct)
 *   covers closest to 80% (the smaller |rho| on a tie). Fitted on coverage rather than as a Pearson
 *   coefficient because the errors are heavy-tailed: adding two 80% half-widths in quadrature does
 *   not give the 80% half-width of the sum. Devices with few known specs come out strongly positive
 *   (a device the category's defaults describe badly is mis-estimated in the same direction on both parts);
 * - the widening of the use part: 1, unless even rho = 1 covers under 80%; then the smallest factor
 *   of WIDENING_GRID that covers 80%. Each part's interval alone covers about 80% of the low level's
 *   rows, but their misses fall on different rows (printers' use phase, one-spec laptops' embodied),
 *   so even the sum of the two half-widths can cover fewer than 80% of the totals.
 */
function totalIntervalFit(observations: TotalObservation[], params: EngineParameters, useUncertainty: EnergyUncertainty): TotalIntervalFit {
  const fitLevel = (level: EstimateLevel): { rho: number; widening: number } => {
    const os = observations.filter((o) => o.level === level);
    if (os.length < MIN_CORRELATION_ROWS) return { rho: 0, widening: 1 };
    const coverage = (rho: number, widening: number): number => {
      const withFit: EngineParameters = {
        ...params,
        embodied_use_error_correlation: { estimated_high: rho, estimated_medium: rho, estimated_low: rho },
        total_use_widening: { estimated_high: widening, estimated_medium: widening, estimated_low: widening },
      };
      return (100 * os.filter((o) => totalCovered(o, withFit, useUncertainty)).length) / os.length;
    };
    const top = CORRELATION_GRID[CORRELATION_GRID.length - 1] as number;
    if (coverage(top, 1) < COVERAGE_TARGET_PCT) {
      const widening =
        WIDENING_GRID.find((w) => coverage(top, w) >= COVERAGE_TARGET_PCT) ?? (WIDENING_GRID[WIDENING_GRID.length - 1] as number);
      return { rho: top, widening };
    }
    let best = { rho: 0, miss: Number.POSITIVE_INFINITY };
    for (const rho of CORRELATION_GRID) {
      const miss = Math.abs(coverage(rho, 1) - COVERAGE_TARGET_PCT);
      if (miss < best.miss - 1e-9 || (Math.abs(miss - best.miss) <= 1e-9 && Math.abs(rho) < Math.abs(best.rho))) best = { rho, miss };
    }
    return { rho: best.rho, widening: 1 };
  };
  const fit: TotalIntervalFit = {
    embodied_use_error_correlation: { estimated_high: 0, estimated_medium: 0, estimated_low: 0 },
    total_use_widening: { estimated_high: 1, estimated_medium: 1, estimated_low: 1 },
  };
  for (const level of ESTIMATE_LEVELS) {
    const { rho, widening } = fitLevel(level);
    fit.embodied_use_error_correlation[level] = rho;
    fit.total_use_widening[level] = widening;
  }
  return fit;
}

/** The total-interval parameters main() stores: from every row's held-out estimates, with the stored uncertainty parameters. */
export function fitTotalInterval(preds: Prediction[], energy: EnergyPrediction[], params: EngineParameters): TotalIntervalFit {
  return totalIntervalFit(totalObservations(preds, energy), params, energyUncertainty(energy));
}

/**
 * Cross-validated coverage of the total uncertainty_pct, use phase included, on rows publishing a use
 * share and a yearly TEC (confidence level of the file's specs without its TEC). Our total is the
 * held-out embodied estimate plus the held-out energy model's kWh at the sheet's own use assumptions
 * (its grid factor x lifetime): the interval is tested on the engine's two estimates, not on how the
 * sheets' grid factors differ from ours. Every uncertainty parameter (embodied residuals and
 * multipliers, use-phase p80 and multipliers, error correlations) comes from the other folds.
 */
export function crossValidatedTotalCoverage(
  preds: Prediction[],
  energy: EnergyPrediction[],
  fitted: EngineParameters,
): Record<EstimateLevel | 'all', Coverage> {
  const { count, of } = coverageCounter();
  const emb = preds.filter((p) => p.embodiedApe !== null);
  const observations = totalObservations(preds, energy);
  for (let k = 0; k < K_FOLDS; k++) {
    const residuals = residualFields(
      emb.filter((p) => p.prepared.fold !== k),
      fitted,
    );
    const useUncertainty = energyUncertainty(energy.filter((e) => e.row.prepared.fold !== k));
    const training = observations.filter((o) => o.p.prepared.fold !== k);
    const params: EngineParameters = { ...residuals, ...totalIntervalFit(training, residuals, useUncertainty) };
    for (const o of observations.filter((q) => q.p.prepared.fold === k)) {
      const inside = totalCovered(o, params, useUncertainty);
      count(o.level, inside);
      count('all', inside);
    }
  }
  return {
    estimated_high: of('estimated_high'),
    estimated_medium: of('estimated_medium'),
    estimated_low: of('estimated_low'),
    all: of('all'),
  };
}

function main(): void {
  if (!calibrationAvailable()) {
    console.error(`calibration file not found: ${CALIBRATION_PATH}`);
    process.exit(1);
  }
  const base = defaultParameters();
  const { rows, excluded } = loadCalibration();
  const prepared = prepare(rows);

  const cv = crossValidate(prepared, base);
  const fitted = fitParameters(prepared, base);
  let params = residualFields(cv, fitted);

  const errorRatios = rows
    .map((r) => r.error_ratio)
    .filter((v): v is number => v !== null && v > 0)
    .map((v) => v * 100);
  const profileErr = profileEnergyErrors(prepared);
  params = {
    ...params,
    manufacturer_error_pct: r1(median(errorRatios)),
    use_phase_uncertainty_pct: { measured: base.use_phase_uncertainty_pct.measured, profile: r1(percentile(profileErr, 80)) },
    generated_at: new Date().toISOString(),
    calibration: {
      source:
        'Boavizta environmental-footprint-data (boavizta-data-us.csv), ODbL 1.0; read from ../shared/calibration/manufacturer-pcf.csv at fit time, not copied',
      rows_in_file: rows.length + excluded.length,
      rows_mapped: rows.length,
      rows_with_embodied: rows.filter((r) => r.embodied !== null).length,
      rows_excluded: excluded.length,
      excluded_reasons: Object.fromEntries(
        [...new Set(excluded.map((e) => e.reason))].map((reason) => [reason, excluded.filter((e) => e.reason === reason).length]),
      ),
      method: `per category (>= 3 rows publishing the share): air share and end-of-life factor = medians of published shares per kg; per fit group (>= ${MIN_GROUP_ROWS} rows, else pooled): block multipliers (structure, electronics, memory_storage, display) and elasticities (housing vs mass, display vs area, anchored at the group's median weight and screen size) minimise sum |ln(pred/embodied) - ln f| + ${LAMBDA_GROUP} x sum (ln m)^2 + ${LAMBDA_ELASTICITY} x sum (elasticity - 1)^2 (pooled fit: ${LAMBDA_POOLED} x sum (ln m)^2), i.e. an L1 fit in log space shrunk towards the literature priors; ln f = calibration adjustment (brand, release year, spec terms; see adjustments.method), backfitted ${ADJUST_DEFAULT.backfit} rounds`,
      cross_validation: `${K_FOLDS}-fold, fold = FNV-1a hash of the PCF document (sources_hash) mod ${K_FOLDS}; everything (component fit, adjustment layer and its lambdas by an inner cross-validation over the training folds) is fitted on the training folds only; residual_abs_pct are held-out absolute percentage errors of production + transport + end of life vs gwp_total x (1 - gwp_use_ratio) with brand and release year supplied, residual_abs_pct_unknown_brand the same rows with the brand withheld, residual_abs_pct_unknown_year the rows of known brands with the release year withheld (never below residual_abs_pct)`,
      manufacturer_error_pct: 'median of published gwp_error_ratio > 0',
      use_phase_uncertainty_pct:
        'measured: typical-consumption tolerance (assumption); profile: 80th percentile of |profile kWh - published yearly TEC| / TEC',
      embodied_use_error_correlation: `per confidence level of the specs without the yearly TEC: the effective correlation (-0.5..1, steps of 0.05) whose combined interval covers closest to ${COVERAGE_TARGET_PCT}% of the held-out totals (held-out embodied + held-out energy-model kWh at the sheet's use assumptions) of rows publishing a use share and a yearly TEC (0 below ${MIN_CORRELATION_ROWS} rows)`,
      total_use_widening: `per confidence level: 1, unless a correlation of 1 covers under ${COVERAGE_TARGET_PCT}% of those held-out totals; then the smallest factor (1..3, steps of 0.05) on the use part of the total interval that covers ${COVERAGE_TARGET_PCT}%`,
    },
  };
  params = { ...params, ...fitTotalInterval(cv, crossValidateEnergy(energyRows(prepared)), params) };
  writeFileSync(PARAMETERS_PATH, `${JSON.stringify(params, null, 2)}\n`);
  console.log(`wrote ${PARAMETERS_PATH}`);
  for (const [g, fit] of Object.entries(params.groups)) {
    const m = fit.production_multipliers;
    console.log(
      `${g.padEnd(16)} n=${String(fit.rows).padStart(3)}  structure ${m.structure.toFixed(3)}  electronics ${m.electronics.toFixed(3)}  mem/storage ${m.memory_storage.toFixed(3)}  display ${m.display.toFixed(3)}  mass^${fit.shape.mass_elasticity} area^${fit.shape.display_area_elasticity} ref ${fit.shape.reference_weight_kg}kg/${fit.shape.reference_screen_inch}in  CV p50/p80/p90 ${fit.residual_abs_pct.p50}/${fit.residual_abs_pct.p80}/${fit.residual_abs_pct.p90}`,
    );
  }
  for (const [id, c] of Object.entries(params.categories)) {
    if (c.air_share !== null || c.eol_kg_per_kg !== null)
      console.log(
        `  ${id.padEnd(20)} air share ${c.air_share ?? '-'} (${c.transport_rows} rows)  eol ${c.eol_kg_per_kg ?? '-'} kg/kg (${c.eol_rows} rows)`,
      );
  }
  const pm = params.pooled.production_multipliers;
  console.log(
    `pooled           n=${params.pooled.rows}  structure ${pm.structure}  electronics ${pm.electronics}  mem/storage ${pm.memory_storage}  display ${pm.display}`,
  );
  const adj = params.adjustments;
  if (adj) {
    console.log('adjustment lambdas', adj.lambdas);
    console.log('brand offsets (alpha, ln)', adj.brand_offsets);
    for (const [g, a] of Object.entries(adj.groups)) {
      const brands = Object.entries(a.brands)
        .map(([b, v]) => `${b} ${v.offset >= 0 ? '+' : ''}${v.offset}${v.year_slope ? `/${v.year_slope}y` : ''}`)
        .join(', ');
      const feats = Object.entries(a.features)
        .map(([k, v]) => `${k} ${v.coefficient}`)
        .join(', ');
      console.log(
        `  ${g.padEnd(16)} year ${a.reference_year ?? '-'} slope ${a.year_slope}  brands: ${brands}${feats ? `  features: ${feats}` : ''}`,
      );
    }
  }
  const coverage = crossValidatedCoverage(cv, fitted);
  console.log(
    `cross-validated coverage of the embodied uncertainty_pct (target ${COVERAGE_TARGET_PCT}%):`,
    Object.fromEntries(Object.entries(coverage).map(([k, c]) => [k, c.covered_pct])),
  );
  console.log(
    'confidence multipliers',
    params.confidence_multipliers,
    'manufacturer error',
    params.manufacturer_error_pct,
    'use uncertainty',
    params.use_phase_uncertainty_pct,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main();
