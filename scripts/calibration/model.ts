/**
 * Calibration model shared by fit.ts, accuracy.ts and test/calibration.test.ts:
 * prepares calibration rows, fits the coefficients and runs the k-fold cross-validation.
 *
 * Per category (rows publishing the share; >= 3 rows, else the category prior stays):
 *   - air_share       median of (published transport per kg - sea/road part) / air part
 *   - eol_kg_per_kg   median of published end of life per kg
 * Per calibration group (category.parameters.fit_group, >= MIN_GROUP_ROWS rows, else pooled):
 *   - production multipliers m (structure, electronics, memory_storage, display) and the
 *     elasticities a (housing vs mass) and b (display vs area), minimising
 *       sum_i |ln(pred_i / embodied_i)| + LAMBDA_GROUP * sum (ln m)^2 + LAMBDA_ELASTICITY * ((a-1)^2 + (b-1)^2)
 *     pred_i = m_s (chassis'_i + psu_i + assembly_i) + m_e (board, cpu, battery)_i + m_m (memory, storage)_i
 *              + m_d display'_i + transport_i + eol_i
 *     (chassis' and display' shaped by a, b around the group's median weight and screen size).
 *   - the pooled fit over all rows uses LAMBDA_POOLED instead of LAMBDA_GROUP.
 * All penalties pull towards the literature priors (m = 1, a = b = 1).
 */
import { ADJUSTMENT_FEATURES, adjustmentFeatures } from '../../src/footprint/engine/adjustment.ts';
import type { AdjustmentFeature } from '../../src/footprint/engine/adjustment.ts';
import { getCategory } from '../../src/footprint/engine/categories.ts';
import { calculateFootprint, confidenceFor } from '../../src/footprint/engine/footprint.ts';
import type {
  CalibrationAdjustments,
  CategoryFit,
  ComponentShape,
  EngineParameters,
  GroupFit,
  ProductionMultipliers,
} from '../../src/footprint/engine/parameters.ts';
import {
  blockSums,
  chassisAnchorKg,
  displayAnchorKg,
  PROPORTIONAL,
  rawProductionComponents,
  withElasticity,
} from '../../src/footprint/engine/production.ts';
import { countSuppliedSpecs, resolveSpecs } from '../../src/footprint/engine/specs.ts';
import { transportPerKgParts, useRegionOf } from '../../src/footprint/engine/transport.ts';
import { annualKwh, profileKwh } from '../../src/footprint/engine/use-phase.ts';
import { EOL_KG_PER_KG, ENGINE_VERSION } from '../../src/footprint/engine/constants.ts';
import type { Confidence, DeviceSpecs } from '../../src/footprint/engine/types.ts';
import type { CalibrationRow } from './load.ts';
import { foldOf } from './load.ts';
import { fitLayer, layerLog } from './adjust.ts';
import type { GroupLambdas, LayerLambdas, LayerOptions } from './adjust.ts';
import type { PreparedRow } from './prepared-row.ts';

export const K_FOLDS = 5;
export const MIN_GROUP_ROWS = 6;
export const LAMBDA_GROUP = 3;
export const LAMBDA_POOLED = 30;
export const LAMBDA_ELASTICITY = 1;
/** centre of the group penalty: the literature priors (default) or the pooled fit */
export const GROUP_CENTER: 'pooled' | 'prior' = 'prior';
/** literature priors: ln multipliers 0, proportional elasticities */
export const PRIOR_VECTOR = [0, 0, 0, 0, 1, 1];

/** Non-fitted starting point of the parameters file (the fit fills groups, pooled, residuals). */
export function defaultParameters(): EngineParameters {
  const neutral: GroupFit = {
    rows: 0,
    production_multipliers: { structure: 1, electronics: 1, memory_storage: 1, display: 1 },
    shape: { ...PROPORTIONAL },
    residual_abs_pct: { p50: 25, p80: 45, p90: 60 },
  };
  return {
    engine_version: ENGINE_VERSION,
    generated_at: null,
    calibration: null,
    pooled: neutral,
    groups: {},
    categories: {},
    confidence_multipliers: { estimated_high: 1, estimated_medium: 1.15, estimated_low: 1.4 },
    manufacturer_error_pct: 20,
    use_phase_uncertainty_pct: { measured: 15, profile: 35 },
  };
}

