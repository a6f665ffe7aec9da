import { invalidParameter } from '../errors/api-error.ts';
import { closestRegionCodes, normaliseRegionCode } from './grid-data.ts';
import type { ReferenceStore } from './store.ts';

/** A region code the engine has a grid factor for, normalised (nl -> NL), or a 400 naming `field` with the closest codes. */
export function checkRegionCode(reference: Pick<ReferenceStore, 'gridFactor'>, input: string, field: string): string {
  const code = normaliseRegionCode(input);
  if (!code || !reference.gridFactor(code)) {
    throw invalidParameter(field, `unknown region code '${input.trim()}'; closest valid codes: ${closestRegionCodes(input, 3).join(', ')}`);
  }
  return code;
}
