/**
 * `npm run calibrate`: fits the engine's group coefficients on the calibration set and writes
 * data/engine-parameters.json (coefficients, cross-validated residual percentiles, uncertainty
 * parameters; no calibration rows).
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { EngineParameters, GroupFit } from '../../src/footprint/engine/parameters.ts';
import { CALIBRATION_PATH, REPO_ROOT, calibrationAvailable, loadCalibration } from './load.ts';
import {
  ADJUST_DEFAULT, K_FOLDS, LAMBDA_ELASTICITY, LAMBDA_GROUP, defaultParameters, LAMBDA_POOLED, MIN_GROUP_ROWS, crossValidate, fitParameters, median, percentile, prepare,
  profileEnergyErrors, stats,
} from './model.ts';
import type { Prediction } from './model.ts';

export const PARAMETERS_PATH = resolve(REPO_ROOT, 'data/engine-parameters.json');
/** Groups with fewer cross-validated rows take the pooled residual percentiles. */
export const MIN_RESIDUAL_ROWS = 8;

const r1 = (v: number): number => Math.round(v * 10) / 10;

export function residualFields(preds: Prediction[], params: EngineParameters): EngineParameters {
  const emb = preds.filter((p) => p.embodiedApe !== null);
  const all = stats(emb.map((p) => p.embodiedApe as number));
  const pooled = { p50: r1(all.p50), p80: r1(all.p80), p90: r1(all.p90) };
  // unknown brand: the same held-out rows predicted with the brand withheld (release year kept)
  const nb = stats(emb.map((p) => p.embodiedApeNoBrand).filter((v): v is number => v !== null));
  const pooledNoBrand = { p50: r1(nb.p50), p80: r1(nb.p80), p90: r1(nb.p90) };
  const groups: Record<string, GroupFit> = {};
  for (const [g, fit] of Object.entries(params.groups)) {
    const inGroup = emb.filter((p) => p.prepared.fitGroup === g);
    const s = stats(inGroup.map((p) => p.embodiedApe as number));
    const u = stats(inGroup.map((p) => p.embodiedApeNoBrand).filter((v): v is number => v !== null));
    groups[g] = {
      ...fit,
      residual_abs_pct: s.n >= MIN_RESIDUAL_ROWS ? { p50: r1(s.p50), p80: r1(s.p80), p90: r1(s.p90) } : pooled,
      residual_abs_pct_unknown_brand: u.n >= MIN_RESIDUAL_ROWS ? { p50: r1(u.p50), p80: r1(u.p80), p90: r1(u.p90) } : pooledNoBrand,
    };
  }
  // confidence multipliers: how much the held-out error grows when specs are withheld.
  // high = the file's specs (the most the calibration set can test), medium = weight and screen
  // only, low = category defaults only; p80 ratios, monotone and bounded.
  const p80Of = (key: 'embodiedApeReduced' | 'embodiedApeDefaults'): number =>
    percentile(emb.map((p) => p[key]).filter((v): v is number => v !== null), 80) / all.p80;
  const clamp = (v: number) => Math.min(2.5, Math.max(1, v));
  const high = 1;
  const medium = clamp(p80Of('embodiedApeReduced'));
  const low = Math.max(medium, clamp(p80Of('embodiedApeDefaults')));
  return {
    ...params,
    pooled: { ...params.pooled, residual_abs_pct: pooled, residual_abs_pct_unknown_brand: pooledNoBrand },
    groups,
    confidence_multipliers: { estimated_high: high, estimated_medium: Math.round(medium * 100) / 100, estimated_low: Math.round(low * 100) / 100 },
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

  const errorRatios = rows.map((r) => r.error_ratio).filter((v): v is number => v !== null && v > 0).map((v) => v * 100);
  const profileErr = profileEnergyErrors(prepared);
  params = {
    ...params,
    manufacturer_error_pct: r1(median(errorRatios)),
    use_phase_uncertainty_pct: { measured: base.use_phase_uncertainty_pct.measured, profile: r1(percentile(profileErr, 80)) },
    generated_at: new Date().toISOString(),
    calibration: {
      source: 'Boavizta environmental-footprint-data (boavizta-data-us.csv), ODbL 1.0; read from ../shared/calibration/manufacturer-pcf.csv at fit time, not copied',
      rows_in_file: rows.length + excluded.length,
      rows_mapped: rows.length,
      rows_with_embodied: rows.filter((r) => r.embodied !== null).length,
      rows_excluded: excluded.length,
      excluded_reasons: Object.fromEntries(
        [...new Set(excluded.map((e) => e.reason))].map((reason) => [reason, excluded.filter((e) => e.reason === reason).length]),
      ),
      method: `per category (>= 3 rows publishing the share): air share and end-of-life factor = medians of published shares per kg; per fit group (>= ${MIN_GROUP_ROWS} rows, else pooled): block multipliers (structure, electronics, memory_storage, display) and elasticities (housing vs mass, display vs area, anchored at the group's median weight and screen size) minimise sum |ln(pred/embodied) - ln f| + ${LAMBDA_GROUP} x sum (ln m)^2 + ${LAMBDA_ELASTICITY} x sum (elasticity - 1)^2 (pooled fit: ${LAMBDA_POOLED} x sum (ln m)^2), i.e. an L1 fit in log space shrunk towards the literature priors; ln f = calibration adjustment (brand, release year, spec terms; see adjustments.method), backfitted ${ADJUST_DEFAULT.backfit} rounds`,
      cross_validation: `${K_FOLDS}-fold, fold = FNV-1a hash of the PCF document (sources_hash) mod ${K_FOLDS}; everything (component fit, adjustment layer and its lambdas by an inner cross-validation over the training folds) is fitted on the training folds only; residual_abs_pct are held-out absolute percentage errors of production + transport + end of life vs gwp_total x (1 - gwp_use_ratio) with brand and release year supplied, residual_abs_pct_unknown_brand the same rows with the brand withheld`,
      manufacturer_error_pct: 'median of published gwp_error_ratio > 0',
      use_phase_uncertainty_pct: 'measured: typical-consumption tolerance (assumption); profile: 80th percentile of |profile kWh - published yearly TEC| / TEC',
    },
  };
  writeFileSync(PARAMETERS_PATH, `${JSON.stringify(params, null, 2)}\n`);
  console.log(`wrote ${PARAMETERS_PATH}`);
  for (const [g, fit] of Object.entries(params.groups)) {
    const m = fit.production_multipliers;
    console.log(
      `${g.padEnd(16)} n=${String(fit.rows).padStart(3)}  structure ${m.structure.toFixed(3)}  electronics ${m.electronics.toFixed(3)}  mem/storage ${m.memory_storage.toFixed(3)}  display ${m.display.toFixed(3)}  mass^${fit.shape.mass_elasticity} area^${fit.shape.display_area_elasticity} ref ${fit.shape.reference_weight_kg}kg/${fit.shape.reference_screen_inch}in  CV p50/p80/p90 ${fit.residual_abs_pct.p50}/${fit.residual_abs_pct.p80}/${fit.residual_abs_pct.p90}`,
    );
  }
  for (const [id, c] of Object.entries(params.categories)) {
    if (c.air_share !== null || c.eol_kg_per_kg !== null) console.log(`  ${id.padEnd(20)} air share ${c.air_share ?? '-'} (${c.transport_rows} rows)  eol ${c.eol_kg_per_kg ?? '-'} kg/kg (${c.eol_rows} rows)`);
  }
  const pm = params.pooled.production_multipliers;
  console.log(`pooled           n=${params.pooled.rows}  structure ${pm.structure}  electronics ${pm.electronics}  mem/storage ${pm.memory_storage}  display ${pm.display}`);
  const adj = params.adjustments;
  if (adj) {
    console.log('adjustment lambdas', adj.lambdas);
    console.log('brand offsets (alpha, ln)', adj.brand_offsets);
    for (const [g, a] of Object.entries(adj.groups)) {
      const brands = Object.entries(a.brands).map(([b, v]) => `${b} ${v.offset >= 0 ? '+' : ''}${v.offset}${v.year_slope ? `/${v.year_slope}y` : ''}`).join(', ');
      const feats = Object.entries(a.features).map(([k, v]) => `${k} ${v.coefficient}`).join(', ');
      console.log(`  ${g.padEnd(16)} year ${a.reference_year ?? '-'} slope ${a.year_slope}  brands: ${brands}${feats ? `  features: ${feats}` : ''}`);
    }
  }
  console.log('confidence multipliers', params.confidence_multipliers, 'manufacturer error', params.manufacturer_error_pct, 'use uncertainty', params.use_phase_uncertainty_pct);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main();