/** Country code standing for the sheets' use locations (transport route only). */
export function useRegionCode(useLocation: string): string {
  const loc = useLocation.trim().toUpperCase();
  if (loc === 'US' || loc === 'NORTH AMERICA') return 'US';
  return 'DE'; // EU, WW/Worldwide and empty: the European long-haul route
}

export function prepare(rows: CalibrationRow[]): PreparedRow[] {
  return rows.map((row) => {
    const category = getCategory(row.category_id);
    if (!category) throw new Error(`unknown category ${row.category_id}`);
    const s = resolveSpecs(category, row.specs, row.release_year ?? undefined);
    const raw = rawProductionComponents(category, s);
    const t = category.parameters.transport;
    const region = useRegionOf(useRegionCode(row.use_location)) ?? 'europe';
    const kwh = annualKwh(category, s).kwh;
    return {
      row,
      category,
      fitGroup: category.parameters.fit_group,
      fold: foldOf(row.group_key, K_FOLDS),
      blocks: blockSums(raw),
      specs: s,
      raw,
      weight: s.weight_kg,
      weightSupplied: row.specs.weight_kg !== undefined,
      transportParts: transportPerKgParts(t.shipping_mass_factor, t.assembly_region, region),
      brand: row.brand,
      annualKwh: kwh,
      features: adjustmentFeatures(category, s, kwh),
    };
  });
}

export const median = (xs: number[]): number => percentile(xs, 50);

/**
 * Theil-Sen slope of ln y on ln x: the median of the slopes between all pairs of points whose x
 * differ by more than 5 % (robust to the outliers of spec sheets). NaN with no such pair.
 */
export function logLogSlope(points: readonly { x: number; y: number }[]): number {
  const logs = points.filter((p) => p.x > 0 && p.y > 0).map((p) => ({ x: Math.log(p.x), y: Math.log(p.y) }));
  const slopes: number[] = [];
  for (let i = 0; i < logs.length; i++) {
    for (let j = i + 1; j < logs.length; j++) {
      const dx = logs[j]!.x - logs[i]!.x;
      if (Math.abs(dx) > Math.log(1.05)) slopes.push((logs[j]!.y - logs[i]!.y) / dx);
    }
  }
  return median(slopes);
}

/** uncertainty_pct aims at an 80% interval value / (1 + u) to value x (1 + u) (docs/methodology.md section 8). */
export const COVERAGE_TARGET_PCT = 80;
export const ESTIMATE_LEVELS = ['estimated_high', 'estimated_medium', 'estimated_low'] as const;
export type EstimateLevel = (typeof ESTIMATE_LEVELS)[number];

export interface Coverage {
  n: number;
  /** share (%) of held-out observations inside the interval the engine's uncertainty_pct states (insideInterval) */
  covered_pct: number;
}

/** Observations inside or outside an interval, counted per key (confidence level, 'all', ...). */
export function coverageCounter(): { count: (key: string, inside: boolean) => void; of: (key: string) => Coverage } {
  const counts = new Map<string, { n: number; inside: number }>();
  return {
    count: (key, inside) => {
      const c = counts.get(key) ?? { n: 0, inside: 0 };
      counts.set(key, { n: c.n + 1, inside: c.inside + (inside ? 1 : 0) });
    },
    of: (key) => {
      const c = counts.get(key) ?? { n: 0, inside: 0 };
      return { n: c.n, covered_pct: c.n > 0 ? Math.round((1000 * c.inside) / c.n) / 10 : Number.NaN };
    },
  };
}

/**
 * Confidence multipliers from held-out errors: per level, the 80th percentile of (error / the
 * row's base uncertainty), so that each level's interval covers 80% of its observations; 1 for a
 * level with fewer than minRows observations; monotone (fewer specs never narrow the interval),
 * bounded to 0.5..3, two decimals.
 */
export function levelMultipliers(ratios: (level: EstimateLevel) => number[], minRows: number): Record<EstimateLevel, number> {
  const bounded = (xs: number[]): number => (xs.length >= minRows ? Math.min(3, Math.max(0.5, percentile(xs, COVERAGE_TARGET_PCT))) : 1);
  const high = bounded(ratios('estimated_high'));
  const medium = Math.max(high, bounded(ratios('estimated_medium')));
  const low = Math.max(medium, bounded(ratios('estimated_low')));
  const r2 = (v: number): number => Math.round(v * 100) / 100;
  return { estimated_high: r2(high), estimated_medium: r2(medium), estimated_low: r2(low) };
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const a = [...xs].sort((x, y) => x - y);
  const pos = ((a.length - 1) * p) / 100;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const l = a[lo] as number;
  const h = a[hi] as number;
  return l + (h - l) * (pos - lo);
}

