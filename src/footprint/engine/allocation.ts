/**
 * Allocation of whole-life figures to a duration (docs/methodology.md, "Allocation over a duration").
 *
 * Embodied phases (production, transport, end of life) are allocated linearly: duration / lifetime
 * of them. The use phase is the annual use for the duration; as a whole-life use phase is annual
 * use x lifetime, that is the same share of it. `per_year` is a duration of one year: embodied /
 * lifetime + one year of use. Every figure of a lifecycle breakdown, of any criterion (GWP, ADPe,
 * PE), is allocated by these functions from its whole-life value; the uncertainty_pct and the
 * confidence do not change, so an interval's bounds scale with the figure they bound.
 */
import type { Criterion, CriteriaResult, CriterionResult, FootprintResult, RefurbishmentResult, SavingsResult } from './types.ts';
import { equivalents } from './savings.ts';
import { CRITERIA, criterionResult } from './impacts.ts';

/** The longest duration a caller may ask for, years (beyond every category's lifetime). */
export const DURATION_YEARS_MAX = 50;

/** What the caller asked for: neither (whole life), a duration, or per year. */
export interface AllocationRequest {
  duration_years?: number | null;
  per_year?: boolean | null;
}

/** How whole-life figures were allocated, as the answer states it. */
export interface Allocation {
  method: 'duration' | 'per_year';
  /** the years the figures cover: the requested duration, or 1 for per_year */
  duration_years: number;
  /** the device's lifetime the embodied phases are spread over */
  lifetime_years: number;
  /** duration_years / lifetime_years: the share of each whole-life figure */
  share: number;
}

/** The allocation a request asks for, or null for whole-life figures. The request is validated (checkAllocation) before. */
export function allocationOf(request: AllocationRequest, lifetimeYears: number): Allocation | null {
  const years = request.per_year ? 1 : request.duration_years;
  if (years === undefined || years === null) return null;
  return {
    method: request.per_year ? 'per_year' : 'duration',
    duration_years: years,
    lifetime_years: lifetimeYears,
    share: years / lifetimeYears,
  };
}

/**
 * Problems of an allocation request against the lifetime of the device (and, for savings and
 * refurbishment, the years of reuse): a duration beyond the lifetime would attribute more than the
 * device's embodied impacts, and a duration beyond the reuse more than its reuse.
 */
export function allocationProblems(
  request: AllocationRequest,
  lifetimeYears: number,
  reuse?: { remaining_years: number },
): { field: string; reason: string }[] {
  const problems: { field: string; reason: string }[] = [];
  const duration = request.duration_years;
  if (request.per_year && duration !== undefined && duration !== null) {
    problems.push({ field: 'per_year', reason: 'cannot be combined with duration_years (per_year is a duration of one year)' });
  }
  if (duration !== undefined && duration !== null) {
    if (duration > lifetimeYears) {
      problems.push({
        field: 'duration_years',
        reason: `must be at most the device's lifetime, ${lifetimeYears} years, got ${duration} (omit it for whole-life figures)`,
      });
    }
    if (reuse && duration > reuse.remaining_years) {
      problems.push({
        field: 'duration_years',
        reason: `must be at most remaining_years, ${reuse.remaining_years}, got ${duration}`,
      });
    }
  }
  if (request.per_year && reuse && !(reuse.remaining_years > 0)) {
    problems.push({ field: 'per_year', reason: 'needs remaining_years above 0 (no year of reuse to state)' });
  }
  return problems;
}

/** A whole-life figure (any phase, total or interval bound of any criterion) allocated; unchanged without an allocation. */
export function allocated(wholeLife: number, allocation: Allocation | null): number {
  return allocation ? wholeLife * allocation.share : wholeLife;
}

/**
 * Every figure of a whole-life record allocated: the phases of a breakdown (embodied ones by
 * duration / lifetime, the use phase as annual use x duration, which is the same share), its
 * total, its interval's bounds or its components.
 */
export function allocateFigures<T extends { [K in keyof T]: number }>(figures: T, allocation: Allocation | null): T {
  if (!allocation) return figures;
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries<number>(figures)) out[key] = allocated(value, allocation);
  return out as T;
}

/** A footprint allocated: its total, phases, embodied figure and production components (annual_kwh and lifetime_years stay). */
export function allocateFootprint(f: FootprintResult, allocation: Allocation | null): FootprintResult {
  if (!allocation) return f;
  const out: FootprintResult = {
    ...f,
    total_kg_co2e: allocated(f.total_kg_co2e, allocation),
    breakdown: allocateFigures(f.breakdown, allocation),
    production_components: allocateFigures(f.production_components, allocation),
  };
  if (f.embodied_kg !== undefined) out.embodied_kg = allocated(f.embodied_kg, allocation);
  if (f.impacts) {
    const impacts = { ...f.impacts };
    for (const c of CRITERIA) impacts[c] = allocatedCriterion(c, f.impacts[c], (phase) => allocated(phase, allocation));
    out.impacts = impacts;
  }
  return out;
}

