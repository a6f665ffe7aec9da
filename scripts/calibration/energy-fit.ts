/**
 * `npm run calibrate:energy`: fits the annual energy model (data/energy-model.json) on the yearly
 * TEC of the calibration set and prints its 5-fold cross-validated error (folds by PCF document,
 * the fold assignment of model.ts) next to the plain category profile's.
 *
 * Per fit group: ln(TEC / profile kWh) = offset + category offset + sum c_f x (x_f - reference_f),
 * minimised as mean |residual| + lambda x (offset^2 + sum category offset^2 + sum (c_f x sd_f)^2):
 * an L1 fit in log space shrunk towards the category profile (offsets 0, no terms). lambda is
 * chosen per group by an inner cross-validation over the training folds only.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ENERGY_FEATURES, NON_NEGATIVE_FEATURES, energyFactor, energyFeatures } from '../../src/footprint/engine/energy-model.ts';
import type { EnergyFeature, EnergyGroup, EnergyModel, EnergyTerm } from '../../src/footprint/engine/energy-model.ts';
import { profileKwh } from '../../src/footprint/engine/use-phase.ts';
import { CALIBRATION_PATH, REPO_ROOT, calibrationAvailable, loadCalibration } from './load.ts';
import {
  COVERAGE_TARGET_PCT,
  K_FOLDS,
  coverageCounter,
  levelMultipliers,
  median,
  nelderMead,
  percentile,
  prepare,
  stats,
} from './model.ts';
import type { Coverage, ErrorStats, EstimateLevel } from './model.ts';
import type { PreparedRow } from './prepared-row.ts';
import { confidenceFor } from '../../src/footprint/engine/footprint.ts';
import { insideInterval, intervalErrorPct } from '../../src/footprint/engine/interval.ts';

export const ENERGY_MODEL_PATH = resolve(REPO_ROOT, 'data/energy-model.json');
export const LAMBDA_CANDIDATES = [0.003, 0.01, 0.03, 0.1, 0.3, 1];
/** groups with fewer rows keep the plain profile (too few documents to fit anything) */
export const MIN_ENERGY_ROWS = 5;
/** groups with fewer rows share the cross-validated errors of all such groups, pooled, instead of their own */
export const MIN_RESIDUAL_ROWS = 15;
export const FACTOR_RANGE: [number, number] = [0.33, 3];

export interface EnergyRow {
  prepared: PreparedRow;
  fitGroup: string;
  categoryId: string;
  tec: number;
  profile: number;
  features: Record<EnergyFeature, number | null>;
}

/** Calibration rows publishing a yearly TEC, with the profile kWh of their specs. */
export function energyRows(prepared: PreparedRow[]): EnergyRow[] {
  const out: EnergyRow[] = [];
  for (const p of prepared) {
    const tec = p.row.specs.typical_consumption_kwh;
    if (tec === undefined || !(tec > 0)) continue;
    out.push({
      prepared: p,
      fitGroup: p.fitGroup,
      categoryId: p.category.id,
      tec,
      profile: profileKwh(p.category, p.specs.processor_tdp_w, p.specs.screen_size_inch),
      features: energyFeatures(p.specs, p.row.release_year),
    });
  }
  return out;
}

const sd = (xs: number[]): number => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length);
};

