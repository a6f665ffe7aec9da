/**
 * `npm run accuracy`: 5-fold cross-validated accuracy of the parametric estimate (no catalogue,
 * specs from the calibration file) against every usable manufacturer PCF.
 *   (1) embodied: production + transport + end of life vs gwp_total x (1 - gwp_use_ratio)
 *   (2) total with the manufacturer's own lifetime and use location (grid factor from @tgwf/co2)
 *   (3) annual energy: the energy model's kWh vs the published yearly TEC (energy-fit.ts), before/after
 *   (4) servers asked by brand and name only, through the catalogue (servers.ts)
 * Prints median, 80th and 90th percentile absolute percentage error per category and overall, and the
 * cross-validated coverage of uncertainty_pct: embodied, total (use phase included) and use phase.
 * First, what the caller knows (issue 40): with specs and the release year, with specs without it,
 * by name, by name with a purchase date, and servers by name, each with its interval coverage.
 */
import { relative, resolve } from 'node:path';
import { confidenceFor, insideInterval, uncertaintyPct } from '../../src/footprint/engine/index.ts';
import type { EngineParameters } from '../../src/footprint/engine/index.ts';
import {
  CALIBRATION_PATH,
  MAIN_SUBCATEGORIES,
  REPO_ROOT,
  calibrationAvailable,
  gridFactorFor,
  loadCalibration,
  readCalibrationRecords,
} from './load.ts';
import { askByName, builtInCatalogue, nameStats, releaseToSheetLag } from './names.ts';
import type { NameStats } from './names.ts';
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
import { crossValidatedCoverage, crossValidatedTotalCoverage, residualFields, residualFitOf } from './fit.ts';
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

/**
 * The file's specs with the release year stated or withheld, on the rows that have one: held-out
 * error, and the coverage of the interval the engine states then (uncertainty parameters from the
 * other folds' held-out errors, as crossValidatedCoverage).
 */
function specsWithAndWithoutYear(
  preds: Prediction[],
  fitted: EngineParameters,
): { withYear: NameStats; withoutYear: NameStats; laptopsWithYear: number; yearCountedCoverage: number } {
  const dated = preds.filter((p) => p.embodiedApe !== null && p.prepared.row.release_year !== null);
  const inside = { with: 0, without: 0, counted: 0 };
  for (let k = 0; k < K_FOLDS; k++) {
    const params = residualFields(
      preds.filter((p) => p.embodiedApe !== null && p.prepared.fold !== k),
      fitted,
    );
    for (const p of dated.filter((q) => q.prepared.fold === k)) {
      const count = p.prepared.row.supplied_spec_count;
      const u = (yearKnown: boolean, level = confidenceFor(count, false)) =>
        uncertaintyPct(params, residualFitOf(params, p, p.brandKnown, yearKnown), level, 1, 0, false);
      if (insideInterval(p.embodied, p.prepared.row.embodied!, u(true))) inside.with++;
      // the alternative: the stated year counted as one more known fact for the confidence level
      if (insideInterval(p.embodied, p.prepared.row.embodied!, u(true, confidenceFor(count + 1, false)))) inside.counted++;
      if (insideInterval(p.embodiedNoYear, p.prepared.row.embodied!, u(false))) inside.without++;
    }
  }
  const of = (apes: number[], covered: number): NameStats => ({
    n: apes.length,
    median: median(apes),
    p80: stats(apes).p80,
    coverage: (100 * covered) / Math.max(apes.length, 1),
  });
  return {
    withYear: of(
      dated.map((p) => p.embodiedApe!),
      inside.with,
    ),
    withoutYear: of(
      dated.map((p) => p.embodiedApeNoYear!),
      inside.without,
    ),
    yearCountedCoverage: (100 * inside.counted) / Math.max(dated.length, 1),
    laptopsWithYear: median(dated.filter((p) => p.prepared.row.source_subcategory === 'Laptop').map((p) => p.embodiedApe!)),
  };
}

