/**
 * Calibration adjustment layer (docs/methodology.md section 3.3): a ridge-penalised log-linear
 * model of the residuals ln(published embodied / component-model embodied),
 *
 *   r_i ~ alpha_b + eta_(g,b) + (gamma_g + delta_(g,b)) t_i + sum_k phi_(g,k) z_(i,k)
 *
 * b = normalised brand, g = fit group, t = release year - the group's median year (0 when
 * missing), z = standardised spec features. Loss: sum_i |r_i - x_i beta| (median-type, solved by
 * iteratively reweighted least squares) + sum_j lambda_j beta_j^2 (ridge towards 0 = no
 * adjustment; for the brand terms this is the empirical-Bayes shrinkage of a brand level towards
 * the group's pooled level). The lambdas are chosen by inner cross-validation in model.ts.
 */
import { AMOUNT_FEATURES, adjustmentFor } from '../../src/footprint/engine/adjustment.ts';
import type { AdjustmentFeature } from '../../src/footprint/engine/adjustment.ts';
import type { CalibrationAdjustments, GroupAdjustment } from '../../src/footprint/engine/parameters.ts';
import type { PreparedRow } from './prepared-row.ts';

export interface LayerLambdas {
  /** alpha: cross-group brand offsets */
  brand: number;
  /** eta: brand offsets within a group */
  brand_group: number;
  /** gamma (group year slope) and delta (brand year slope within a group, x2) */
  year: number;
  /** phi: standardised spec features */
  features: number;
  /** kappa: offsets per (group, brand, release year), on top of the brand trend (methodology versions) */
  brand_year: number;
}

/** Global lambdas, with optional per-group overrides of the group-level terms (all but `brand`). */
export type GroupLambdas = LayerLambdas & { groups?: Record<string, Partial<LayerLambdas>> };

export interface LayerOptions {
  lambdas: GroupLambdas;
  /** spec features allowed per fit group ('*' = all groups) */
  features: Partial<Record<string, AdjustmentFeature[]>>;
  /** brand-specific year slopes (delta) */
  brandYear: boolean;
}

const round = (v: number, d: number): number => Math.round(v * 10 ** d) / 10 ** d;
const medianOf = (xs: number[]): number => {
  const a = [...xs].sort((x, y) => x - y);
  const m = (a.length - 1) / 2;
  return ((a[Math.floor(m)] as number) + (a[Math.ceil(m)] as number)) / 2;
};

interface Column {
  lambda: number;
  /** how to store the coefficient */
  kind: 'alpha' | 'eta' | 'gamma' | 'delta' | 'phi' | 'kappa';
  year?: number;
  group?: string;
  brand?: string;
  feature?: AdjustmentFeature;
  /** feature standardisation */
  scale?: number;
}

/** Solves A x = b for a symmetric positive definite A (Cholesky). */
function solveSpd(a: Float64Array, b: Float64Array, n: number): Float64Array {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * n + j] as number;
      for (let k = 0; k < j; k++) s -= (l[i * n + k] as number) * (l[j * n + k] as number);
      if (i === j) l[i * n + i] = Math.sqrt(Math.max(s, 1e-12));
      else l[i * n + j] = s / (l[j * n + j] as number);
    }
  }
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = b[i] as number;
    for (let k = 0; k < i; k++) s -= (l[i * n + k] as number) * (y[k] as number);
    y[i] = s / (l[i * n + i] as number);
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i] as number;
    for (let k = i + 1; k < n; k++) s -= (l[k * n + i] as number) * (x[k] as number);
    x[i] = s / (l[i * n + i] as number);
  }
  return x;
}

/** Year statistics of a group's rows: median year and range (null with fewer than 3 dated rows or no spread). */
function yearInfo(rows: PreparedRow[]): { reference: number; range: [number, number] } | null {
  const ys = rows.map((r) => r.row.release_year).filter((y): y is number => y !== null);
  if (ys.length < 3) return null;
  const lo = Math.min(...ys);
  const hi = Math.max(...ys);
  if (hi - lo < 1) return null;
  return { reference: Math.round(medianOf(ys)), range: [lo, hi] };
}

/**
 * Memory and storage terms need the sheets to state memory and storage: where fewer than half of a
 * group's rows do (notebooks state neither, desktops rarely), the resolved value is the category's
 * typical configuration of the release year (specs.ts), and the term would only restate the year.
 */
export const MIN_STATED_SHARE = 0.5;
const STATED_SPEC: Partial<Record<AdjustmentFeature, 'ram_gb' | 'storage_gb'>> = { ln_ram: 'ram_gb', ln_storage: 'storage_gb' };

function statedEnough(rows: PreparedRow[], feature: AdjustmentFeature): boolean {
  const spec = STATED_SPEC[feature];
  return spec === undefined || rows.filter((r) => r.row.specs[spec] !== undefined).length >= MIN_STATED_SHARE * rows.length;
}