/** One criterion's result with its phases mapped, total and interval recomputed, production components scaled with production. */
function allocatedCriterion(
  c: Criterion,
  r: CriterionResult,
  phaseOf: (value: number, phase: keyof CriterionResult['phases']) => number,
): CriterionResult {
  const phases = {
    production: phaseOf(r.phases.production, 'production'),
    transport: phaseOf(r.phases.transport, 'transport'),
    use: phaseOf(r.phases.use, 'use'),
    end_of_life: phaseOf(r.phases.end_of_life, 'end_of_life'),
  };
  const out = criterionResult(c, phases, r.uncertainty_pct, r.confidence, r.sources, r.notes);
  if (r.production_components) {
    const scale = r.phases.production === 0 ? 0 : phases.production / r.phases.production;
    out.production_components = Object.fromEntries(Object.entries(r.production_components).map(([k, v]) => [k, v * scale]));
  }
  return out;
}

/**
 * The avoided impacts of a reuse allocated, every criterion alike: of production and transport, the new
 * device's figure by duration / its lifetime less what the reuse costs (the whole-life difference)
 * over the reuse years it serves; the use phase (the older device's extra electricity) for the duration.
 */
function allocatedAvoided(avoided: CriteriaResult, newDevice: CriteriaResult, share: number, reuse: number): CriteriaResult {
  const out = { ...avoided };
  for (const c of CRITERIA) {
    const whole = newDevice[c].phases;
    out[c] = allocatedCriterion(c, avoided[c], (value, phase) => {
      if (phase === 'use') return value * reuse;
      // a reuse avoids no end of life (docs/methodology.md section 9): nothing of it to allocate
      if (phase === 'end_of_life') return value * share;
      return whole[phase] * share - (whole[phase] - value) * reuse;
    });
  }
  return out;
}

/**
 * Savings allocated: the avoided production and transport of the new device by duration / its
 * lifetime, the extra electricity of the kept device for the duration (of the remaining_years it
 * was computed for; remaining_years > 0, checked by allocationProblems).
 */
export function allocateSavings(s: SavingsResult, allocation: Allocation | null, newDevice?: CriteriaResult): SavingsResult {
  if (!allocation) return s;
  const reuse = allocation.duration_years / s.remaining_life_years;
  const production = allocated(s.avoided_production_kg, allocation);
  const transport = allocated(s.avoided_transport_kg, allocation);
  const additional = s.additional_use_phase_kg * reuse;
  const avoided = production + transport - additional;
  return {
    ...s,
    avoided_co2_kg: avoided,
    avoided_production_kg: production,
    avoided_transport_kg: transport,
    additional_use_phase_kg: additional,
    equivalents: equivalents(avoided),
    old_device_use_phase_kg: s.old_device_use_phase_kg * reuse,
    ...(s.impacts && newDevice ? { impacts: allocatedAvoided(s.impacts, newDevice, allocation.share, reuse) } : {}),
  };
}

/**
 * A refurbishment allocated: the new device's avoided embodied figures (and its production
 * heatmap) by duration / its lifetime; the refurbishment's overhead and swaps over the years of
 * reuse they serve (duration / remaining_years), the use phase for the duration.
 * break_even_years is a time, not an amount: it stays the whole-life one.
 */
export function allocateRefurbishment(
  r: RefurbishmentResult,
  allocation: Allocation | null,
  newDevice?: CriteriaResult,
): RefurbishmentResult {
  if (!allocation) return r;
  const reuse = allocation.duration_years / r.remaining_life_years;
  const overhead = { ...r.overhead };
  for (const key of Object.keys(overhead) as (keyof typeof overhead)[]) overhead[key] *= reuse;
  const gross = allocated(r.gross_avoided_kg, allocation);
  const refurbishment = r.refurbishment_total_kg * reuse;
  const u = r.adjusted_use_phase;
  const additional = u.additional_use_phase_kg * reuse;
  const net = gross - refurbishment - additional;
  return {
    ...r,
    overhead,
    swaps: r.swaps.map((s) => ({ ...s, production_kg: s.production_kg * reuse })),
    swaps_total_kg: r.swaps_total_kg * reuse,
    refurbishment_total_kg: refurbishment,
    new_device: allocateFigures(r.new_device, allocation),
    adjusted_use_phase: {
      ...u,
      refurbished_use_phase_kg: u.refurbished_use_phase_kg * reuse,
      new_device_use_phase_kg: u.new_device_use_phase_kg * reuse,
      additional_use_phase_kg: additional,
    },
    gross_avoided_kg: gross,
    net_savings_kg: net,
    net_savings_pct: gross > 0 ? (net / gross) * 100 : 0,
    production_heatmap: r.production_heatmap.map((h) => ({ ...h, kg: allocated(h.kg, allocation) })),
    equivalents: equivalents(net),
    ...(r.impacts && newDevice ? { impacts: allocatedAvoided(r.impacts, newDevice, allocation.share, reuse) } : {}),
  };
}
