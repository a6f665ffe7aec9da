import { describe, expect, it } from 'vitest';
import { calculateFootprint, getCategory } from '../footprint/engine/index.ts';
import { assetQuarter, summarise } from './refurbish.ts';

const laptop = getCategory('laptop')!;
const footprint = (grid: number) =>
  calculateFootprint({ category: laptop, specs: {}, supplied_spec_count: 0, grid_factor_kg_per_kwh: grid, use_region: 'DE' });

describe('assetQuarter', () => {
  it('counts the new device embodied on the buy-new side and only the refurbishment overhead on the other', () => {
    const f = footprint(0.4);
    const q = assetQuarter({ footprint: f, category: laptop, specs: {}, grid_factor_kg_per_kwh: 0.4, grade: 'B' });
    const quarterUse = f.annual_kwh * 0.25 * 0.4;
    expect(q.current_kg).toBeCloseTo(f.breakdown.production_kg + f.breakdown.transport_kg + quarterUse, 1);
    // refurbishment overhead is a few kg; the old device uses 15% more electricity
    expect(q.scenario_kg - quarterUse * 1.15).toBeGreaterThan(0);
    expect(q.scenario_kg - quarterUse * 1.15).toBeLessThan(30);
    expect(q.scenario_kg).toBeLessThan(q.current_kg);
  });

  it('has a higher overhead for grade A than C', () => {
    const f = footprint(0.4);
    const at = (grade: 'A' | 'C') =>
      assetQuarter({ footprint: f, category: laptop, specs: {}, grid_factor_kg_per_kwh: 0.4, grade }).scenario_kg;
    expect(at('A')).toBeGreaterThan(at('C'));
  });
});

describe('summarise', () => {
  it('sums, takes scenario minus current and the percentage of current', () => {
    expect(
      summarise([
        { current_kg: 100, scenario_kg: 20 },
        { current_kg: 50.005, scenario_kg: 10 },
      ]),
    ).toEqual({
      current_quarterly_co2e: 150.01,
      scenario_quarterly_co2e: 30,
      delta_kg_co2e: -120.01,
      delta_percentage: -80,
      affected_assets_count: 2,
    });
    expect(summarise([])).toEqual({
      current_quarterly_co2e: 0,
      scenario_quarterly_co2e: 0,
      delta_kg_co2e: 0,
      delta_percentage: 0,
      affected_assets_count: 0,
    });
  });
});
