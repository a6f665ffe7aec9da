import { describe, expect, it } from 'vitest';
import {
  allocateFigures,
  allocateFootprint,
  allocateRefurbishment,
  allocateSavings,
  allocationOf,
  allocationProblems,
  footprintModel,
  getCategory,
  refurbishmentModel,
  savingsModel,
} from './index.ts';
import { OLD_DEVICE_ENERGY_PENALTY } from './constants.ts';

const laptop = getCategory('laptop')!;
// 20 kWh a year at 0.4 kg/kWh: 8 kg of use a year, 32 kg over the laptop's 4 years
const whole = footprintModel({
  category: laptop,
  specs: { typical_consumption_kwh: 20 },
  supplied_spec_count: 1,
  grid_factor_kg_per_kwh: 0.4,
  use_region: 'DE',
});

describe('allocationOf', () => {
  it('is null without duration_years or per_year (whole life), a share of the lifetime otherwise', () => {
    expect(allocationOf({}, 4)).toBeNull();
    expect(allocationOf({ duration_years: null, per_year: false }, 4)).toBeNull();
    expect(allocationOf({ duration_years: 2 }, 4)).toEqual({ method: 'duration', duration_years: 2, lifetime_years: 4, share: 0.5 });
    expect(allocationOf({ per_year: true }, 5)).toEqual({ method: 'per_year', duration_years: 1, lifetime_years: 5, share: 0.2 });
  });
});

describe('allocateFootprint', () => {
  it('half the lifetime: half of each embodied phase, the use phase for two years', () => {
    expect(whole.lifetime_years).toBe(4);
    const half = allocateFootprint(whole, allocationOf({ duration_years: 2 }, 4));
    const b = whole.breakdown;
    expect(half.breakdown.production_kg).toBeCloseTo(b.production_kg / 2, 10);
    expect(half.breakdown.transport_kg).toBeCloseTo(b.transport_kg / 2, 10);
    expect(half.breakdown.end_of_life_kg).toBeCloseTo(b.end_of_life_kg / 2, 10);
    expect(half.breakdown.use_phase_kg).toBeCloseTo(20 * 2 * 0.4, 10);
    expect(half.total_kg_co2e).toBeCloseTo((b.production_kg + b.transport_kg + b.end_of_life_kg) / 2 + 16, 10);
    expect(half.embodied_kg).toBeCloseTo(whole.embodied_kg! / 2, 10);
    expect(half.production_components.chassis).toBeCloseTo(whole.production_components.chassis! / 2, 10);
    // what is not an amount of the period stays
    expect([half.lifetime_years, half.annual_kwh, half.uncertainty_pct, half.confidence]).toEqual([
      whole.lifetime_years,
      whole.annual_kwh,
      whole.uncertainty_pct,
      whole.confidence,
    ]);
  });

  it('per year: embodied / lifetime + one year of use', () => {
    const year = allocateFootprint(whole, allocationOf({ per_year: true }, 4));
    expect(year.breakdown.use_phase_kg).toBeCloseTo(8, 10);
    expect(year.total_kg_co2e).toBeCloseTo(whole.embodied_kg! / 4 + 8, 10);
  });

  it('whole life without an allocation: the same object', () => {
    expect(allocateFootprint(whole, null)).toBe(whole);
  });
});

describe('allocateFigures', () => {
  it('allocates any record of whole-life figures (another criterion, interval bounds) by the same share', () => {
    const adpe = { production: 0.004, transport: 0.0001, use: 0.0008, end_of_life: 0.00002, total: 0.00492 };
    expect(allocateFigures(adpe, allocationOf({ duration_years: 1 }, 4))).toEqual({
      production: 0.001,
      transport: 0.000025,
      use: 0.0002,
      end_of_life: 0.000005,
      total: 0.00123,
    });
    expect(allocateFigures({ low_kg: 100, high_kg: 300 }, allocationOf({ duration_years: 3 }, 6))).toEqual({ low_kg: 50, high_kg: 150 });
  });
});