/** Nelder-Mead minimiser (deterministic). */
export function nelderMead(f: (x: number[]) => number, x0: number[], step = 0.3, iterations = 600): number[] {
  const n = x0.length;
  let simplex: { x: number[]; v: number }[] = [{ x: [...x0], v: f(x0) }];
  for (let i = 0; i < n; i++) {
    const x = [...x0];
    x[i] = (x[i] as number) + step;
    simplex.push({ x, v: f(x) });
  }
  const comb = (a: number[], b: number[], t: number): number[] => a.map((ai, i) => ai + t * ((b[i] as number) - ai));
  for (let it = 0; it < iterations; it++) {
    simplex.sort((a, b) => a.v - b.v);
    const best = simplex[0]!;
    const worst = simplex[n]!;
    if (Math.abs(worst.v - best.v) < 1e-10) break;
    const centroid = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) centroid[j] = (centroid[j] as number) + (simplex[i]!.x[j] as number) / n;
    const xr = comb(centroid, worst.x, -1);
    const vr = f(xr);
    if (vr < best.v) {
      const xe = comb(centroid, worst.x, -2);
      const ve = f(xe);
      simplex[n] = ve < vr ? { x: xe, v: ve } : { x: xr, v: vr };
    } else if (vr < simplex[n - 1]!.v) {
      simplex[n] = { x: xr, v: vr };
    } else {
      const xc = comb(centroid, worst.x, 0.5);
      const vc = f(xc);
      if (vc < worst.v) simplex[n] = { x: xc, v: vc };
      else simplex = simplex.map((p, i) => (i === 0 ? p : { x: comb(best.x, p.x, 0.5), v: f(comb(best.x, p.x, 0.5)) }));
    }
  }
  simplex.sort((a, b) => a.v - b.v);
  return simplex[0]!.x;
}

function fitAirShare(rows: PreparedRow[]): { n: number; value: number | null } {
  const est: number[] = [];
  for (const r of rows) {
    const ratio = r.row.transport_ratio;
    if (ratio === null || !(ratio > 0) || !r.weightSupplied) continue;
    const perKg = (r.row.gwp_total * ratio) / r.weight;
    if (r.transportParts.perAirShare <= 0) continue;
    est.push(Math.min(1, Math.max(0, (perKg - r.transportParts.fixed) / r.transportParts.perAirShare)));
  }
  return { n: est.length, value: est.length >= 3 ? round(median(est), 3) : null };
}

function fitEol(rows: PreparedRow[]): { n: number; value: number | null } {
  const est: number[] = [];
  for (const r of rows) {
    const ratio = r.row.eol_ratio;
    if (ratio === null || !(ratio > 0) || !r.weightSupplied) continue;
    est.push((r.row.gwp_total * ratio) / r.weight);
  }
  return { n: est.length, value: est.length >= 3 ? round(Math.min(5, Math.max(0.05, median(est))), 3) : null };
}

const round = (v: number, d: number): number => Math.round(v * 10 ** d) / 10 ** d;

/** Parameter vector of a group: ln multipliers (structure, electronics, memory_storage, display), mass and area elasticities. */
const ELASTICITY_BOUNDS = [0, 1.5] as const;
const clampE = (v: number): number => Math.min(ELASTICITY_BOUNDS[1], Math.max(ELASTICITY_BOUNDS[0], v));

function anchoredParts(r: PreparedRow, shape: ComponentShape) {
  return {
    chassisAct: r.raw.chassis,
    chassisRef: chassisAnchorKg(r.category, r.specs, shape),
    displayAct: r.raw.display,
    displayRef: r.raw.display > 0 ? displayAnchorKg(r.category, r.specs.screen_type, shape) : 0,
    structureOther: r.raw.power_supply + r.raw.assembly,
  };
}

/** Reference spec of a group: medians of the supplied weights and screen sizes (null without data). */
export function groupReference(rows: PreparedRow[]): { weight: number | null; screen: number | null } {
  const w = rows.map((r) => r.row.specs.weight_kg).filter((v): v is number => v !== undefined && v > 0);
  const sc = rows.map((r) => r.row.specs.screen_size_inch).filter((v): v is number => v !== undefined && v > 0);
  return { weight: w.length >= 3 ? round(median(w), 2) : null, screen: sc.length >= 3 ? round(median(sc), 1) : null };
}

