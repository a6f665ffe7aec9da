/**
 * Reuse savings (spec 2.4): keeping a device for `remaining_years` instead of buying a new one
 * avoids the new device's production and transport, and costs the extra electricity of the
 * older device over that period (OLD_DEVICE_ENERGY_PENALTY of its annual consumption).
 * End of life is deferred, not avoided, so it does not enter the balance.
 */
import { CAR_KG_PER_KM, ENGINE_VERSION, OLD_DEVICE_ENERGY_PENALTY, TREE_KG_PER_YEAR } from './constants.ts';
import { additionalUseImpact, derivedCriteria, electricityFactor } from './impacts.ts';
import { roundSavings } from './rounding.ts';
import type { SavingsInput, SavingsResult } from './types.ts';

/** Unrounded equivalents of an avoided mass (never negative); rounded with the result they belong to. */
export function equivalents(avoidedKg: number): { km_driving_avoided: number; trees_year_equivalent: number } {
  const kg = Math.max(0, avoidedKg);
  return { km_driving_avoided: kg / CAR_KG_PER_KM, trees_year_equivalent: kg / TREE_KG_PER_YEAR };
}

/**
 * Use phase of a device kept (or bought refurbished) for `years`, against a new equivalent: the
 * one formula /savings and /refurbishment share, so both answer the same extra electricity.
 */
export function reuseUsePhase(annualKwh: number, years: number, grid: number): { new_kg: number; old_kg: number; additional_kg: number } {
  return {
    new_kg: annualKwh * years * grid,
    old_kg: annualKwh * (1 + OLD_DEVICE_ENERGY_PENALTY) * years * grid,
    additional_kg: annualKwh * OLD_DEVICE_ENERGY_PENALTY * years * grid,
  };
}

/** Savings as the API answers them: savingsModel, rounded once (rounding.ts). */
export function calculateSavings(input: SavingsInput): SavingsResult {
  return roundSavings(savingsModel(input));
}

/** Savings with unrounded figures; pass the unrounded footprint (footprintModel) to round only once. */
export function savingsModel(input: SavingsInput): SavingsResult {
  const years = Math.max(0, input.remaining_years);
  const grid = Math.max(0, input.grid_factor_kg_per_kwh);
  const f = input.footprint;
  const use = reuseUsePhase(f.annual_kwh, years, grid);
  const avoided = f.breakdown.production_kg + f.breakdown.transport_kg - use.additional_kg;
  const result: SavingsResult = {
    remaining_life_years: years,
    avoided_co2_kg: avoided,
    avoided_production_kg: f.breakdown.production_kg,
    avoided_transport_kg: f.breakdown.transport_kg,
    additional_use_phase_kg: use.additional_kg,
    equivalents: equivalents(avoided),
    old_device_use_phase_kg: use.old_kg,
    old_device_energy_penalty: OLD_DEVICE_ENERGY_PENALTY,
    engine_version: ENGINE_VERSION,
  };
  const fi = f.impacts;
  if (fi) {
    result.impacts = derivedCriteria(fi, (c) => ({
      production: fi[c].phases.production,
      transport: fi[c].phases.transport,
      use: -(c === 'gwp' ? use.additional_kg : additionalUseImpact(f.annual_kwh, years, electricityFactor(fi.electricity, c))),
      end_of_life: 0,
    }));
  }
  return result;
}
