import { round2 } from './rounding.ts';

/** The ~80 % interval of a quantity, kg CO2e; `method` names the form for documents and docs. */
export interface UncertaintyInterval {
  low_kg: number;
  high_kg: number;
}

export const INTERVAL_METHOD = 'multiplicative (lognormal): value / (1 + u) to value x (1 + u)';

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
