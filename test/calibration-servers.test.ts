/**
 * Servers asked by name (issue 40.3), against the calibration set (manufacturer PCFs,
 * ../shared/calibration/manufacturer-pcf.csv; nothing of it is copied into the project, and without
 * it the test skips): the server categories' sheet configuration is the one the set's server sheets
 * state, and servers asked by brand and name only come within the issue's targets, cross-validated.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCalibration, readCalibrationRecords } from '../scripts/calibration/load.ts';
import { CALIBRATION_FILE, calibrationSetPresent } from './support/calibration-set.ts';
import { builtInCatalogue } from '../scripts/calibration/names.ts';
import { prepare } from '../scripts/calibration/model.ts';
import { SERVER_CATEGORIES, formatServersByName, serversByName, sheetConfiguration, sheetYearLag } from '../scripts/calibration/servers.ts';
import { getCategory } from '../src/footprint/engine/categories.ts';

const present = calibrationSetPresent('calibration-servers.test', 'the servers-by-name measurement');

/**
 * Measured 2026-11-29 (33 server sheets, 21 found in the catalogue): with the catalogue's typical
 * configurations (64 GB and more, SSDs) median 33.0 %, p80 89.3 %, coverage 60.6 %; with the sheets'
 * configuration 21.3 %, 46.6 %, 84.8 %; and with a server's release year moved by the sheets' lag
 * (engine 4.10.0) 19.8 %, 43.2 %, 78.8 %; refitted with engine 4.11.0 19.8 %, 46.3 %, 78.8 % (docs/methodology.md
 * sections 2, 3.4 and 12.3). The issue's
 * target, a median of 20 %, is the bound.
 */
const MAX_MEDIAN_APE = 20;
const COVERAGE_TARGET_PCT = 80;

describe.skipIf(!present)('servers asked by name (issue 40.3)', () => {
  // Read when the tests run: a skipped describe's body still runs to collect its tests, without the set too.
  let rows: ReturnType<typeof loadCalibration>['rows'];
  beforeAll(() => {
    ({ rows } = loadCalibration(CALIBRATION_FILE));
  });

  it("the server categories' sheet configuration is the medians of the set's server sheets", () => {
    const fitted = sheetConfiguration(rows);
    for (const id of SERVER_CATEGORIES) expect(getCategory(id)!.sheet_configuration, id).toEqual(fitted);
  });

  it("the server categories' sheet year lag is the median years from a model's release to its sheet's date", async () => {
    const { lag, n } = await sheetYearLag(await builtInCatalogue(), readCalibrationRecords(CALIBRATION_FILE), rows);
    expect(n).toBeGreaterThanOrEqual(20);
    for (const id of SERVER_CATEGORIES) expect(getCategory(id)!.sheet_year_lag, id).toBe(lag);
  }, 120_000);

  it('servers asked by brand and name only: embodied median error and interval coverage within the targets, cross-validated', async () => {
    const s = await serversByName(prepare(rows), CALIBRATION_FILE);
    console.log(formatServersByName(s));
    expect(s.n).toBeGreaterThanOrEqual(30);
    expect(s.median).toBeLessThanOrEqual(MAX_MEDIAN_APE);
    expect(Math.abs(s.coverage_pct - COVERAGE_TARGET_PCT)).toBeLessThanOrEqual(5);
  }, 600_000);
});
