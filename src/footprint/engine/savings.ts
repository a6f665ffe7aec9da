/**
 * Reuse savings (spec 2.4): keeping a device for `remaining_years` instead of buying a new one
 * avoids the new device's production and transport, and costs the extra electricity of the
 * older device over that period (OLD_DEVICE_ENERGY_PENALTY of its annual consumption).
 * End of life is deferred, not avoided, so it does not enter the balance.
 */
import { CAR_KG_PER_KM, ENGINE_VERSION, OLD_DEVICE_ENERGY_PENALTY, TREE_KG_PER_YEAR } from './constants.ts';
import { round1, round2 } from './footprint.ts';
import type { SavingsInput, SavingsResult } from './types.ts';

export function equivalents(avoidedKg: number): { km_driving_avoided: number; trees_year_equivalent: number } {
  const kg = Math.max(0, avoidedKg);
  return { km_driving_avoided: Math.round(kg / CAR_KG_PER_KM), trees_year_equivalent: round1(kg / TREE_KG_PER_YEAR) };
}

export function calculateSavings(input: SavingsInput): SavingsResult {
  const years = Math.max(0, input.remaining_years);
  const grid = Math.max(0, input.grid_factor_kg_per_kwh);
  const f = input.footprint;
  const oldUse = f.annual_kwh * (1 + OLD_DEVICE_ENERGY_PENALTY) * years * grid;
  const additional = f.annual_kwh * OLD_DEVICE_ENERGY_PENALTY * years * grid;
  const avoided = f.breakdown.production_kg + f.breakdown.transport_kg - additional;
  return {
    remaining_life_years: years,
    avoided_co2_kg: round2(avoided),
    avoided_production_kg: round2(f.breakdown.production_kg),
    avoided_transport_kg: round2(f.breakdown.transport_kg),
    additional_use_phase_kg: round2(additional),
    equivalents: equivalents(avoided),
    old_device_use_phase_kg: round2(oldUse),
    old_device_energy_penalty: OLD_DEVICE_ENERGY_PENALTY,
    engine_version: ENGINE_VERSION,
  };
}