describe('allocationProblems', () => {
  it('refuses a duration beyond the lifetime, beyond the reuse, or per_year with a duration or without reuse', () => {
    expect(allocationProblems({ duration_years: 4 }, 4)).toEqual([]);
    expect(allocationProblems({ duration_years: 4.5 }, 4)).toEqual([
      { field: 'duration_years', reason: "must be at most the device's lifetime, 4 years, got 4.5 (omit it for whole-life figures)" },
    ]);
    expect(allocationProblems({ duration_years: 3 }, 4, { remaining_years: 2 })).toEqual([
      { field: 'duration_years', reason: 'must be at most remaining_years, 2, got 3' },
    ]);
    expect(allocationProblems({ duration_years: 1, per_year: true }, 4).map((p) => p.field)).toEqual(['per_year']);
    expect(allocationProblems({ per_year: true }, 4, { remaining_years: 0 }).map((p) => p.field)).toEqual(['per_year']);
    expect(allocationProblems({ per_year: true }, 4, { remaining_years: 0.5 })).toEqual([]);
  });
});

describe('allocateSavings and allocateRefurbishment', () => {
  const savings = savingsModel({ footprint: whole, remaining_years: 3, grid_factor_kg_per_kwh: 0.3 });

  it('savings: the new device avoided for duration / lifetime, the extra electricity for the duration', () => {
    const s = allocateSavings(savings, allocationOf({ duration_years: 2 }, 4));
    const extraPerYear = 20 * OLD_DEVICE_ENERGY_PENALTY * 0.3;
    expect(s.avoided_production_kg).toBeCloseTo(whole.breakdown.production_kg / 2, 10);
    expect(s.avoided_transport_kg).toBeCloseTo(whole.breakdown.transport_kg / 2, 10);
    expect(s.additional_use_phase_kg).toBeCloseTo(extraPerYear * 2, 10);
    expect(s.old_device_use_phase_kg).toBeCloseTo(20 * (1 + OLD_DEVICE_ENERGY_PENALTY) * 0.3 * 2, 10);
    expect(s.avoided_co2_kg).toBeCloseTo((whole.breakdown.production_kg + whole.breakdown.transport_kg) / 2 - extraPerYear * 2, 10);
    expect(s.remaining_life_years).toBe(3);
  });

  it('refurbishment: the new device by duration / lifetime, overhead, swaps and use by duration / remaining years', () => {
    const r = refurbishmentModel({
      footprint: whole,
      category: laptop,
      specs: {},
      grade: 'B',
      swaps: [{ kind: 'battery', wh: 50 }],
      remaining_years: 3,
      reuse_grid_factor_kg_per_kwh: 0.3,
    });
    const a = allocateRefurbishment(r, allocationOf({ per_year: true }, 4));
    expect(a.new_device.embodied_kg).toBeCloseTo(r.new_device.embodied_kg / 4, 10);
    expect(a.gross_avoided_kg).toBeCloseTo(r.gross_avoided_kg / 4, 10);
    expect(a.overhead.total_kg).toBeCloseTo(r.overhead.total_kg / 3, 10);
    expect(a.swaps_total_kg).toBeCloseTo(r.swaps_total_kg / 3, 10);
    expect(a.swaps[0]!.production_kg).toBeCloseTo(r.swaps[0]!.production_kg / 3, 10);
    expect(a.adjusted_use_phase.additional_use_phase_kg).toBeCloseTo(20 * OLD_DEVICE_ENERGY_PENALTY * 0.3, 10);
    expect(a.net_savings_kg).toBeCloseTo(r.gross_avoided_kg / 4 - r.refurbishment_total_kg / 3 - 20 * OLD_DEVICE_ENERGY_PENALTY * 0.3, 10);
    expect(a.production_heatmap[0]!.kg).toBeCloseTo(r.production_heatmap[0]!.kg / 4, 10);
    expect(a.production_heatmap[0]!.share_pct).toBe(r.production_heatmap[0]!.share_pct);
    expect(a.break_even_years).toBe(r.break_even_years);
  });
});
