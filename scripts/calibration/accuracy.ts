/**
 * `npm run accuracy`: 5-fold cross-validated accuracy of the parametric estimate (no catalogue,
 * specs from the calibration file) against every usable manufacturer PCF.
 *   (1) embodied: production + transport + end of life vs gwp_total x (1 - gwp_use_ratio)
 *   (2) total with the manufacturer's own lifetime and use location (grid factor from @tgwf/co2)
 *   (3) annual energy: the energy model's kWh vs the published yearly TEC (energy-fit.ts), before/after
 *   (4) servers asked by brand and name only, through the catalogue (servers.ts)
 * Prints median, 80th and 90th percentile absolute percentage error per category and overall, and the
 * cross-validated coverage of uncertainty_pct: embodied, total (use phase included) and use phase.
 */
import { relative, resolve } from 'node:path';
import { CALIBRATION_PATH, MAIN_SUBCATEGORIES, REPO_ROOT, calibrationAvailable, gridFactorFor, loadCalibration } from './load.ts';
import {
  COVERAGE_TARGET_PCT,
  K_FOLDS,
  crossValidate,
  defaultParameters,
  fitFormulaEmbodied,
  fitParameters,
  median,
  predict,
  prepare,
  stats,
} from './model.ts';
import type { Prediction } from './model.ts';
import { crossValidatedCoverage, crossValidatedTotalCoverage } from './fit.ts';
import { crossValidateEnergy, energyReport, energyRows } from './energy-fit.ts';
import { formatServersByName, serversByName } from './servers.ts';

export interface AccuracyLine {
  label: string;
  embodied: ReturnType<typeof stats>;
  total: ReturnType<typeof stats>;
}

export function summarise(preds: Prediction[]): { bySubcategory: AccuracyLine[]; byCategory: AccuracyLine[]; overall: AccuracyLine } {
  const line = (label: string, ps: Prediction[]): AccuracyLine => ({
    label,
    embodied: stats(ps.map((p) => p.embodiedApe).filter((v): v is number => v !== null)),
    total: stats(ps.map((p) => p.totalApe).filter((v): v is number => v !== null)),
  });
  const subs = [...new Set(preds.map((p) => p.prepared.row.source_subcategory))];
  const main = Object.keys(MAIN_SUBCATEGORIES);
  const ordered = [...main.filter((s) => subs.includes(s)), ...subs.filter((s) => !main.includes(s)).sort()];
  const cats = [...new Set(preds.map((p) => p.prepared.category.id))].sort();
  return {
    bySubcategory: ordered.map((s) =>
      line(
        s,
        preds.filter((p) => p.prepared.row.source_subcategory === s),
      ),
    ),
    byCategory: cats.map((c) =>
      line(
        c,
        preds.filter((p) => p.prepared.category.id === c),
      ),
    ),
    overall: line('OVERALL', preds),
  };
}

const f = (v: number): string => (Number.isNaN(v) ? '   -' : v.toFixed(1).padStart(5));

export function formatTable(title: string, lines: AccuracyLine[]): string {
  const head = `${title.padEnd(22)} | ${'n'.padStart(3)} ${'med'.padStart(5)} ${'p80'.padStart(5)} ${'p90'.padStart(5)} | ${'n'.padStart(3)} ${'med'.padStart(5)} ${'p80'.padStart(5)} ${'p90'.padStart(5)}`;
  const sep = '-'.repeat(head.length);
  const rows = lines.map(
    (l) =>
      `${l.label.padEnd(22)} | ${String(l.embodied.n).padStart(3)} ${f(l.embodied.p50)} ${f(l.embodied.p80)} ${f(l.embodied.p90)} | ${String(l.total.n).padStart(3)} ${f(l.total.p50)} ${f(l.total.p80)} ${f(l.total.p90)}`,
  );
  return [`${''.padEnd(22)} | ${'embodied APE %'.padEnd(21)} | ${'total APE %'.padEnd(21)}`, head, sep, ...rows].join('\n');
}

