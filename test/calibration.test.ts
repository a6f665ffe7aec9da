/**
 * Calibration accuracy of the parametric engine against the shared manufacturer PCF set.
 * The set lives outside the repository (../shared/calibration/manufacturer-pcf.csv from the repo
 * root); in a clone without it the accuracy tests skip with a warning.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EngineParameters } from '../src/footprint/engine/parameters.ts';
import { loadCalibration, mapCategory, parseStorage, gridFactorFor } from '../scripts/calibration/load.ts';
import { CALIBRATION_FILE, calibrationSetPresent } from './support/calibration-set.ts';
import type { LoadResult } from '../scripts/calibration/load.ts';
import {
  COVERAGE_TARGET_PCT,
  ESTIMATE_LEVELS,
  crossValidate,
  defaultParameters,
  fitParameters,
  logLogSlope,
  prepare,
  stats,
} from '../scripts/calibration/model.ts';
import { getCategory } from '../src/footprint/engine/categories.ts';
import type { Prediction } from '../scripts/calibration/model.ts';
import { crossValidatedCoverage, crossValidatedTotalCoverage, fitTotalInterval } from '../scripts/calibration/fit.ts';
import { crossValidateEnergy, energyRows } from '../scripts/calibration/energy-fit.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const present = calibrationSetPresent('calibration.test', 'the calibration accuracy tests');

/**
 * Cross-validated median embodied APE (%) per main category, measured with `npm run accuracy`
 * (engine 4.5.0, brand and release year supplied: laptops 11.4, desktops 9.6, monitors 7.5,
 * smartphones 11.9, tablets 19.4, servers 8.7, all rows 10.3 / p80 29.7; engine 4.4.0: 11.6, 8.6, 7.7,
 * 11.9, 23.5, 6.2, 10.5 / 30.3; engine 4.1.0: 12.5, 9.4, 6.8, 12.2, 21.7, 8.4, 10.8 / 30.4), plus a
 * small margin.
 */
const MAX_MEDIAN_EMBODIED_APE: Record<string, number> = {
  Laptop: 13.5,
  Desktop: 10.5,
  Monitor: 8.5,
  Smartphone: 14,
  Tablet: 24,
  Server: 10.5,
};
const MAX_OVERALL_MEDIAN = 12;
const MAX_OVERALL_P80 = 33;
/** the cross-validation (with its inner lambda search) and a fresh fit take about a minute */
const SLOW_MS = 300_000;

describe('calibration loader helpers', () => {
  it('parses storage fields of the sheets', () => {
    expect(parseStorage('SSD 256GB')).toEqual({ gb: 256, type: 'ssd' });
    expect(parseStorage('64GB SSD')).toEqual({ gb: 64, type: 'ssd' });
    expect(parseStorage('1TB')).toEqual({ gb: 1000 });
    expect(parseStorage('SSD 1.5TB')).toEqual({ gb: 1500, type: 'ssd' });
    expect(parseStorage('x2 1TB 3.5in HDD')).toEqual({ gb: 2000, type: 'hdd' });
    expect(parseStorage('x4 1TB 2.5in HDD   x2 300GB 2.5in HDD')).toEqual({ gb: 4600, type: 'hdd' });
    expect(parseStorage('300 Go')).toEqual({ gb: 300 });
    expect(parseStorage('1 SSD')).toEqual({ type: 'ssd' });
    expect(parseStorage('26ppm')).toEqual({});
    expect(parseStorage('')).toEqual({});
  });

  it('maps sheet subcategories and specs to engine categories', () => {
    expect(mapCategory('Laptop', { weight_kg: 1.4 }, '')).toBe('laptop');
    expect(mapCategory('Laptop', { weight_kg: 2.9 }, '')).toBe('mobile_workstation');
    expect(mapCategory('Desktop', { screen_size_inch: 24, weight_kg: 8 }, '')).toBe('all_in_one');
    expect(mapCategory('Desktop', { screen_size_inch: 14, weight_kg: 1.5 }, '')).toBe('laptop');
    expect(mapCategory('Desktop', { weight_kg: 1.4 }, '')).toBe('mini_pc');
    expect(mapCategory('Desktop', { weight_kg: 22 }, '')).toBe('workstation');
    expect(mapCategory('Desktop', {}, '')).toBe('desktop');
    expect(mapCategory('Server', {}, 'Blade')).toBe('blade_server');
    expect(mapCategory('Printer', {}, 'Laser Multi Couleur')).toBe('multifunction_printer');
    expect(mapCategory('IoT', {}, '')).toBeNull();
    // a notebook form the subcategories lack, as its name's words state it; other words do not move a sheet
    expect(mapCategory('Laptop', { weight_kg: 1.3 }, '', 'HP Chromebook 14b')).toBe('chromebook');
    expect(mapCategory('Laptop', { weight_kg: 1.6 }, '', 'Latitude 7410 2-in-1 Chromebook Enterprise')).toBe('chromebook');
    expect(mapCategory('Laptop', { weight_kg: 1.4 }, '', 'Inspiron 14 7420 2-in-1')).toBe('convertible');
    expect(mapCategory('Desktop', { screen_size_inch: 14, weight_kg: 1.5 }, '', 'Yoga 7 14 2-in-1')).toBe('convertible');
    expect(mapCategory('Laptop', { weight_kg: 2.9 }, '', 'Precision 7780 Mobile Workstation')).toBe('mobile_workstation');
    expect(mapCategory('Desktop', { weight_kg: 5 }, '', 'ThinkCentre M70t Tiny')).toBe('desktop');
  });
});

