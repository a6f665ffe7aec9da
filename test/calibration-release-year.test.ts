/**
 * The lag the purchase-date rule subtracts (src/footprint/release-year.ts, docs/methodology.md
 * section 3.4) is the one the calibration set shows: years from the catalogue's release year of a
 * model to the date of its manufacturer's footprint sheet, over the names that resolve to one
 * catalogue device with a year. Without the set (../shared/calibration) the test skips.
 */
import { describe, expect, it } from 'vitest';
import { readCalibrationRecords } from '../scripts/calibration/load.ts';
import { CALIBRATION_FILE, calibrationSetPresent } from './support/calibration-set.ts';
import { builtInCatalogue, releaseToSheetLag } from '../scripts/calibration/names.ts';
import { PURCHASE_LAG_YEARS } from '../src/footprint/release-year.ts';

const present = calibrationSetPresent('calibration-release-year.test', 'the purchase-lag measurement');

describe.skipIf(!present)('release year from a purchase date (issue 40)', () => {
  it('subtracts the median lag between release and the sheets, which most models are within a year of', async () => {
    const lag = await releaseToSheetLag(await builtInCatalogue(), readCalibrationRecords(CALIBRATION_FILE));
    // 2026-11-29: 272 names, median 0, 72 % at it, 86 % within a year, 95 % within two
    expect(lag.n).toBeGreaterThan(200);
    expect(lag.median).toBe(PURCHASE_LAG_YEARS);
    expect(lag.within1).toBeGreaterThan(80);
  }, 120_000);
});