/** Fit of one group at a given lambda; terms only for features that vary within the group. */
export function fitGroup(rows: EnergyRow[], lambda: number): EnergyGroup {
  const terms: Partial<Record<EnergyFeature, EnergyTerm>> = {};
  const scales: number[] = [];
  const used: EnergyFeature[] = [];
  for (const f of ENERGY_FEATURES) {
    const xs = rows.map((r) => r.features[f]).filter((v): v is number => v !== null);
    if (xs.length < MIN_ENERGY_ROWS) continue;
    const s = sd(xs);
    if (!(s > 1e-6)) continue;
    used.push(f);
    scales.push(s);
    terms[f] = { coefficient: 0, reference: median(xs), range: [Math.min(...xs), Math.max(...xs)] };
  }
  // categories of the group with enough rows get their own offset (shrunk towards the group's)
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.categoryId, (counts.get(r.categoryId) ?? 0) + 1);
  const cats =
    counts.size > 1
      ? [...counts]
          .filter(([, n]) => n >= MIN_ENERGY_ROWS)
          .map(([c]) => c)
          .sort()
      : [];
  const nTerms = used.length;
  const y = rows.map((r) => Math.log(r.tec / r.profile));
  const catIndex = rows.map((r) => cats.indexOf(r.categoryId));
  const coef = (b: number[], j: number): number => {
    const v = b[j + 1] as number;
    return NON_NEGATIVE_FEATURES.has(used[j] as EnergyFeature) ? Math.max(0, v) : v;
  };
  const x = rows.map((r) =>
    used.map((f) => {
      const v = r.features[f];
      const t = terms[f] as EnergyTerm;
      return v === null ? 0 : Math.min(t.range[1], Math.max(t.range[0], v)) - t.reference;
    }),
  );
  const objective = (b: number[]): number => {
    let loss = 0;
    for (let i = 0; i < rows.length; i++) {
      let pred = b[0] as number;
      for (let j = 0; j < nTerms; j++) pred += coef(b, j) * (x[i]?.[j] as number);
      const c = catIndex[i] as number;
      if (c >= 0) pred += b[nTerms + 1 + c] as number;
      loss += Math.abs((y[i] as number) - pred);
    }
    let penalty = (b[0] as number) ** 2;
    for (let j = 0; j < nTerms; j++) penalty += (coef(b, j) * (scales[j] as number)) ** 2;
    for (let c = 0; c < cats.length; c++) penalty += (b[nTerms + 1 + c] as number) ** 2;
    return loss / rows.length + lambda * penalty;
  };
  // two restarts: Nelder-Mead on the L1 objective can stall on a kink
  let b = nelderMead(objective, new Array(nTerms + 1 + cats.length).fill(0), 0.2, 2000);
  b = nelderMead(objective, b, 0.05, 2000);
  used.forEach((f, j) => ((terms[f] as EnergyTerm).coefficient = coef(b, j)));
  const categoryOffsets = Object.fromEntries(cats.map((c, i) => [c, b[nTerms + 1 + i] as number]));
  return {
    rows: rows.length,
    offset: b[0] as number,
    category_offsets: categoryOffsets,
    terms,
    residual_abs_pct: { p50: 0, p80: 0, p90: 0 },
  };
}

const ape = (pred: number, actual: number): number => (Math.abs(pred - actual) / actual) * 100;

function modelOf(groups: Record<string, EnergyGroup>): EnergyModel {
  return {
    model_version: 1,
    generated_at: null,
    method: '',
    factor_range: FACTOR_RANGE,
    groups,
    use_phase_uncertainty_pct: { energy_model: 0, profile: 0 },
    confidence_multipliers: { estimated_high: 1, estimated_medium: 1, estimated_low: 1 },
    cross_validation: {},
  };
}

export function predictKwh(model: EnergyModel, r: EnergyRow): number {
  return r.profile * energyFactor(model, r.prepared.category, r.prepared.specs, r.prepared.row.release_year);
}

function fitGroupsAt(rows: EnergyRow[], lambdaOf: (group: string) => number): Record<string, EnergyGroup> {
  const groups: Record<string, EnergyGroup> = {};
  for (const g of [...new Set(rows.map((r) => r.fitGroup))].sort()) {
    const gr = rows.filter((r) => r.fitGroup === g);
    if (gr.length >= MIN_ENERGY_ROWS) groups[g] = fitGroup(gr, lambdaOf(g));
  }
  return groups;
}

/** lambda per group by inner cross-validation over the folds present in `rows` (training rows only). */
export function chooseLambdas(rows: EnergyRow[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const g of [...new Set(rows.map((r) => r.fitGroup))].sort()) {
    const gr = rows.filter((r) => r.fitGroup === g);
    if (gr.length < MIN_ENERGY_ROWS) continue;
    const folds = [...new Set(gr.map((r) => r.prepared.fold))];
    let best = { lambda: LAMBDA_CANDIDATES[LAMBDA_CANDIDATES.length - 1] as number, err: Number.POSITIVE_INFINITY };
    for (const lambda of LAMBDA_CANDIDATES) {
      let err = 0;
      for (const f of folds) {
        const train = gr.filter((r) => r.prepared.fold !== f);
        const test = gr.filter((r) => r.prepared.fold === f);
        const model = modelOf(train.length >= MIN_ENERGY_ROWS ? { [g]: fitGroup(train, lambda) } : {});
        for (const r of test) err += Math.abs(Math.log(predictKwh(model, r) / r.tec));
      }
      if (err < best.err - 1e-9) best = { lambda, err };
    }
    out[g] = best.lambda;
  }
  return out;
}