function knownTable(lines: [string, NameStats][]): string {
  const head = `${'what the caller gives'.padEnd(40)} | ${'n'.padStart(3)} ${'med'.padStart(5)} ${'p80'.padStart(5)} | coverage`;
  const rows = lines.map(
    ([label, s]) => `${label.padEnd(40)} | ${String(s.n).padStart(3)} ${f(s.median)} ${f(s.p80)} | ${s.coverage.toFixed(1).padStart(5)}%`,
  );
  return [head, '-'.repeat(head.length), ...rows].join('\n');
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
  // What the caller knows: specs and year, specs alone, a name, a name and a purchase date.
  const catalogue = await builtInCatalogue();
  const records = readCalibrationRecords();
  const heldOut = Array.from({ length: K_FOLDS }, (_, k) =>
    fitParameters(
      prepared.filter((p) => p.fold !== k),
      base,
    ),
  );
  const byName = await askByName(catalogue, records, prepared, heldOut, {});
  const byNameBought = await askByName(catalogue, records, prepared, heldOut, { boughtYearsAfterSheet: 0 });
  const byNameBoughtLater = await askByName(catalogue, records, prepared, heldOut, { boughtYearsAfterSheet: 1 });
  const specs = specsWithAndWithoutYear(preds, inSample);
  const lag = await releaseToSheetLag(catalogue, records);
  console.log(`Calibration set: ${relative(REPO_ROOT, CALIBRATION_PATH)} (relative to the repository root)`);
  console.log(
    `${rows.length + excluded.length} rows; ${rows.length} mapped to a category; ${rows.filter((r) => r.embodied !== null).length} with a use ratio (embodied); ${rows.filter((r) => r.lifetime !== null).length} with a lifetime (total); ${excluded.length} excluded (${[...new Set(excluded.map((e) => e.subcategory || '?'))].join(', ')}).`,
  );
  console.log(`${K_FOLDS}-fold cross-validation (folds by PCF document); parametric estimate, specs from the file, no catalogue.\n`);
  console.log(
    `What the caller knows (embodied APE %, cross-validated; coverage: published values inside the stated ~80% interval, target ${COVERAGE_TARGET_PCT} +/- 5):`,
  );
  console.log(
    knownTable([
      ['specs and release year (rows with a year)', specs.withYear],
      ['specs, release year withheld', specs.withoutYear],
      ['name only', nameStats(byName)],
      ['name and purchase date (the sheet date)', nameStats(byNameBought)],
      ['name and purchase date a year later', nameStats(byNameBoughtLater)],
      ['servers by name', nameStats(byName.filter((a) => a.row.source_subcategory === 'Server'))],
    ]),
  );
  const estimated = byNameBought.filter((a) => a.yearBasis === 'purchase_date');
  const estimatedLater = byNameBoughtLater.filter((a) => a.yearBasis === 'purchase_date');
  console.log(
    `laptops with specs and release year: median ${specs.laptopsWithYear.toFixed(1)}%; names whose year the purchase date gave (none from the catalogue or the model number): ${estimated.length}, median ${nameStats(estimated).median.toFixed(1)}%, coverage ${nameStats(estimated).coverage.toFixed(1)}% (asked by name only: median ${nameStats(byName.filter((a) => estimated.some((e) => e.row.index === a.row.index))).median.toFixed(1)}%; bought a year after the sheet: median ${nameStats(estimatedLater).median.toFixed(1)}%, coverage ${nameStats(estimatedLater).coverage.toFixed(1)}%)`,
  );
  console.log(
    `specs and release year, the year counted as one more known spec for the confidence level (not done): coverage ${specs.yearCountedCoverage.toFixed(1)}%`,
  );
  console.log(
    `release year -> sheet date over ${lag.n} names resolved to one catalogue device with a year: median ${lag.median} years; at the median ${lag.atMedian.toFixed(0)}%, within 1 year ${lag.within1.toFixed(0)}%, within 2 ${lag.within2.toFixed(0)}% (PURCHASE_LAG_YEARS, src/footprint/release-year.ts)`,
  );
  console.log(
    'Names use the shipped uncertainty parameters for the stated interval (fitted on every row) with held-out estimates, as test/calibration-names.test.ts.\n',
  );
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