describe.skipIf(!present)('calibration against manufacturer PCFs (5-fold cross-validation)', () => {
  let loaded: LoadResult;
  let preds: Prediction[];

  beforeAll(() => {
    loaded = loadCalibration(CALIBRATION_FILE);
    preds = crossValidate(prepare(loaded.rows), defaultParameters());
  }, SLOW_MS);

  it('maps use locations to @tgwf/co2 grid factors', () => {
    expect(gridFactorFor('EU').factor).toBeCloseTo(0.213, 2);
    expect(gridFactorFor('WW').factor).toBeCloseTo(0.473, 2);
    expect(gridFactorFor('Worldwide').factor).toBe(gridFactorFor('WW').factor);
    expect(gridFactorFor('US').factor).toBeCloseTo(0.384, 2);
    expect(gridFactorFor('North America').key).toBe('NORTH AMERICA');
    expect(gridFactorFor('').assumed).toBe(true);
  });

  it('loads most rows', () => {
    expect(loaded.rows.length).toBeGreaterThan(700);
    expect(loaded.rows.filter((r) => r.embodied !== null).length).toBeGreaterThan(650);
  });

  it.each(Object.entries(MAX_MEDIAN_EMBODIED_APE))('median embodied error for %s stays below %d%%', (sub, max) => {
    const ape = preds
      .filter((p) => p.prepared.row.source_subcategory === sub)
      .map((p) => p.embodiedApe)
      .filter((v): v is number => v !== null);
    expect(ape.length).toBeGreaterThan(10);
    expect(stats(ape).p50).toBeLessThan(max);
  });

  it("the sheets' weights grow with the screen as the engine assumes for an unstated weight (area, exponent 2)", () => {
    // measured 2026-11-28: monitors 1.81 (190 sheets), laptops 2.03
    for (const category of ['monitor', 'laptop']) {
      const points = loaded.rows
        .filter((r) => r.category_id === category && r.specs.weight_kg !== undefined && (r.specs.screen_size_inch ?? 0) > 0)
        .map((r) => ({ x: r.specs.screen_size_inch!, y: r.specs.weight_kg! }));
      expect(points.length, category).toBeGreaterThan(100);
      expect(Math.abs(logLogSlope(points) - getCategory(category)!.parameters.weight_screen_exponent!), category).toBeLessThanOrEqual(0.5);
    }
  });

  it('with specs and a stated release year: median embodied error <= 10 %, laptops <= 11 % (issue 40; 9.7 and 10.8 % with engine 4.11.0)', () => {
    const dated = preds.filter((p) => p.embodiedApe !== null && p.prepared.row.release_year !== null);
    expect(dated.length).toBeGreaterThan(650);
    expect(stats(dated.map((p) => p.embodiedApe!)).p50).toBeLessThanOrEqual(10);
    const laptops = dated.filter((p) => p.prepared.row.source_subcategory === 'Laptop').map((p) => p.embodiedApe!);
    expect(laptops.length).toBeGreaterThan(200);
    expect(stats(laptops).p50).toBeLessThanOrEqual(11);
  });

  it('overall embodied error stays below the measured level', () => {
    const s = stats(preds.map((p) => p.embodiedApe).filter((v): v is number => v !== null));
    expect(s.p50).toBeLessThan(MAX_OVERALL_MEDIAN);
    expect(s.p80).toBeLessThan(MAX_OVERALL_P80);
  });

  it('brand and release year help on held-out documents; an unknown brand falls back to the pooled level', () => {
    const withBrand = stats(preds.map((p) => p.embodiedApe).filter((v): v is number => v !== null));
    const noBrand = stats(preds.map((p) => p.embodiedApeNoBrand).filter((v): v is number => v !== null));
    expect(withBrand.p50).toBeLessThan(noBrand.p50);
    // without brand the model is the pooled group model, without year terms: no worse than the engine 4.0.0 level
    // (19.7 / 43.8; 4.3.0: 19.4 / 43.2; 4.4.0: 18.0 / 42.4)
    expect(noBrand.p50).toBeLessThan(20);
    expect(noBrand.p80).toBeLessThan(47);
    // without the release year (brand known) the reference year stands in: worse than with it
    // (engine 4.6.0: median 16.1 vs 10.3 %), which is why the interval widens then
    const noYear = stats(
      preds
        .filter((p) => p.brandKnown && p.prepared.row.release_year !== null)
        .map((p) => p.embodiedApeNoYear)
        .filter((v): v is number => v !== null),
    );
    expect(noYear.p50).toBeGreaterThan(withBrand.p50);
  });

  it('the interval uncertainty_pct states covers 80% +/- 5 of held-out manufacturer values per confidence level', () => {
    // measured 2026-11-25 (engine 4.1.0, multipliers 0.65 / 0.92 / 1.28): high 78.1% (n 32), medium 81.9% (n 872),
    // low 79.3% (n 907), all 80.5%, brand withheld 75.9% (n 711). 2026-11-28 (engine 4.6.0, multipliers 0.6 / 0.92 /
    // 1.24, unknown-year percentiles): high 81.3, medium 82.0, low 79.4, all 80.7, brand withheld 78.5, year withheld
    // 79.5 % (n 696), all measured as error <= u. 2026-11-29 (engine 4.7.0), inside the stated interval value / (1 + u)
    // to value x (1 + u) (the 4.6.0 multipliers there: low 72.4, brand withheld 70.7, year withheld 73.9 %); multipliers
    // refitted on it, 0.66 / 1.04 / 1.66: high 84.4, medium 81.7, low 80.2, all 80.9, brand withheld 75.4, year withheld 79.0 %
    const stored = JSON.parse(readFileSync(resolve(REPO_ROOT, 'data/engine-parameters.json'), 'utf8')) as EngineParameters;
    const coverage = crossValidatedCoverage(preds, stored);
    for (const level of ESTIMATE_LEVELS) {
      expect(coverage[level].n, level).toBeGreaterThan(20);
      expect(Math.abs(coverage[level].covered_pct - COVERAGE_TARGET_PCT), `${level} ${coverage[level].covered_pct}%`).toBeLessThanOrEqual(
        5,
      );
    }
    expect(Math.abs(coverage.all.covered_pct - COVERAGE_TARGET_PCT)).toBeLessThanOrEqual(3);
    expect(Math.abs(coverage.unknown_brand.covered_pct - COVERAGE_TARGET_PCT)).toBeLessThanOrEqual(6);
    expect(coverage.unknown_year.n).toBeGreaterThan(500);
    expect(Math.abs(coverage.unknown_year.covered_pct - COVERAGE_TARGET_PCT)).toBeLessThanOrEqual(5);
  });

  it(
    'the total uncertainty_pct, use phase included, covers 80% +/- 5 of held-out manufacturer totals per confidence level',
    () => {
      // measured 2026-11-28, engine 4.4.0 (4.5.0: high 81.5, low 78.6 %, the rest alike) (npm run accuracy; 410 rows with a use share and a yearly TEC, TEC withheld,
      // use phase at the sheet's own grid factor and lifetime; every uncertainty parameter from the other folds): all
      // 80.5 %; high 77.8 % (n 27), medium 80.8 % (n 313), low 80.0 % (n 70; 75.7 % in 4.3.0, before the widening of
      // the use part). Before the use-phase multipliers and the error correlations (docs/methodology.md section 8):
      // all 82.0; high 88.9, medium 85.0, low 65.7 %. Engine 4.7.0, inside the stated interval: all 79.8 %, high 81.5,
      // medium 80.2, low 77.1 % (72.9 % with the 4.6.0 multipliers).
      const stored = JSON.parse(readFileSync(resolve(REPO_ROOT, 'data/engine-parameters.json'), 'utf8')) as EngineParameters;
      const energy = crossValidateEnergy(energyRows(prepare(loaded.rows)));
      const coverage = crossValidatedTotalCoverage(preds, energy, stored);
      expect(coverage.all.n).toBeGreaterThan(350);
      // the shipped correlations and widenings are those of the current fit (npm run calibrate)
      const refit = fitTotalInterval(preds, energy, stored);
      expect(stored.embodied_use_error_correlation).toEqual(refit.embodied_use_error_correlation);
      expect(stored.total_use_widening).toEqual(refit.total_use_widening);
      for (const level of ['all', ...ESTIMATE_LEVELS] as const) {
        expect(coverage[level].n, level).toBeGreaterThan(20);
        expect(Math.abs(coverage[level].covered_pct - COVERAGE_TARGET_PCT), `${level} ${coverage[level].covered_pct}%`).toBeLessThanOrEqual(
          5,
        );
      }
    },
    SLOW_MS,
  );

  it(
    'data/engine-parameters.json matches a fresh fit (run `npm run calibrate` after changing the model)',
    () => {
      const stored = JSON.parse(readFileSync(resolve(REPO_ROOT, 'data/engine-parameters.json'), 'utf8')) as EngineParameters;
      const fresh = fitParameters(prepare(loaded.rows), defaultParameters());
      expect(Object.keys(stored.groups).sort()).toEqual(Object.keys(fresh.groups).sort());
      for (const [g, fit] of Object.entries(fresh.groups)) {
        for (const [k, v] of Object.entries(fit.production_multipliers)) {
          expect(stored.groups[g]!.production_multipliers[k as keyof typeof fit.production_multipliers], `${g}.${k}`).toBeCloseTo(v, 2);
        }
      }
      // a term the inner cross-validation switched off has lambda Infinity, which JSON writes as null
      expect(stored.adjustments?.lambdas).toEqual(JSON.parse(JSON.stringify(fresh.adjustments?.lambdas)));
      expect(stored.confidence_multipliers.estimated_high).toBeLessThanOrEqual(stored.confidence_multipliers.estimated_medium);
      expect(stored.confidence_multipliers.estimated_medium).toBeLessThanOrEqual(stored.confidence_multipliers.estimated_low);
      for (const [b, v] of Object.entries(fresh.adjustments?.brand_offsets ?? {})) {
        expect(stored.adjustments?.brand_offsets[b], `brand ${b}`).toBeCloseTo(v, 2);
      }
      for (const [g, a] of Object.entries(fresh.adjustments?.groups ?? {})) {
        expect(stored.adjustments?.groups[g]?.year_slope, `${g} year slope`).toBeCloseTo(a.year_slope, 2);
        for (const [b, v] of Object.entries(a.brands)) {
          expect(stored.adjustments?.groups[g]?.brands[b]?.offset, `${g} ${b}`).toBeCloseTo(v.offset, 2);
        }
      }
    },
    SLOW_MS,
  );

  it('copies no calibration rows into the project data', () => {
    const names = new Set(
      readFileSync(CALIBRATION_FILE, 'utf8')
        .split('\n')
        .slice(1)
        .map((l) => l.split(',')[1]?.trim() ?? '')
        .filter((n) => n.length >= 8),
    );
    for (const file of ['data/categories.json', 'data/engine-parameters.json']) {
      const text = readFileSync(resolve(REPO_ROOT, file), 'utf8');
      const leaked = [...names].filter((n) => text.includes(n));
      expect(leaked, file).toEqual([]);
    }
  });
});