async function main(): Promise<void> {
  if (!calibrationAvailable()) {
    console.error(`calibration file not found: ${CALIBRATION_PATH} (the accuracy benchmark needs the shared calibration set)`);
    process.exit(1);
  }
  const base = defaultParameters();
  const { rows, excluded } = loadCalibration();
  const prepared = prepare(rows);
  const preds = crossValidate(prepared, base);

  // sanity: the engine (calculateFootprint, rounded) computes exactly the model the fit optimises
  const inSample = fitParameters(prepared, base);
  const drift = Math.max(...prepared.map((p) => Math.abs(predict(p, inSample).embodied - fitFormulaEmbodied(p, inSample))));
  if (drift > 0.05) throw new Error(`engine output and fitted model disagree by ${drift} kg`);

  const s = summarise(preds);
  console.log(`Calibration set: ${relative(REPO_ROOT, CALIBRATION_PATH)} (relative to the repository root)`);
  console.log(
    `${rows.length + excluded.length} rows; ${rows.length} mapped to a category; ${rows.filter((r) => r.embodied !== null).length} with a use ratio (embodied); ${rows.filter((r) => r.lifetime !== null).length} with a lifetime (total); ${excluded.length} excluded (${[...new Set(excluded.map((e) => e.subcategory || '?'))].join(', ')}).`,
  );
  console.log(`${K_FOLDS}-fold cross-validation (folds by PCF document); parametric estimate, specs from the file, no catalogue.\n`);
  console.log(formatTable('by sheet subcategory', [...s.bySubcategory, s.overall]));
  console.log('');
  console.log(formatTable('by engine category', [...s.byCategory, s.overall]));
  // diagnostics: value of the specs, and the grid factors the sheets imply for their use phase
  const defaultsOnly = stats(preds.map((p) => p.embodiedApeDefaults).filter((v): v is number => v !== null));
  console.log(
    `\nembodied APE with category defaults only (specs withheld): median ${defaultsOnly.p50.toFixed(1)}, p80 ${defaultsOnly.p80.toFixed(1)}, p90 ${defaultsOnly.p90.toFixed(1)} (all rows)`,
  );
  const noBrand = stats(preds.map((p) => p.embodiedApeNoBrand).filter((v): v is number => v !== null));
  const noContext = stats(preds.map((p) => p.embodiedApeNoContext).filter((v): v is number => v !== null));
  console.log(
    `embodied APE with the brand withheld (unknown brand, release year kept): median ${noBrand.p50.toFixed(1)}, p80 ${noBrand.p80.toFixed(1)}, p90 ${noBrand.p90.toFixed(1)}; brand and year withheld: median ${noContext.p50.toFixed(1)}, p80 ${noContext.p80.toFixed(1)}, p90 ${noContext.p90.toFixed(1)} (all rows)`,
  );
  const noYear = stats(
    preds
      .filter((p) => p.brandKnown && p.prepared.row.release_year !== null)
      .map((p) => p.embodiedApeNoYear)
      .filter((v): v is number => v !== null),
  );
  console.log(
    `embodied APE with the release year withheld (brand known, rows with a year; the group's reference year stands in): median ${noYear.p50.toFixed(1)}, p80 ${noYear.p80.toFixed(1)}, p90 ${noYear.p90.toFixed(1)} (n ${noYear.n})`,
  );
  const coverage = crossValidatedCoverage(preds, inSample);
  console.log(
    `coverage of the embodied uncertainty_pct (held-out manufacturer values inside the stated interval value / (1 + u) to value x (1 + u), uncertainty parameters from the other folds; target ${COVERAGE_TARGET_PCT}% +/- 5): ${Object.entries(
      coverage,
    )
      .map(([k, c]) => `${k} ${c.covered_pct.toFixed(1)}% (n ${c.n})`)
      .join(', ')}`,
  );
  const energy = crossValidateEnergy(energyRows(prepared));
  const totalCoverage = crossValidatedTotalCoverage(preds, energy, inSample);
  console.log(
    `coverage of the total uncertainty_pct, use phase included (rows with a use share and a yearly TEC; the held-out embodied estimate plus the held-out energy model's kWh at the sheet's own grid factor and lifetime; TEC withheld; target ${COVERAGE_TARGET_PCT}% +/- 5): ${Object.entries(
      totalCoverage,
    )
      .map(([k, c]) => `${k} ${c.covered_pct.toFixed(1)}% (n ${c.n})`)
      .join(', ')}`,
  );
  const unknownRows = stats(
    preds
      .filter((p) => !p.brandKnown)
      .map((p) => p.embodiedApe)
      .filter((v): v is number => v !== null),
  );
  console.log(
    `rows whose brand the training folds did not contain: n ${unknownRows.n}, median ${unknownRows.p50.toFixed(1)}, p80 ${unknownRows.p80.toFixed(1)}`,
  );
  const implied = new Map<string, number[]>();
  for (const r of rows) {
    const tec = r.specs.typical_consumption_kwh;
    if (r.use_ratio === null || r.lifetime === null || tec === undefined || r.source_subcategory === 'Printer') continue;
    const key = r.use_location || '(empty)';
    implied.set(key, [...(implied.get(key) ?? []), (r.gwp_total * r.use_ratio) / (tec * r.lifetime)]);
  }
  console.log('grid factor implied by the sheets (published use phase / (yearly TEC x lifetime)) vs @tgwf/co2 used for the total:');
  for (const [loc, xs] of [...implied].sort()) {
    const used = gridFactorFor(loc === '(empty)' ? '' : loc);
    console.log(
      `  ${loc.padEnd(14)} n=${String(xs.length).padStart(3)}  implied median ${median(xs).toFixed(3)} kg/kWh  vs ${used.key} ${used.factor.toFixed(3)} kg/kWh`,
    );
  }
  const target = s.bySubcategory.filter((l) => l.label in MAIN_SUBCATEGORIES);
  console.log(
    `\nmain categories, median embodied APE: ${target.map((l) => `${l.label} ${l.embodied.p50.toFixed(1)}%`).join(', ')} (target <= 10%)`,
  );
  console.log(`\n${energyReport(energy)}`);
  console.log(`\n${formatServersByName(await serversByName(prepared))}`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main();
