import { existsSync } from 'node:fs';
import { CALIBRATION_PATH } from '../../scripts/calibration/load.ts';

/** The calibration set the tests read; CALIBRATION_FILE may point elsewhere (or to a missing file, to exercise the skip). */
export const CALIBRATION_FILE = process.env.CALIBRATION_FILE ?? CALIBRATION_PATH;

/** Whether the set is there; if not, says which of `testFile`'s tests skip (the set is not part of the repository). */
export function calibrationSetPresent(testFile: string, skipping: string): boolean {
  const present = existsSync(CALIBRATION_FILE);
  if (!present) console.warn(`[${testFile}] ${CALIBRATION_FILE} not found: skipping ${skipping} (the set is not part of the repository)`);
  return present;
}
