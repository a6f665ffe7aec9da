/**
 * Rounding of engine results, done once, where an answer is shaped for the API.
 *
 * The engine's *Model functions (footprintModel, savingsModel, refurbishmentModel) compute with
 * unrounded values throughout; the round* functions here turn one of their results into what the
 * API answers, rounding every figure once from its unrounded value. Results that share a quantity
 * (the savings' additional_use_phase_kg and the refurbishment's, the footprint's production and the
 * savings' avoided production) therefore always agree to the last digit.
 *
 * Precision: kg CO2e and kWh to 2 decimals; percentages, years and tree-years to 1 decimal;
 * kilometres to whole numbers. Inputs echoed back (grid factors, lifetime, remaining years,
 * specs) are not rounded.
 */
import { roundCriteria, roundImpacts } from './impacts.ts';
import { round1, round2, roundTo } from './round.ts';
import type { FootprintResult, HeatmapEntry, RefurbishmentResult, RefurbishmentSwapResult, SavingsResult } from './types.ts';

export { roundTo, round1, round2, roundSignificant } from './round.ts';

type Equivalents = SavingsResult['equivalents'];

function roundEquivalents(e: Equivalents): Equivalents {
  return { km_driving_avoided: roundTo(e.km_driving_avoided, 0), trees_year_equivalent: round1(e.trees_year_equivalent) };
}

/** A footprint as the API answers it (from footprintModel's unrounded result). */
export function roundFootprint(f: FootprintResult): FootprintResult {
  const components: Record<string, number> = {};
  for (const [c, kg] of Object.entries(f.production_components)) components[c] = round2(kg);
  const out: FootprintResult = {
    ...f,
    total_kg_co2e: round2(f.total_kg_co2e),
    breakdown: {
      production_kg: round2(f.breakdown.production_kg),
      transport_kg: round2(f.breakdown.transport_kg),
      use_phase_kg: round2(f.breakdown.use_phase_kg),
      end_of_life_kg: round2(f.breakdown.end_of_life_kg),
    },
    annual_kwh: round2(f.annual_kwh),
    production_components: components,
  };
  if (f.embodied_kg !== undefined) out.embodied_kg = round2(f.embodied_kg);
  if (f.impacts) out.impacts = roundImpacts(f.impacts);
  if (f.transport)
    out.transport = { ...f.transport, air_share: round2(f.transport.air_share), shipped_mass_kg: round2(f.transport.shipped_mass_kg) };
  return out;
}

/** Savings as the API answers them (from savingsModel's unrounded result). */
export function roundSavings(s: SavingsResult): SavingsResult {
  const out: SavingsResult = {
    ...s,
    avoided_co2_kg: round2(s.avoided_co2_kg),
    avoided_production_kg: round2(s.avoided_production_kg),
    avoided_transport_kg: round2(s.avoided_transport_kg),
    additional_use_phase_kg: round2(s.additional_use_phase_kg),
    equivalents: roundEquivalents(s.equivalents),
    old_device_use_phase_kg: round2(s.old_device_use_phase_kg),
  };
  if (s.impacts) out.impacts = roundCriteria(s.impacts);
  return out;
}

/** A refurbishment result as the API answers it (from refurbishmentModel's unrounded result). */
export function roundRefurbishment(r: RefurbishmentResult): RefurbishmentResult {
  const o = r.overhead;
  const u = r.adjusted_use_phase;
  const out: RefurbishmentResult = {
    ...r,
    overhead: {
      total_kg: round2(o.total_kg),
      cleaning_kg: round2(o.cleaning_kg),
      testing_kg: round2(o.testing_kg),
      parts_kg: round2(o.parts_kg),
      packaging_kg: round2(o.packaging_kg),
      logistics_kg: round2(o.logistics_kg),
    },
    swaps: r.swaps.map((s): RefurbishmentSwapResult => ({ ...s, production_kg: round2(s.production_kg) })),
    swaps_total_kg: round2(r.swaps_total_kg),
    refurbishment_total_kg: round2(r.refurbishment_total_kg),
    new_device: {
      production_kg: round2(r.new_device.production_kg),
      transport_kg: round2(r.new_device.transport_kg),
      embodied_kg: round2(r.new_device.embodied_kg),
    },
    adjusted_use_phase: {
      reuse_grid_factor_kg_per_kwh: u.reuse_grid_factor_kg_per_kwh,
      annual_kwh_new: round2(u.annual_kwh_new),
      annual_kwh_refurbished: round2(u.annual_kwh_refurbished),
      refurbished_use_phase_kg: round2(u.refurbished_use_phase_kg),
      new_device_use_phase_kg: round2(u.new_device_use_phase_kg),
      additional_use_phase_kg: round2(u.additional_use_phase_kg),
    },
    gross_avoided_kg: round2(r.gross_avoided_kg),
    net_savings_kg: round2(r.net_savings_kg),
    net_savings_pct: round1(r.net_savings_pct),
    break_even_years: r.break_even_years === null ? null : round1(r.break_even_years),
    production_heatmap: r.production_heatmap.map((h): HeatmapEntry => ({ ...h, kg: round2(h.kg), share_pct: round1(h.share_pct) })),
    equivalents: roundEquivalents(r.equivalents),
  };
  if (r.impacts) out.impacts = roundCriteria(r.impacts);
  return out;
}
