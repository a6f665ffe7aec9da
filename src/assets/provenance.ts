/**
 * What a stored calculation says about how it was made, read from its `result` JSON (pure).
 * The result is what the caller was answered when the calculation ran (the footprint response,
 * plus engine detail); older or foreign records may lack parts of it, and whatever is missing is
 * answered as null rather than reconstructed.
 */
import { CRITERIA, statedInterval, type StatedInterval } from '../footprint/engine/index.ts';
import type { CriteriaResult } from '../footprint/engine/types.ts';

export interface MethodologyCard {
  standard: string | null;
  engine_version: string;
  confidence: string;
  uncertainty_pct: number | null;
  /** the interval of the calculation's lifecycle total from its recorded uncertainty_pct */
  interval: StatedInterval | null;
  data_sources: string[] | null;
  lifetime_years: number | null;
  annual_kwh: number | null;
  grid_factor_kg_per_kwh: number | null;
}

interface CalculationLike {
  engine_version: string;
  confidence: string;
  country: string;
  /** the device's lifecycle total (every kind of calculation records it) */
  total_kg_co2e: number;
  result: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
const strings = (v: unknown) => (Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : null);

/** The methodology block of the result; null when the record has none. Engine version and confidence are columns of every record. */
export function methodologyCard(calc: CalculationLike): MethodologyCard | null {
  const m = isObject(calc.result) ? calc.result.methodology : undefined;
  if (!isObject(m)) return null;
  const uncertainty = num(m.uncertainty_pct);
  return {
    standard: str(m.standard),
    engine_version: str(m.engine_version) ?? calc.engine_version,
    confidence: str(m.confidence) ?? calc.confidence,
    uncertainty_pct: uncertainty,
    interval: uncertainty !== null ? statedInterval(calc.total_kg_co2e, uncertainty) : null,
    data_sources: strings(m.data_sources),
    lifetime_years: num(m.lifetime_years),
    annual_kwh: num(m.annual_kwh),
    grid_factor_kg_per_kwh: num(m.grid_factor_kg_per_kwh),
  };
}

const PHASES: [key: string, describe: (ctx: { years: number | null; country: string }) => string][] = [
  ['production_kg', () => 'production: raw materials, component manufacturing, housing, power supply and final assembly'],
  ['transport_kg', () => 'transport: from the final-assembly region to the country of use, packaging included'],
  ['use_phase_kg', ({ years, country }) => `use: electricity${years !== null ? ` over ${years} years` : ''} on the ${country} grid`],
  [
    'end_of_life_kg',
    () => 'end of life: collection, pre-treatment, shredding and incineration of residues (cut-off, no recycling credits)',
  ],
];

/**
 * The life-cycle stages the total covers: `result.boundary` when the record states one, else the
 * phases present in `result.breakdown` (cradle to grave for a footprint). Null when neither is stored.
 */
export function boundaryOf(calc: CalculationLike): string[] | null {
  if (!isObject(calc.result)) return null;
  const stated = strings(calc.result.boundary);
  if (stated) return stated;
  const breakdown = calc.result.breakdown;
  if (!isObject(breakdown)) return null;
  const m = isObject(calc.result.methodology) ? calc.result.methodology : {};
  const ctx = { years: num(m.lifetime_years), country: str(calc.result.country) ?? calc.country };
  const phases = PHASES.filter(([key]) => num(breakdown[key]) !== null).map(([, describe]) => describe(ctx));
  return phases.length ? phases : null;
}

/** The assumptions the engine reported with this result; null when the record does not carry them. */
export function assumptionsOf(calc: CalculationLike): string[] | null {
  return isObject(calc.result) ? strings(calc.result.assumptions) : null;
}

/**
 * GWP, ADPe and PE as stored with the calculation; null when the record has none (stored before them).
 * Each criterion must carry its phases and total: a record that does not is answered as none, not in part.
 */
export function impactsOf(calc: CalculationLike): CriteriaResult | null {
  const impacts = isObject(calc.result) ? calc.result.impacts : undefined;
  if (!isObject(impacts)) return null;
  const complete = CRITERIA.every((c) => {
    const criterion = impacts[c];
    return isObject(criterion) && isObject(criterion.phases) && num(criterion.total) !== null;
  });
  return complete ? (impacts as unknown as CriteriaResult) : null;
}