function fitGroupVector(
  rows: PreparedRow[],
  reference: { weight: number | null; screen: number | null },
  airShare: (r: PreparedRow) => number,
  eol: (r: PreparedRow) => number,
  center: number[],
  lambda: number,
  lambdaElasticity: number,
  offset: (r: PreparedRow) => number = () => 0,
): number[] {
  const data = rows
    .filter((r) => r.row.embodied !== null && r.row.embodied > 0)
    .map((r) => ({
      y: Math.log(r.row.embodied as number) - offset(r),
      p: anchoredParts(r, { ...PROPORTIONAL, reference_weight_kg: reference.weight, reference_screen_inch: reference.screen }),
      e: r.blocks.electronics,
      m: r.blocks.memory_storage,
      fixed: r.weight * (r.transportParts.fixed + airShare(r) * r.transportParts.perAirShare) + r.weight * eol(r),
    }));
  const present = [
    data.some((d) => d.p.chassisAct + d.p.structureOther > 0),
    data.some((d) => d.e > 0),
    data.some((d) => d.m > 0),
    data.some((d) => d.p.displayAct > 0),
  ];
  // an elasticity is only identifiable when its driver varies in the group
  const varies = (f: (d: (typeof data)[number]) => number): boolean => {
    const xs = data.map(f).filter((v) => v > 0);
    return xs.length > 2 && Math.max(...xs) / Math.min(...xs) > 1.2;
  };
  const eFree = [varies((d) => d.p.chassisAct), varies((d) => d.p.displayAct)];
  const loss = (x: number[]): number => {
    const [ls, le, lm, ld] = x as [number, number, number, number];
    const a = clampE(x[4] as number);
    const b = clampE(x[5] as number);
    const ms = Math.exp(ls),
      me = Math.exp(le),
      mm = Math.exp(lm),
      md = Math.exp(ld);
    let l = 0;
    for (const d of data) {
      const chassis = withElasticity(d.p.chassisAct, d.p.chassisRef, a);
      const display = withElasticity(d.p.displayAct, d.p.displayRef, b);
      const pred = d.fixed + ms * (chassis + d.p.structureOther) + me * d.e + mm * d.m + md * display;
      l += Math.abs(Math.log(Math.max(pred, 1e-9)) - d.y);
    }
    for (let j = 0; j < 4; j++) {
      const dev = (x[j] as number) - (center[j] as number);
      l += (present[j] ? lambda : 1000) * dev * dev;
    }
    for (let j = 4; j < 6; j++) {
      const dev = (x[j] as number) - (center[j] as number);
      l += (eFree[j - 4] ? lambdaElasticity : 1000) * dev * dev + 1000 * ((x[j] as number) - clampE(x[j] as number)) ** 2;
    }
    return l;
  };
  let best = nelderMead(loss, center, 0.3, 1500);
  for (let k = 0; k < 3; k++) best = nelderMead(loss, best, 0.15, 1500);
  return best;
}

export interface AdjustOptions extends Omit<LayerOptions, 'lambdas'> {
  /** fixed lambdas; when absent they are chosen by inner cross-validation over the training folds */
  lambdas?: LayerLambdas;
  /** candidate values per lambda for the inner cross-validation (Infinity = term not used) */
  grid: Record<keyof LayerLambdas, number[]>;
  /** starting point of the coordinate search */
  start: LayerLambdas;
  /** backfitting rounds (component fit <-> adjustment layer) */
  backfit: number;
  /** choose the group-level lambdas per fit group (else one value for all groups) */
  perGroup: boolean;
  /** inner-CV loss weighting: every row equally, or every fit group equally (rows weighted 1 / group size) */
  scoreWeighting: 'row' | 'group';
}

const INF = Number.POSITIVE_INFINITY;
/**
 * Spec features offered to every fit group: all the engine knows (a feature that does not vary in a
 * group, or memory and storage where the sheets rarely state them, is dropped there).
 */
export const LAYER_FEATURES: AdjustmentFeature[] = [...ADJUSTMENT_FEATURES];

export const ADJUST_DEFAULT: AdjustOptions = {
  features: { '*': LAYER_FEATURES },
  brandYear: true,
  grid: {
    brand: [0.5, 1, 2, 4, 8, 16, INF],
    brand_group: [0.5, 1, 2, 4, 8, 16, INF],
    year: [1, 4, 16, 64, INF],
    features: [1, 4, 16, 64, INF],
    brand_year: [1, 4, 16, INF],
  },
  start: { brand: 4, brand_group: 4, year: 16, features: Number.POSITIVE_INFINITY, brand_year: Number.POSITIVE_INFINITY },
  backfit: 2,
  perGroup: false,
  scoreWeighting: 'row',
};

