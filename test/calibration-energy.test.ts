/**
 * Cross-validated accuracy of the annual energy model (data/energy-model.json) against the yearly
 * TEC of the shared manufacturer PCF set; skips with a warning when the set is missing.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EnergyModel } from '../src/footprint/engine/energy-model.ts';
import {
  ENERGY_MODEL_PATH,
  crossValidateEnergy,
  energyAccuracy,
  energyCoverage,
  energyRows,
  energyUncertainty,
  type EnergyPrediction,
} from '../scripts/calibration/energy-fit.ts';
import { loadCalibration, readCalibrationRecords } from '../scripts/calibration/load.ts';
import { CALIBRATION_FILE, calibrationSetPresent } from './support/calibration-set.ts';
import { COVERAGE_TARGET_PCT, ESTIMATE_LEVELS, prepare } from '../scripts/calibration/model.ts';

const present = calibrationSetPresent('calibration-energy.test', 'the energy-model accuracy tests');

/**
 * Measured with `npm run calibrate:energy` (5-fold CV by PCF document, 461 rows with a yearly TEC):
 * median 23.3 % (profile) -> 14.9 % (energy model), p80 51.1 % -> 34.6 %; with engine 4.11.0's categories
 * 22.4 % -> 14.5 %, p80 49.5 % -> 34.7 %; plus a small margin.
 */
const MAX_MEDIAN_APE = 16;
const MAX_P80_APE = 37;

describe.skipIf(!present)('annual energy model vs published yearly TEC (cross-validated)', () => {
  let preds: EnergyPrediction[];
  let acc: ReturnType<typeof energyAccuracy>;
  beforeAll(() => {
    preds = crossValidateEnergy(energyRows(prepare(loadCalibration(CALIBRATION_FILE).rows)));
    acc = energyAccuracy(preds);
  });

  it(`held-out median APE <= ${MAX_MEDIAN_APE} % and p80 <= ${MAX_P80_APE} %, better than the plain profile`, () => {
    expect(acc.overall.after.n).toBeGreaterThan(400);
    expect(acc.overall.after.p50).toBeLessThanOrEqual(MAX_MEDIAN_APE);
    expect(acc.overall.after.p80).toBeLessThanOrEqual(MAX_P80_APE);
    expect(acc.overall.after.p50).toBeLessThan(acc.overall.before.p50 - 5);
    for (const id of ['laptop', 'monitor', 'desktop']) {
      const line = acc.byCategory.find((l) => l.label === id)!;
      expect(line.after.p50, id).toBeLessThan(line.before.p50);
    }
  });

  it('the use-phase uncertainty_pct covers 80% +/- 5 of held-out published TEC, overall and per confidence level', () => {
    // measured 2026-11-27 (npm run accuracy): all 79.6 % (n 461); high 81.5 % (n 27), medium 79.7 % (n 364), low 78.6 % (n 70)
    // as error <= u; 2026-11-29 inside the stated interval kWh / (1 + u) to kWh x (1 + u), multipliers refitted on it
    // (0.5 / 1.17 / 1.92): all 79.0 %, high 81.5, medium 78.8, low 78.6 % (73.8 % overall with the former multipliers)
    const coverage = energyCoverage(preds);
    expect(coverage.all.n).toBeGreaterThan(400);
    for (const level of ['all', ...ESTIMATE_LEVELS] as const) {
      expect(coverage[level].n, level).toBeGreaterThan(20);
      expect(Math.abs(coverage[level].covered_pct - COVERAGE_TARGET_PCT), `${level} ${coverage[level].covered_pct}%`).toBeLessThanOrEqual(
        5,
      );
    }
  });

  it('the shipped data/energy-model.json carries the figures of the current fit', () => {
    const shipped = JSON.parse(readFileSync(ENERGY_MODEL_PATH, 'utf8')) as EnergyModel;
    const overall = (shipped.cross_validation as { overall: { energy_model: { p50: number; p80: number } } }).overall;
    expect(overall.energy_model.p50).toBeCloseTo(acc.overall.after.p50, 0);
    expect(shipped.use_phase_uncertainty_pct.energy_model).toBeCloseTo(acc.overall.after.p80, 0);
    expect(shipped.use_phase_uncertainty_pct.profile).toBeCloseTo(acc.overall.before.p80, 0);
    expect(shipped.confidence_multipliers).toEqual(energyUncertainty(preds).multipliers);
  });

  it('data/energy-model.json holds coefficients only, no calibration rows', () => {
    const text = readFileSync(ENERGY_MODEL_PATH, 'utf8');
    const names = readCalibrationRecords(CALIBRATION_FILE)
      .map((r) => (r.name ?? '').trim())
      .filter((n) => n.length >= 8);
    expect(names.filter((n) => text.includes(n))).toEqual([]);
  });
});
