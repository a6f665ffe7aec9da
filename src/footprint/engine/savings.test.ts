import { describe, expect, it } from 'vitest';
import { calculateFootprint, calculateSavings, getCategory } from './index.ts';
import { CAR_KG_PER_KM, OLD_DEVICE_ENERGY_PENALTY, TREE_KG_PER_YEAR } from './constants.ts';

const laptop = getCategory('laptop')!;
const fp = calculateFootprint({
  category: laptop,
  specs: { typical_consumption_kwh: 20 },
  supplied_spec_count: 1,
  grid_factor_kg_per_kwh: 0.4,
  use_region: 'DE',
});

describe('calculateSavings', () => {
  it('avoided production + transport minus the extra electricity of the old device', () => {
    const s = calculateSavings({ footprint: fp, remaining_years: 2, grid_factor_kg_per_kwh: 0.3 });
    const additional = 20 * OLD_DEVICE_ENERGY_PENALTY * 2 * 0.3;
    expect(s.remaining_life_years).toBe(2);
    expect(s.avoided_production_kg).toBe(fp.breakdown.production_kg);
    expect(s.avoided_transport_kg).toBe(fp.breakdown.transport_kg);
    expect(s.additional_use_phase_kg).toBeCloseTo(additional, 2);
    expect(s.avoided_co2_kg).toBeCloseTo(fp.breakdown.production_kg + fp.breakdown.transport_kg - additional, 1);
    expect(s.old_device_use_phase_kg).toBeCloseTo(20 * (1 + OLD_DEVICE_ENERGY_PENALTY) * 2 * 0.3, 2);
    expect(s.engine_version).toBe(fp.engine_version);
  });

  it('equivalents from the per-km car factor and the per-tree-year absorption', () => {
    const s = calculateSavings({ footprint: fp, remaining_years: 2, grid_factor_kg_per_kwh: 0.3 });
    expect(s.equivalents.km_driving_avoided).toBe(Math.round(s.avoided_co2_kg / CAR_KG_PER_KM));
    expect(s.equivalents.trees_year_equivalent).toBeCloseTo(s.avoided_co2_kg / TREE_KG_PER_YEAR, 1);
  });

  it('longer remaining life or dirtier grid erodes the savings', () => {
    const a = calculateSavings({ footprint: fp, remaining_years: 1, grid_factor_kg_per_kwh: 0.3 });
    const b = calculateSavings({ footprint: fp, remaining_years: 10, grid_factor_kg_per_kwh: 0.3 });
    const c = calculateSavings({ footprint: fp, remaining_years: 1, grid_factor_kg_per_kwh: 0.9 });
    expect(b.avoided_co2_kg).toBeLessThan(a.avoided_co2_kg);
    expect(c.avoided_co2_kg).toBeLessThan(a.avoided_co2_kg);
    expect(calculateSavings({ footprint: fp, remaining_years: 0, grid_factor_kg_per_kwh: 0.3 }).additional_use_phase_kg).toBe(0);
  });

  it('never reports negative equivalents', () => {
    const server = getCategory('server')!;
    const s = calculateSavings({
      footprint: calculateFootprint({
        category: server,
        specs: { typical_consumption_kwh: 100_000 },
        supplied_spec_count: 1,
        grid_factor_kg_per_kwh: 1,
        use_region: 'DE',
      }),
      remaining_years: 15,
      grid_factor_kg_per_kwh: 1.5,
    });
    expect(s.avoided_co2_kg).toBeLessThan(0);
    expect(s.equivalents).toEqual({ km_driving_avoided: 0, trees_year_equivalent: 0 });
  });
});