export interface FitOptions {
  lambdaGroup?: number;
  lambdaPooled?: number;
  lambdaElasticity?: number;
  /** centre of the group penalty: the pooled fit (default) or the literature priors */
  groupCenter?: 'pooled' | 'prior';
  /** brand / year / spec adjustment layer (default ADJUST_DEFAULT); false = component model only */
  adjust?: AdjustOptions | false;
  /** offsets (ln) subtracted from the targets of the component fit (backfitting) */
  offset?: (r: PreparedRow) => number;
}

/** ln residual of the component model (no adjustment) for each row with an embodied value. */
function componentResiduals(rows: PreparedRow[], params: EngineParameters): number[] {
  return rows.map((r) => Math.log((r.row.embodied as number) / baseEmbodied(r, params)));
}

const withEmbodied = (rows: PreparedRow[]): PreparedRow[] => rows.filter((r) => r.row.embodied !== null && r.row.embodied > 0);

/**
 * Chooses the layer lambdas by inner cross-validation: for each training fold held out in turn,
 * the component model is fitted on the other training folds, and each lambda candidate of a
 * coordinate search is scored by sum |ln(published / predicted)| on the held-out training fold.
 * Only `rows` (the training folds of the outer split) are used.
 */
export function chooseLambdas(rows: PreparedRow[], base: EngineParameters, opts: FitOptions, adjust: AdjustOptions): GroupLambdas {
  const data = withEmbodied(rows);
  const folds = [...new Set(data.map((r) => r.fold))].sort();
  const splits = folds.map((f) => {
    const train = data.filter((r) => r.fold !== f);
    const test = data.filter((r) => r.fold === f);
    const params = fitParameters(train, base, { ...opts, adjust: false });
    return { train, test, rTrain: componentResiduals(train, params), rTest: componentResiduals(test, params) };
  });
  const groups = [...new Set(data.map((r) => r.fitGroup))].sort();
  const groupSize = new Map<string, number>();
  for (const r of data) groupSize.set(r.fitGroup, (groupSize.get(r.fitGroup) ?? 0) + 1);
  const weightOf = (r: PreparedRow): number => (adjust.scoreWeighting === 'group' ? 1 / (groupSize.get(r.fitGroup) ?? 1) : 1);
  /** held-out loss sum |ln(published / predicted)|, in total and per fit group */
  const score = (l: GroupLambdas): { total: number; byGroup: Map<string, number> } => {
    let total = 0;
    const byGroup = new Map<string, number>();
    for (const sp of splits) {
      const adj = fitLayer(sp.train, sp.rTrain, { ...adjust, lambdas: l });
      sp.test.forEach((r, i) => {
        const e = weightOf(r) * Math.abs((sp.rTest[i] as number) - layerLog(r, adj));
        total += e;
        byGroup.set(r.fitGroup, (byGroup.get(r.fitGroup) ?? 0) + e);
      });
    }
    return { total, byGroup };
  };
  const keys = Object.keys(adjust.grid) as (keyof LayerLambdas)[];
  let best: GroupLambdas = { ...adjust.start };
  let bestScore = score(best);
  // coordinate search: one lambda at a time over its grid, two passes
  for (let pass = 0; pass < 2; pass++) {
    let changed = false;
    for (const k of keys) {
      for (const v of adjust.grid[k]) {
        if (v === best[k]) continue;
        const sc = score({ ...best, [k]: v });
        if (sc.total < bestScore.total - 1e-9) {
          best = { ...best, [k]: v };
          bestScore = sc;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  if (!adjust.perGroup) return best;
  // per-group refinement of the group-level lambdas: a candidate is kept for a group when it lowers
  // that group's held-out loss (the terms of different groups share only the brand offsets alpha)
  const per: Record<string, Partial<LayerLambdas>> = {};
  const current = new Map(bestScore.byGroup);
  for (let pass = 0; pass < 2; pass++) {
    let changed = false;
    for (const k of keys) {
      if (k === 'brand') continue;
      for (const v of adjust.grid[k]) {
        const cand: GroupLambdas = { ...best, groups: Object.fromEntries(groups.map((g) => [g, { ...per[g], [k]: v }])) };
        const sc = score(cand);
        for (const g of groups) {
          if ({ ...best, ...per[g] }[k] === v) continue;
          const s1 = sc.byGroup.get(g) ?? 0;
          if (s1 < (current.get(g) ?? 0) - 1e-9) {
            per[g] = { ...per[g], [k]: v };
            current.set(g, s1);
            changed = true;
          }
        }
      }
    }
    if (!changed) break;
  }
  return { ...best, groups: per };
}

/**
 * Fits the component model and (unless opts.adjust is false) the adjustment layer by backfitting;
 * residuals and uncertainty fields are filled separately.
 */
export function fitParameters(rows: PreparedRow[], base: EngineParameters, opts: FitOptions = {}): EngineParameters {
  const adjust = opts.adjust === undefined ? ADJUST_DEFAULT : opts.adjust;
  if (adjust === false) return fitComponents(rows, base, opts);
  const lambdas = adjust.lambdas ?? chooseLambdas(rows, base, opts, adjust);
  const layerOpts: LayerOptions = { features: adjust.features, brandYear: adjust.brandYear, lambdas };
  const data = withEmbodied(rows);
  let params = fitComponents(rows, base, { ...opts, offset: () => 0 });
  let adj: CalibrationAdjustments = fitLayer(data, componentResiduals(data, params), layerOpts);
  for (let k = 0; k < adjust.backfit; k++) {
    const a = adj;
    params = fitComponents(rows, base, { ...opts, offset: (r) => layerLog(r, a) });
    adj = fitLayer(data, componentResiduals(data, params), layerOpts);
  }
  return { ...params, adjustments: adj };
}

/** Component model only (group multipliers and elasticities; per-category transport and end of life). */
function fitComponents(rows: PreparedRow[], base: EngineParameters, opts: FitOptions = {}): EngineParameters {
  const lambdaGroup = opts.lambdaGroup ?? LAMBDA_GROUP;
  const lambdaPooled = opts.lambdaPooled ?? LAMBDA_POOLED;
  const groups = new Map<string, PreparedRow[]>();
  for (const r of rows) groups.set(r.fitGroup, [...(groups.get(r.fitGroup) ?? []), r]);

  const byCategory = new Map<string, PreparedRow[]>();
  for (const r of rows) byCategory.set(r.category.id, [...(byCategory.get(r.category.id) ?? []), r]);
  const categories: Record<string, CategoryFit> = {};
  for (const [id, rs] of [...byCategory].sort(([a], [b]) => a.localeCompare(b))) {
    const air = fitAirShare(rs);
    const eol = fitEol(rs);
    categories[id] = { transport_rows: air.n, eol_rows: eol.n, air_share: air.value, eol_kg_per_kg: eol.value };
  }
  const airOf = (r: PreparedRow): number => categories[r.category.id]?.air_share ?? r.category.parameters.transport.air_share;
  const eolOf = (r: PreparedRow): number =>
    categories[r.category.id]?.eol_kg_per_kg ?? EOL_KG_PER_KG[r.category.parameters.end_of_life.material_class];

  const lambdaE = opts.lambdaElasticity ?? LAMBDA_ELASTICITY;
  const offset = opts.offset ?? (() => 0);
  const pooledX = fitGroupVector(rows, { weight: null, screen: null }, airOf, eolOf, PRIOR_VECTOR, lambdaPooled, lambdaE, offset);
  const toMult = (x: number[]): ProductionMultipliers => ({
    structure: round(Math.exp(x[0] as number), 4),
    electronics: round(Math.exp(x[1] as number), 4),
    memory_storage: round(Math.exp(x[2] as number), 4),
    display: round(Math.exp(x[3] as number), 4),
  });
  const toShape = (x: number[], ref: { weight: number | null; screen: number | null }): ComponentShape => ({
    mass_elasticity: round(clampE(x[4] as number), 4),
    display_area_elasticity: round(clampE(x[5] as number), 4),
    reference_weight_kg: ref.weight,
    reference_screen_inch: ref.screen,
  });
  const emptyResiduals = { p50: Number.NaN, p80: Number.NaN, p90: Number.NaN };
  const out: Record<string, GroupFit> = {};
  for (const [g, rs] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const n = rs.filter((r) => r.row.embodied !== null).length;
    const center = (opts.groupCenter ?? GROUP_CENTER) === 'prior' ? PRIOR_VECTOR : pooledX;
    const own = n >= MIN_GROUP_ROWS;
    const ref = own ? groupReference(rs) : { weight: null, screen: null };
    const x = own ? fitGroupVector(rs, ref, airOf, eolOf, center, lambdaGroup, lambdaE, offset) : pooledX;
    out[g] = {
      rows: n,
      production_multipliers: toMult(x),
      shape: toShape(x, ref),
      residual_abs_pct: { ...emptyResiduals },
    };
  }
  const { adjustments: _dropped, ...baseWithout } = base;
  return {
    ...baseWithout,
    engine_version: ENGINE_VERSION,
    pooled: {
      rows: rows.filter((r) => r.row.embodied !== null).length,
      production_multipliers: toMult(pooledX),
      shape: toShape(pooledX, { weight: null, screen: null }),
      residual_abs_pct: { ...emptyResiduals },
    },
    groups: out,
    categories,
  };
}

export interface Prediction {
  prepared: PreparedRow;
  embodied: number;
  total: number | null;
  /** absolute percentage errors */
  embodiedApe: number | null;
  totalApe: number | null;
  /** embodied APE with the specs reduced to weight and screen size (medium-confidence regime) */
  embodiedApeReduced: number | null;
  /** embodied APE with no specs at all (category defaults, low-confidence regime) */
  embodiedApeDefaults: number | null;
  /** embodied APE with the brand withheld (unknown-brand regime), release year kept */
  embodiedApeNoBrand: number | null;
  /** embodied APE with brand and release year withheld */
  embodiedApeNoContext: number | null;
  /** embodied APE with the release year withheld, brand kept (unknown-year regime; the main APE when the row has no year) */
  embodiedApeNoYear: number | null;
  /** embodied estimate with the brand withheld, and with the release year withheld (the observations behind the two APEs above) */
  embodiedNoBrand: number;
  embodiedNoYear: number;
  /** true when the fitted adjustment knows the row's brand (in its group or across groups) */
  brandKnown: boolean;
  /**
   * Held-out embodied estimate per spec regime (the file's specs; weight and screen only; category
   * defaults), each with the confidence level the engine gives that many supplied specs: the
   * observations of the uncertainty coverage (against the row's published embodied value). A regime
   * that supplies no fewer specs than a previous one is left out (no row counted twice).
   */
  intervals: { confidence: Confidence; estimate: number }[];
}

/** Brand and release year of a calibration row as the API passes them. */
function contextOf(p: PreparedRow): { brand?: string; release_year?: number } {
  const c: { brand?: string; release_year?: number } = {};
  if (p.row.brand !== null) c.brand = p.row.brand;
  if (p.row.release_year !== null) c.release_year = p.row.release_year;
  return c;
}

function embodiedWith(p: PreparedRow, params: EngineParameters, specs: DeviceSpecs, context = contextOf(p)): number {
  const fp = calculateFootprint(
    {
      category: p.category,
      specs,
      supplied_spec_count: 0,
      grid_factor_kg_per_kwh: p.row.grid_factor,
      use_region: useRegionCode(p.row.use_location),
      ...context,
    },
    params,
  );
  return fp.breakdown.production_kg + fp.breakdown.transport_kg + fp.breakdown.end_of_life_kg;
}

/** Predicts a row with the engine itself (calculateFootprint), as the API would. */
export function predict(p: PreparedRow, params: EngineParameters): Prediction {
  const r = p.row;
  const ape = (v: number): number | null => (r.embodied !== null ? (Math.abs(v - r.embodied) / r.embodied) * 100 : null);
  const reduced: DeviceSpecs = {};
  if (r.specs.weight_kg !== undefined) reduced.weight_kg = r.specs.weight_kg;
  if (r.specs.screen_size_inch !== undefined) reduced.screen_size_inch = r.specs.screen_size_inch;
  const base = {
    category: p.category,
    specs: r.specs,
    supplied_spec_count: r.supplied_spec_count,
    grid_factor_kg_per_kwh: r.grid_factor,
    use_region: useRegionCode(r.use_location),
    ...contextOf(p),
  };
  const fp = calculateFootprint(r.lifetime !== null ? { ...base, lifetime_years: r.lifetime } : base, params);
  const embodied = fp.breakdown.production_kg + fp.breakdown.transport_kg + fp.breakdown.end_of_life_kg;
  const total = r.lifetime !== null ? fp.total_kg_co2e : null;
  const embodiedReduced = embodiedWith(p, params, reduced);
  const embodiedDefaults = embodiedWith(p, params, {});
  const embodiedNoBrand = embodiedWith(p, params, r.specs, r.release_year !== null ? { release_year: r.release_year } : {});
  const embodiedNoYear = embodiedWith(p, params, r.specs, r.brand !== null ? { brand: r.brand } : {});
  const intervals: Prediction['intervals'] = [];
  const regimes: [number, number][] = [
    [r.supplied_spec_count, embodied],
    [countSuppliedSpecs(reduced), embodiedReduced],
    [0, embodiedDefaults],
  ];
  let fewest = Number.POSITIVE_INFINITY;
  for (const [count, estimate] of regimes) {
    if (r.embodied === null || count >= fewest) continue;
    fewest = count;
    intervals.push({ confidence: confidenceFor(count, false), estimate });
  }
  return {
    prepared: p,
    embodied,
    total,
    embodiedApe: ape(embodied),
    totalApe: total !== null ? (Math.abs(total - r.gwp_total) / r.gwp_total) * 100 : null,
    embodiedApeReduced: ape(embodiedReduced),
    embodiedApeDefaults: ape(embodiedDefaults),
    embodiedApeNoBrand: ape(embodiedNoBrand),
    embodiedApeNoContext: ape(embodiedWith(p, params, r.specs, {})),
    embodiedApeNoYear: ape(embodiedNoYear),
    embodiedNoBrand,
    embodiedNoYear,
    brandKnown:
      params.adjustments !== undefined &&
      r.brand !== null &&
      (params.adjustments.brand_offsets[r.brand] !== undefined || params.adjustments.groups[p.fitGroup]?.brands[r.brand] !== undefined),
    intervals,
  };
}

/**
 * Embodied footprint by the fit's own formula (the one the loss minimises), from stored parameters.
 * accuracy.ts checks that the engine (calculateFootprint) returns the same numbers.
 */
export function fitFormulaEmbodied(p: PreparedRow, params: EngineParameters): number {
  return baseEmbodied(p, params) * Math.exp(layerLog(p, params.adjustments));
}

/** Component-model embodied footprint (without the adjustment layer). */
export function baseEmbodied(p: PreparedRow, params: EngineParameters): number {
  const fit = params.groups[p.fitGroup] ?? params.pooled;
  const parts = anchoredParts(p, fit.shape);
  const m = fit.production_multipliers;
  const cf = params.categories[p.category.id];
  const air = cf?.air_share ?? p.category.parameters.transport.air_share;
  const eol = cf?.eol_kg_per_kg ?? EOL_KG_PER_KG[p.category.parameters.end_of_life.material_class];
  return (
    p.weight * (p.transportParts.fixed + air * p.transportParts.perAirShare) +
    p.weight * eol +
    m.structure * (withElasticity(parts.chassisAct, parts.chassisRef, fit.shape.mass_elasticity) + parts.structureOther) +
    m.electronics * p.blocks.electronics +
    m.memory_storage * p.blocks.memory_storage +
    m.display * withElasticity(parts.displayAct, parts.displayRef, fit.shape.display_area_elasticity)
  );
}

/** k-fold cross-validation: fit on k-1 folds, predict the held-out fold. */
export function crossValidate(rows: PreparedRow[], base: EngineParameters, opts: FitOptions = {}): Prediction[] {
  const preds: Prediction[] = [];
  for (let k = 0; k < K_FOLDS; k++) {
    const train = rows.filter((r) => r.fold !== k);
    const test = rows.filter((r) => r.fold === k);
    const params = fitParameters(train, base, opts);
    for (const r of test) preds.push(predict(r, params));
  }
  return preds.sort((a, b) => a.prepared.row.index - b.prepared.row.index);
}

export interface ErrorStats {
  n: number;
  p50: number;
  p80: number;
  p90: number;
}

export function stats(values: number[]): ErrorStats {
  return { n: values.length, p50: percentile(values, 50), p80: percentile(values, 80), p90: percentile(values, 90) };
}

/** Profile-energy error: category profile kWh vs the published typical consumption. */
export function profileEnergyErrors(rows: PreparedRow[]): number[] {
  const out: number[] = [];
  for (const p of rows) {
    const tec = p.row.specs.typical_consumption_kwh;
    if (tec === undefined || !(tec > 0)) continue;
    const s = resolveSpecs(p.category, p.row.specs);
    const kwh = profileKwh(p.category, s.processor_tdp_w, s.screen_size_inch);
    out.push((Math.abs(kwh - tec) / tec) * 100);
  }
  return out;
}
