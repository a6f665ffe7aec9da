/** Number rounding helpers (rounding.ts rounds whole engine results with them). */

/** The one rounding helper: `v` to `decimals` places (halves up; EPSILON absorbs binary representation error). */
export function roundTo(v: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round((v + Number.EPSILON) * f) / f;
}

export const round2 = (v: number): number => roundTo(v, 2);

/** `v` to `digits` significant digits: the impacts beyond carbon span 1e-9 (kg Sb eq) to 1e5 (MJ). */
export function roundSignificant(v: number, digits = 4): number {
  if (v === 0 || !Number.isFinite(v)) return v;
  return Number(v.toPrecision(digits));
}
export const round1 = (v: number): number => roundTo(v, 1);