export function fitEnergyGroups(rows: EnergyRow[]): { groups: Record<string, EnergyGroup>; lambdas: Record<string, number> } {
  const lambdas = chooseLambdas(rows);
  return { groups: fitGroupsAt(rows, (g) => lambdas[g] ?? 1), lambdas };
}

export interface EnergyPrediction {
  row: EnergyRow;
  /** held-out energy-model kWh */
  kwh: number;
  ape: number;
  /** the plain category profile (before the energy model) */
  profileApe: number;
}

/** k-fold cross-validation by PCF document (the folds of model.ts): fit on k-1 folds, predict the held-out one. */
export function crossValidateEnergy(rows: EnergyRow[]): EnergyPrediction[] {
  const out: EnergyPrediction[] = [];
  for (let k = 0; k < K_FOLDS; k++) {
    const train = rows.filter((r) => r.prepared.fold !== k);
    const test = rows.filter((r) => r.prepared.fold === k);
    const model = modelOf(fitEnergyGroups(train).groups);
    for (const r of test) {
      const kwh = predictKwh(model, r);
      out.push({ row: r, kwh, ape: ape(kwh, r.tec), profileApe: ape(r.profile, r.tec) });
    }
  }
  return out.sort((a, b) => a.row.prepared.row.index - b.row.prepared.row.index);
}

/** The confidence level the engine gives a device whose yearly TEC it is not told (the TEC counts as a supplied spec). */
export function levelWithoutTec(p: PreparedRow): EstimateLevel {
  return confidenceFor(p.row.supplied_spec_count - 1, false) as EstimateLevel;
}

export interface EnergyUncertainty {
  /**
   * held-out error percentiles of a group the model covers (>= MIN_ENERGY_ROWS rows); groups with
   * fewer than MIN_RESIDUAL_ROWS rows share those of all such groups pooled; undefined for a group
   * the model does not cover (the plain profile applies)
   */
  residuals: (fitGroup: string) => ErrorStats | undefined;
  /** p80 of the plain profile's held-out errors: the use-phase uncertainty where the model does not apply */
  profileP80: number;
  /** per confidence level (TEC not supplied): multiplier of the group's (or the profile's) p80 */
  multipliers: Record<EstimateLevel, number>;
}

/**
 * Use-phase uncertainty parameters from held-out energy predictions, as main() stores them in
 * data/energy-model.json: the 80th percentile error of a group the model covers (small groups pooled:
 * their errors are larger than the big groups', so the overall figure would be too narrow for them),
 * else the plain profile's, times a confidence multiplier (levelMultipliers, as for the embodied
 * interval: fewer specs, wider interval).
 */
export function energyUncertainty(preds: EnergyPrediction[]): EnergyUncertainty {
  const byGroup = new Map<string, number[]>();
  for (const p of preds) byGroup.set(p.row.fitGroup, [...(byGroup.get(p.row.fitGroup) ?? []), p.ape]);
  const covered = [...byGroup].filter(([, a]) => a.length >= MIN_ENERGY_ROWS);
  const small = covered.filter(([, a]) => a.length < MIN_RESIDUAL_ROWS).flatMap(([, a]) => a);
  const pooledSmall = stats(small.length >= MIN_RESIDUAL_ROWS ? small : covered.flatMap(([, a]) => a));
  const groupStats = new Map(covered.map(([g, a]) => [g, a.length >= MIN_RESIDUAL_ROWS ? stats(a) : pooledSmall]));
  const residuals = (fitGroup: string): ErrorStats | undefined => groupStats.get(fitGroup);
  const profileP80 = percentile(
    preds.map((p) => p.profileApe),
    80,
  );
  const baseP80 = (fitGroup: string): number => residuals(fitGroup)?.p80 ?? profileP80;
  const multipliers = levelMultipliers(
    (level) =>
      preds
        .filter((p) => levelWithoutTec(p.row.prepared) === level)
        .map((p) => intervalErrorPct(p.kwh, p.row.tec) / baseP80(p.row.fitGroup)),
    MIN_RESIDUAL_ROWS,
  );
  return { residuals, profileP80, multipliers };
}

