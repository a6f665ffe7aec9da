import { describe, expect, it } from 'vitest';
import {
  CATEGORIES,
  calculateFootprint,
  calculateRefurbishment,
  calculateSavings,
  footprintModel,
  roundFootprint,
  roundTo,
} from './index.ts';

describe('rounding once, at the edge', () => {
  it('roundTo rounds halves up despite binary representation', () => {
    expect(roundTo(2.565, 2)).toBe(2.57);
    expect(roundTo(1.005, 2)).toBe(1.01);
    expect(roundTo(12.25, 1)).toBe(12.3);
    expect(roundTo(1234.5, 0)).toBe(1235);
  });

  it('calculateFootprint is footprintModel rounded, with the same key order', () => {
    const input = {
      category: CATEGORIES.find((c) => c.id === 'laptop')!,
      specs: { ram_gb: 16 },
      supplied_spec_count: 1,
      grid_factor_kg_per_kwh: 0.38,
      use_region: 'DE',
    };
    const rounded = calculateFootprint(input);
    expect(rounded).toEqual(roundFootprint(footprintModel(input)));
    expect(Object.keys(rounded)).toEqual(Object.keys(footprintModel(input)));
  });

  it('savings and refurbishment from the unrounded footprint agree on every shared figure', () => {
    let checked = 0;
    for (const category of CATEGORIES) {
      for (const grid of [0.1, 0.213, 0.3, 0.38355, 0.5, 0.7]) {
        const f = footprintModel({ category, specs: {}, supplied_spec_count: 0, grid_factor_kg_per_kwh: grid, use_region: 'DE' });
        for (const years of [1, 2, 3, 5]) {
          const s = calculateSavings({ footprint: f, remaining_years: years, grid_factor_kg_per_kwh: grid });
          const r = calculateRefurbishment({
            footprint: f,
            category,
            specs: {},
            grade: 'B',
            swaps: [],
            remaining_years: years,
            reuse_grid_factor_kg_per_kwh: grid,
          });
          expect(r.adjusted_use_phase.additional_use_phase_kg).toBe(s.additional_use_phase_kg);
          expect(r.adjusted_use_phase.refurbished_use_phase_kg).toBe(s.old_device_use_phase_kg);
          expect(r.new_device.production_kg).toBe(s.avoided_production_kg);
          expect(r.new_device.transport_kg).toBe(s.avoided_transport_kg);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});