/**
 * Minimises sum |r - x beta| + sum lambda_j beta_j^2 by iteratively reweighted least squares, with the
 * columns in `held` fixed at 0.
 */
function irls(X: { j: number; v: number }[][], residuals: number[], cols: Column[], held: ReadonlySet<number>): Float64Array {
  const p = cols.length;
  let beta: Float64Array = new Float64Array(p);
  if (p === 0) return beta;
  for (let it = 0; it < 15; it++) {
    const A = new Float64Array(p * p);
    const bvec = new Float64Array(p);
    for (let j = 0; j < p; j++) A[j * p + j] = held.has(j) ? 1 : 2 * (cols[j] as Column).lambda;
    for (let i = 0; i < X.length; i++) {
      const xi = (X[i] as { j: number; v: number }[]).filter((a) => !held.has(a.j));
      let fitted = 0;
      for (const { j, v } of xi) fitted += v * (beta[j] as number);
      const e = (residuals[i] as number) - fitted;
      const w = 1 / Math.max(Math.abs(e), 0.02);
      for (const a of xi) {
        bvec[a.j] = (bvec[a.j] as number) + w * a.v * (residuals[i] as number);
        for (const c of xi) A[a.j * p + c.j] = (A[a.j * p + c.j] as number) + w * a.v * c.v;
      }
    }
    const next = solveSpd(A, bvec, p);
    let delta = 0;
    for (let j = 0; j < p; j++) delta = Math.max(delta, Math.abs((next[j] as number) - (beta[j] as number)));
    beta = next;
    if (delta < 1e-5) break;
  }
  return beta;
}

