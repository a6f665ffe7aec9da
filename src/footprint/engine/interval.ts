import { round2 } from './round.ts';
import type { CriterionInterval } from './types.ts';

/** The ~80 % interval of a quantity, kg CO2e. */
export interface UncertaintyInterval {
  low_kg: number;
  high_kg: number;
}

/** An interval as the API answers it, with the sentence that names its form. */
export interface StatedInterval extends UncertaintyInterval {
  method: string;
}

export const INTERVAL_METHOD = 'multiplicative (lognormal): value / (1 + u) to value x (1 + u)';

/** The interval of a sum of several results' figures (a scenario's assets), as the API states it. */
export const SUMMED_INTERVAL_METHOD = `the assets' intervals, each ${INTERVAL_METHOD}, summed bound by bound (errors taken as fully correlated)`;

/**
 * The stated interval of a non-negative quantity from its uncertainty_pct u: multiplicative, as the
 * calibration residuals are (ln-scale errors): [value / (1 + u), value x (1 + u)]. It never goes
 * below zero, whatever u is (a symmetric +/-110 % would). The API, certificates and reports all use
 * this one function (docs/methodology.md, section 8).
 */
export function uncertaintyInterval(value: number, uncertaintyPct: number): UncertaintyInterval {
  const factor = 1 + Math.max(0, uncertaintyPct) / 100;
  return { low_kg: round2(value / factor), high_kg: round2(value * factor) };
}

/** uncertaintyInterval with INTERVAL_METHOD, as the API states it. */
export function statedInterval(value: number, uncertaintyPct: number): StatedInterval {
  return { ...uncertaintyInterval(value, uncertaintyPct), method: INTERVAL_METHOD };
}

/**
 * Whether `actual` lies inside the (unrounded) interval uncertaintyInterval states around `estimate`:
 * |ln(actual / estimate)| <= ln(1 + u). The calibration's coverage of uncertainty_pct is measured with it.
 */
export function insideInterval(estimate: number, actual: number, uncertaintyPct: number): boolean {
  return Math.abs(Math.log(actual / estimate)) <= Math.log(1 + Math.max(0, uncertaintyPct) / 100);
}

/**
 * The multiplicative error of an estimate, percent: the smallest uncertainty_pct whose interval
 * around `estimate` contains `actual` ((larger / smaller - 1) x 100). The calibration fits the
 * confidence multipliers on it, so that a level's interval covers its target share.
 */
export function intervalErrorPct(estimate: number, actual: number): number {
  return (Math.exp(Math.abs(Math.log(actual / estimate))) - 1) * 100;
}

/**
 * statedInterval for a figure in any unit, rounded by `round`. A negative figure (net savings that
 * turned into a cost) keeps the same relative width, low below high.
 */
export function criterionInterval(value: number, uncertaintyPct: number, round: (v: number) => number): CriterionInterval {
  const factor = 1 + Math.max(0, uncertaintyPct) / 100;
  const a = value / factor;
  const b = value * factor;
  return { low: round(Math.min(a, b)), high: round(Math.max(a, b)), method: INTERVAL_METHOD };
}