/** The use-phase uncertainty_pct of an estimated kWh (energyUncertaintyPct in the engine). */
export function useUncertaintyPct(u: EnergyUncertainty, fitGroup: string, level: EstimateLevel): number {
  return (u.residuals(fitGroup)?.p80 ?? u.profileP80) * u.multipliers[level];
}

/**
 * Share of held-out published TEC inside the stated interval of the use-phase uncertainty_pct
 * (insideInterval; target 80%), per
 * confidence level and overall: fold k against the uncertainty parameters of the other folds.
 */
export function energyCoverage(preds: EnergyPrediction[]): Record<EstimateLevel | 'all', Coverage> {
  const { count, of } = coverageCounter();
  for (let k = 0; k < K_FOLDS; k++) {
    const u = energyUncertainty(preds.filter((p) => p.row.prepared.fold !== k));
    for (const p of preds.filter((q) => q.row.prepared.fold === k)) {
      const level = levelWithoutTec(p.row.prepared);
      const inside = insideInterval(p.kwh, p.row.tec, useUncertaintyPct(u, p.row.fitGroup, level));
      count(level, inside);
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

export interface EnergyAccuracyLine {
  label: string;
  before: ErrorStats;
  after: ErrorStats;
}

export function energyAccuracy(preds: EnergyPrediction[]): { byCategory: EnergyAccuracyLine[]; overall: EnergyAccuracyLine } {
  const line = (label: string, ps: EnergyPrediction[]): EnergyAccuracyLine => ({
    label,
    before: stats(ps.map((p) => p.profileApe)),
    after: stats(ps.map((p) => p.ape)),
  });
  const cats = [...new Set(preds.map((p) => p.row.categoryId))].sort();
  return {
    byCategory: cats.map((c) =>
      line(
        c,
        preds.filter((p) => p.row.categoryId === c),
      ),
    ),
    overall: line('OVERALL', preds),
  };
}

const f1 = (v: number): string => (Number.isNaN(v) ? '    -' : v.toFixed(1).padStart(5));

export function formatEnergyTable(lines: EnergyAccuracyLine[]): string {
  const head = `${'category'.padEnd(20)} | ${'n'.padStart(3)} | ${'med'.padStart(5)} ${'p80'.padStart(5)} | ${'med'.padStart(5)} ${'p80'.padStart(5)}`;
  return [
    `${''.padEnd(20)} |     | ${'profile (before)'.padEnd(11)} | energy model (after)`,
    head,
    '-'.repeat(head.length),
    ...lines.map(
      (l) =>
        `${l.label.padEnd(20)} | ${String(l.after.n).padStart(3)} | ${f1(l.before.p50)} ${f1(l.before.p80)} | ${f1(l.after.p50)} ${f1(l.after.p80)}`,
    ),
  ].join('\n');
}

/** Cross-validated energy accuracy on the shared calibration set (for `npm run accuracy`). */
export function energyReport(preds: EnergyPrediction[]): string {
  const acc = energyAccuracy(preds);
  const coverage = energyCoverage(preds);
  return [
    `annual energy (kWh/yr) vs published yearly TEC, ${K_FOLDS}-fold cross-validation by PCF document, absolute % error:`,
    formatEnergyTable([...acc.byCategory, acc.overall]),
    `coverage of the use-phase uncertainty_pct (held-out TEC inside the stated interval kWh / (1 + u) to kWh x (1 + u), uncertainty parameters from the other folds, confidence level of the specs without the TEC; target ${COVERAGE_TARGET_PCT}% +/- 5): ${Object.entries(
      coverage,
    )
      .map(([k, c]) => `${k} ${c.covered_pct.toFixed(1)}% (n ${c.n})`)
      .join(', ')}`,
  ].join('\n');
}

const r1 = (v: number): number => Math.round(v * 10) / 10;
const rounded = (s: ErrorStats): { p50: number; p80: number; p90: number } => ({ p50: r1(s.p50), p80: r1(s.p80), p90: r1(s.p90) });

function main(): void {
  if (!calibrationAvailable()) {
    console.error(`calibration file not found: ${CALIBRATION_PATH} (the energy fit needs the shared calibration set)`);
    process.exit(1);
  }
  const rows = energyRows(prepare(loadCalibration().rows));
  const preds = crossValidateEnergy(rows);
  const acc = energyAccuracy(preds);
  const { groups, lambdas } = fitEnergyGroups(rows);
  const uncertainty = energyUncertainty(preds);
  for (const [g, fit] of Object.entries(groups)) {
    fit.offset = Number(fit.offset.toFixed(4));
    for (const c of Object.keys(fit.category_offsets)) fit.category_offsets[c] = Number((fit.category_offsets[c] as number).toFixed(4));
    for (const t of Object.values(fit.terms)) {
      t.coefficient = Number(t.coefficient.toFixed(4));
      t.reference = Number(t.reference.toFixed(4));
      t.range = [Number(t.range[0].toFixed(4)), Number(t.range[1].toFixed(4))];
    }
    fit.residual_abs_pct = rounded(uncertainty.residuals(g) ?? acc.overall.after);
  }
  const model: EnergyModel = {
    model_version: 1,
    generated_at: new Date().toISOString(),
    method:
      `per fit group (>= ${MIN_ENERGY_ROWS} rows with a published yearly TEC, else the plain profile): ln(TEC / profile kWh) = offset + category offset (categories with >= ${MIN_ENERGY_ROWS} rows in a multi-category group) + sum c_f x (clamp(x_f) - reference_f), features ${ENERGY_FEATURES.join(', ')} (ln(x + 1); year = release year, term left out when unknown; ${[...NON_NEGATIVE_FEATURES].join(', ')} coefficients >= 0); ` +
      `minimises mean |residual| + lambda x (offset^2 + sum category offset^2 + sum (c_f x sd_f)^2), lambda per group from {${LAMBDA_CANDIDATES.join(', ')}} by inner cross-validation over the training folds; factor bounded to [${FACTOR_RANGE.join(', ')}]`,
    factor_range: FACTOR_RANGE,
    groups,
    use_phase_uncertainty_pct: { energy_model: r1(acc.overall.after.p80), profile: r1(acc.overall.before.p80) },
    confidence_multipliers: uncertainty.multipliers,
    cross_validation: {
      source:
        'Boavizta environmental-footprint-data (manufacturer PCFs, yearly_tec column), ODbL 1.0; read from ../shared/calibration/manufacturer-pcf.csv at fit time, not copied',
      folds: `${K_FOLDS}-fold, fold = FNV-1a hash of the PCF document (sources_hash) mod ${K_FOLDS} (same folds as the embodied fit)`,
      lambdas,
      residual_abs_pct: `held-out |kWh - TEC| / TEC x 100 per group (groups with < ${MIN_RESIDUAL_ROWS} rows: the figures of all such groups the model covers, pooled)`,
      confidence_multipliers: `per confidence level of the specs without the yearly TEC: 80th percentile of the held-out multiplicative error (max(kWh, TEC) / min(kWh, TEC) - 1) x 100 / the group's p80 (the profile's where no group fit applies), so that the stated interval kWh / (1 + u) to kWh x (1 + u) covers 80%; monotone, bounded to 0.5..3 (levels with < ${MIN_RESIDUAL_ROWS} rows: 1)`,
      overall: { energy_model: rounded(acc.overall.after), profile: rounded(acc.overall.before), n: acc.overall.after.n },
      by_category: Object.fromEntries(
        acc.byCategory.map((l) => [l.label, { n: l.after.n, energy_model: rounded(l.after), profile: rounded(l.before) }]),
      ),
    },
  };
  writeFileSync(ENERGY_MODEL_PATH, `${JSON.stringify(model, null, 2)}\n`);
  console.log(`wrote ${ENERGY_MODEL_PATH}`);
  console.log(`lambdas: ${JSON.stringify(lambdas)}`);
  console.log(formatEnergyTable([...acc.byCategory, acc.overall]));
  console.log(
    `\noverall median APE ${acc.overall.before.p50.toFixed(1)}% (profile) -> ${acc.overall.after.p50.toFixed(1)}% (energy model); p80 ${acc.overall.before.p80.toFixed(1)}% -> ${acc.overall.after.p80.toFixed(1)}%`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main();