/** Fits the adjustment layer on rows with their residuals (same order). */
export function fitLayer(rows: PreparedRow[], residuals: number[], opts: LayerOptions): CalibrationAdjustments {
  const G = opts.lambdas;
  const lambdaOf = (g: string): LayerLambdas => ({ ...G, ...(G.groups?.[g] ?? {}), brand: G.brand });
  const byGroup = new Map<string, number[]>();
  rows.forEach((r, i) => byGroup.set(r.fitGroup, [...(byGroup.get(r.fitGroup) ?? []), i]));
  const groups: Record<string, GroupAdjustment> = {};
  const years = new Map<string, { reference: number; range: [number, number] } | null>();
  const featureStats = new Map<string, { k: AdjustmentFeature; ref: number; sd: number; range: [number, number] }[]>();
  for (const [g, idx] of [...byGroup].sort(([a], [b]) => a.localeCompare(b))) {
    const rs = idx.map((i) => rows[i] as PreparedRow);
    const L = lambdaOf(g);
    years.set(g, Number.isFinite(L.year) ? yearInfo(rs) : null);
    const allowed = opts.features[g] ?? opts.features['*'] ?? [];
    const fs: { k: AdjustmentFeature; ref: number; sd: number; range: [number, number] }[] = [];
    if (Number.isFinite(L.features)) {
      for (const k of allowed.filter((f) => statedEnough(rs, f))) {
        const xs = rs.map((r) => r.features[k]);
        const m = xs.reduce((s, v) => s + v, 0) / xs.length;
        const sd = Math.sqrt(xs.reduce((s, v) => s + (v - m) ** 2, 0) / xs.length);
        if (xs.length >= 6 && sd > 1e-3) fs.push({ k, ref: medianOf(xs), sd, range: [Math.min(...xs), Math.max(...xs)] });
      }
    }
    featureStats.set(g, fs);
    const y = years.get(g) ?? null;
    groups[g] = { reference_year: y?.reference ?? null, year_range: y?.range ?? null, year_slope: 0, brands: {}, features: {} };
  }

  // columns
  const cols: Column[] = [];
  const colIndex = new Map<string, number>();
  const add = (key: string, c: Column): void => {
    if (!Number.isFinite(c.lambda) || colIndex.has(key)) return;
    colIndex.set(key, cols.length);
    cols.push(c);
  };
  const brands = [...new Set(rows.map((r) => r.brand).filter((b): b is string => b !== null))].sort();
  for (const b of brands) add(`a|${b}`, { lambda: G.brand, kind: 'alpha', brand: b });
  for (const [g, idx] of [...byGroup].sort(([a], [b]) => a.localeCompare(b))) {
    const L = lambdaOf(g);
    const gb = [...new Set(idx.map((i) => rows[i]!.brand).filter((b): b is string => b !== null))].sort();
    for (const b of gb) add(`e|${g}|${b}`, { lambda: L.brand_group, kind: 'eta', group: g, brand: b });
    if (years.get(g)) {
      add(`g|${g}`, { lambda: L.year, kind: 'gamma', group: g });
      if (opts.brandYear) for (const b of gb) add(`d|${g}|${b}`, { lambda: 2 * L.year, kind: 'delta', group: g, brand: b });
    }
    const gby = [
      ...new Set(
        idx
          .filter((i) => rows[i]!.brand !== null && rows[i]!.row.release_year !== null)
          .map((i) => `${rows[i]!.brand}|${rows[i]!.row.release_year}`),
      ),
    ].sort();
    for (const k of gby) {
      const [b, y] = k.split('|') as [string, string];
      add(`k|${g}|${k}`, { lambda: L.brand_year, kind: 'kappa', group: g, brand: b, year: Number(y) });
    }
    for (const f of featureStats.get(g) ?? [])
      add(`f|${g}|${f.k}`, { lambda: L.features, kind: 'phi', group: g, feature: f.k, scale: f.sd });
  }
  // sparse design rows
  const X: { j: number; v: number }[][] = rows.map((r) => {
    const g = r.fitGroup;
    const out: { j: number; v: number }[] = [];
    const push = (key: string, v: number): void => {
      const j = colIndex.get(key);
      if (j !== undefined && v !== 0) out.push({ j, v });
    };
    if (r.brand !== null) {
      push(`a|${r.brand}`, 1);
      push(`e|${g}|${r.brand}`, 1);
    }
    const yi = years.get(g);
    // as in the engine (adjustmentFor), the year terms apply to rows with a brand only
    if (yi && r.row.release_year !== null && r.brand !== null) {
      const t = Math.min(yi.range[1], Math.max(yi.range[0], r.row.release_year)) - yi.reference;
      push(`g|${g}`, t);
      push(`d|${g}|${r.brand}`, t);
    }
    if (r.brand !== null && r.row.release_year !== null) push(`k|${g}|${r.brand}|${r.row.release_year}`, 1);
    for (const f of featureStats.get(g) ?? []) push(`f|${g}|${f.k}`, (r.features[f.k] - f.ref) / f.sd);
    return out;
  });

  // Terms of amounts (memory, storage, sockets, energy) are kept >= 0, so that more of a spec never
  // lowers the footprint: a term fitted below 0 is held at 0 and the rest refitted (active set).
  const held = new Set<number>();
  let beta: Float64Array;
  for (;;) {
    beta = irls(X, residuals, cols, held);
    const negative = [...cols.keys()].filter(
      (j) => !held.has(j) && cols[j]!.kind === 'phi' && AMOUNT_FEATURES.has(cols[j]!.feature!) && (beta[j] as number) < 0,
    );
    if (negative.length === 0) break;
    for (const j of negative) held.add(j);
  }

  const brandOffsets: Record<string, number> = {};
  cols.forEach((c, j) => {
    const v = round(beta[j] as number, 4);
    const g = c.group !== undefined ? groups[c.group] : undefined;
    switch (c.kind) {
      case 'alpha':
        if (v !== 0) brandOffsets[c.brand!] = v;
        break;
      case 'eta':
        g!.brands[c.brand!] = { ...(g!.brands[c.brand!] ?? { year_slope: 0 }), offset: v };
        break;
      case 'gamma':
        g!.year_slope = v;
        break;
      case 'delta':
        g!.brands[c.brand!] = { ...(g!.brands[c.brand!] ?? { offset: 0 }), year_slope: v };
        break;
      case 'kappa': {
        const e = g!.brands[c.brand!] ?? { offset: 0, year_slope: 0 };
        if (v !== 0) e.year_offsets = { ...(e.year_offsets ?? {}), [String(c.year)]: v };
        g!.brands[c.brand!] = e;
        break;
      }
      case 'phi': {
        const f = featureStats.get(c.group!)!.find((s) => s.k === c.feature)!;
        const coef = round((beta[j] as number) / f.sd, 4);
        if (coef !== 0)
          g!.features[c.feature!] = { coefficient: coef, reference: round(f.ref, 4), range: [round(f.range[0], 4), round(f.range[1], 4)] };
        break;
      }
    }
  });
  return {
    method:
      'ridge-penalised L1 (IRLS) log-linear model of ln(published embodied / component model): cross-group brand offsets alpha, group-brand offsets eta, group year slopes gamma, group-brand year slopes delta, standardised spec terms phi (terms of amounts: memory, storage, sockets, kWh, >= 0); lambdas by inner cross-validation on the training folds',
    lambdas: { brand: G.brand, brand_group: G.brand_group, year: G.year, features: G.features, brand_year: G.brand_year },
    ...(G.groups && Object.keys(G.groups).length > 0 ? { group_lambdas: G.groups } : {}),
    brand_offsets: brandOffsets,
    groups,
  };
}

/** ln of the adjustment factor of a prepared row under `adj` (the engine's own function). */
export function layerLog(r: PreparedRow, adj: CalibrationAdjustments | undefined, brand: string | null = r.brand): number {
  if (!adj) return 0;
  const a = adjustmentFor(adj, r.category, r.specs, r.annualKwh, brand ?? undefined, r.row.release_year ?? undefined);
  return Math.log(a.factor);
}
