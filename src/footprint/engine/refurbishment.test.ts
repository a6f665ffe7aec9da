import { describe, expect, it } from 'vitest';
import { calculateFootprint, calculateRefurbishment, getCategory, parseSwaps } from './index.ts';
import type { Grade, Swap } from './index.ts';
import { OLD_DEVICE_ENERGY_PENALTY } from './constants.ts';
import { swapProductionKg } from './refurbishment.ts';

const laptop = getCategory('laptop')!;
const specs = { weight_kg: 1.4, screen_size_inch: 14 };
const footprint = calculateFootprint({ category: laptop, specs, supplied_spec_count: 2, grid_factor_kg_per_kwh: 0.4, use_region: 'FR' });
const run = (grade: Grade, swaps: Swap[] = [], remaining_years = 3, grid = 0.2) =>
  calculateRefurbishment({ footprint, category: laptop, specs, grade, swaps, remaining_years, reuse_grid_factor_kg_per_kwh: grid });

describe('calculateRefurbishment', () => {
  it('grade A has the highest overhead, C the lowest; parts add up', () => {
    const [a, b, c] = (['A', 'B', 'C'] as const).map((g) => run(g));
    expect(a!.overhead.total_kg).toBeGreaterThan(b!.overhead.total_kg);
    expect(b!.overhead.total_kg).toBeGreaterThan(c!.overhead.total_kg);
    const o = a!.overhead;
    expect(o.cleaning_kg + o.testing_kg + o.parts_kg + o.packaging_kg + o.logistics_kg).toBeCloseTo(o.total_kg, 1);
    expect(a!.grade_label).toBe('Like New');
    expect(c!.grade_label).toBe('Fair');
  });

  it('prices each swap with the component model', () => {
    const swaps = parseSwaps('battery:56,storage:512:nvme,ram:16:2,display:14:ips,keyboard_trackpad');
    const r = run('B', swaps);
    expect(r.swaps.map((s) => s.component)).toEqual(['battery', 'storage', 'memory', 'display', 'chassis']);
    for (const [i, s] of r.swaps.entries()) {
      expect(s.production_kg).toBeGreaterThan(0);
      expect(s.production_kg).toBeCloseTo(swapProductionKg(swaps[i]!, laptop), 2);
    }
    expect(r.swaps_total_kg).toBeCloseTo(
      r.swaps.reduce((t, s) => t + s.production_kg, 0),
      1,
    );
    expect(r.refurbishment_total_kg).toBeCloseTo(r.overhead.total_kg + r.swaps_total_kg, 1);
    // a bigger display and more storage cost more
    expect(swapProductionKg({ kind: 'display', inches: 16, screen_type: 'oled' }, laptop)).toBeGreaterThan(
      swapProductionKg({ kind: 'display', inches: 13, screen_type: 'lcd' }, laptop),
    );
    // ram:<total_gb>:<modules>: 16 GB in two modules is two 8 GB modules
    expect(swapProductionKg({ kind: 'ram', total_gb: 16, modules: 2 }, laptop)).toBeCloseTo(
      2 * swapProductionKg({ kind: 'ram', total_gb: 8, modules: 1 }, laptop),
      6,
    );
    expect(swapProductionKg({ kind: 'storage', gb: 2000, storage_type: 'ssd' }, laptop)).toBeGreaterThan(
      swapProductionKg({ kind: 'storage', gb: 256, storage_type: 'ssd' }, laptop),
    );
  });

  it('adjusted use phase in the reuse country and net savings against buying new', () => {
    const r = run('B', [], 3, 0.2);
    const u = r.adjusted_use_phase;
    expect(u.reuse_grid_factor_kg_per_kwh).toBe(0.2);
    expect(u.annual_kwh_refurbished).toBeCloseTo(footprint.annual_kwh * (1 + OLD_DEVICE_ENERGY_PENALTY), 2);
    expect(u.refurbished_use_phase_kg).toBeCloseTo(u.annual_kwh_refurbished * 3 * 0.2, 1);
    expect(u.additional_use_phase_kg).toBeCloseTo(u.refurbished_use_phase_kg - u.new_device_use_phase_kg, 1);
    expect(r.new_device.embodied_kg).toBeCloseTo(footprint.breakdown.production_kg + footprint.breakdown.transport_kg, 1);
    expect(r.net_savings_kg).toBeCloseTo(r.gross_avoided_kg - r.refurbishment_total_kg - u.additional_use_phase_kg, 1);
    expect(r.net_savings_kg).toBeGreaterThan(0);
    expect(r.net_savings_pct).toBeCloseTo((r.net_savings_kg / r.gross_avoided_kg) * 100, 0);
  });

  it('break-even years: embodied margin over the extra yearly electricity', () => {
    const r = run('B', [], 3, 0.2);
    const extraPerYear = (r.adjusted_use_phase.annual_kwh_refurbished - r.adjusted_use_phase.annual_kwh_new) * 0.2;
    // Relative: the fields are rounded, and over a small extra consumption their rounding moves the quotient by tenths of a year.
    expect(r.break_even_years! / ((r.gross_avoided_kg - r.refurbishment_total_kg) / extraPerYear)).toBeCloseTo(1, 2);
    expect(run('B', [], 3, 0).break_even_years).toBeNull(); // zero-carbon grid: savings never erode
    const heavy = run('A', parseSwaps('display:17:mini_led,display:17:mini_led,display:17:mini_led,storage:20000:ssd'));
    // refurbishing already emits more than it avoids: the savings never turn positive
    expect(heavy.net_savings_kg).toBeLessThan(0);
    expect(heavy.break_even_years).toBeNull();
  });

  it('production heatmap: share of production per component, swapped flagged', () => {
    const r = run('C', parseSwaps('battery:50'));
    const total = r.production_heatmap.reduce((t, h) => t + h.share_pct, 0);
    expect(total).toBeGreaterThan(99.5);
    expect(total).toBeLessThan(100.5);
    expect(r.production_heatmap.map((h) => h.kg)).toEqual([...r.production_heatmap.map((h) => h.kg)].sort((a, b) => b - a));
    expect(r.production_heatmap.find((h) => h.component === 'battery')?.swapped).toBe(true);
    expect(r.production_heatmap.find((h) => h.component === 'display')?.swapped).toBe(false);
    expect(r.engine_version).toBe(footprint.engine_version);
  });
});
