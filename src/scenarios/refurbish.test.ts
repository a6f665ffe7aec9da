import { describe, expect, it } from 'vitest';
import { calculateFootprint, getCategory, refurbishmentModel } from '../footprint/engine/index.ts';
import { assetQuarter, QUARTER_YEARS, quarterIn, summarise } from './refurbish.ts';

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

  it('compares the same quarters in ADPe and PE, by the formula that gives the GWP figures', () => {
    const f = footprint(0.4);
    const input = { footprint: f, category: laptop, specs: {}, grid_factor_kg_per_kwh: 0.4, grade: 'B' as const };
    const q = assetQuarter(input);
    const r = refurbishmentModel({ ...input, swaps: [], remaining_years: QUARTER_YEARS, reuse_grid_factor_kg_per_kwh: 0.4 });
    // The formula in GWP is current_kg and scenario_kg: new production and transport + a quarter of use; minus the net savings.
    const gwp = quarterIn('gwp', f, r)!;
    // (up to the rounding of the public footprint's phases)
    expect(gwp.current).toBeCloseTo(q.current_kg, 2);
    expect(gwp.scenario).toBeCloseTo(q.scenario_kg, 2);
    for (const c of ['adpe', 'pe'] as const) {
      const i = f.impacts![c];
      const current = i.phases.production + i.phases.transport + (i.phases.use * QUARTER_YEARS) / f.lifetime_years;
      expect(q.resources![c].current, c).toBeCloseTo(current, 9);
      expect(q.resources![c].scenario, c).toBeCloseTo(current - r.impacts![c].total, 9);
      // Refurbishing avoids most of the new device's production: far less in every criterion.
      expect(q.resources![c].scenario, c).toBeLessThan(q.resources![c].current * 0.5);
      expect(q.resources![c].scenario, c).toBeGreaterThan(0);
    }
  });

  it('has a higher overhead for grade A than C', () => {
    const f = footprint(0.4);
    const at = (grade: 'A' | 'C') =>
      assetQuarter({ footprint: f, category: laptop, specs: {}, grid_factor_kg_per_kwh: 0.4, grade }).scenario_kg;
    expect(at('A')).toBeGreaterThan(at('C'));
  });
});

describe('summarise', () => {
  it('sums, takes scenario minus current and the percentage of current, in each criterion', () => {
    const resources = (adpe: [number, number], pe: [number, number]) => ({
      adpe: { current: adpe[0], scenario: adpe[1] },
      pe: { current: pe[0], scenario: pe[1] },
    });
    expect(
      summarise([
        { current_kg: 100, scenario_kg: 20, resources: resources([0.012345, 0.001], [1000, 100]) },
        { current_kg: 50.005, scenario_kg: 10, resources: resources([0.006, 0.0005], [500.04, 50]) },
      ]),
    ).toEqual({
      current_quarterly_co2e: 150.01,
      scenario_quarterly_co2e: 30,
      delta_kg_co2e: -120.01,
      delta_percentage: -80,
      affected_assets_count: 2,
      impacts: {
        gwp: { unit: 'kg CO2e', current_quarterly: 150.01, scenario_quarterly: 30, delta: -120.01, delta_percentage: -80 },
        // 4 significant digits, as the API rounds ADPe and PE
        adpe: { unit: 'kg Sb eq', current_quarterly: 0.01835, scenario_quarterly: 0.0015, delta: -0.01685, delta_percentage: -91.8 },
        pe: { unit: 'MJ', current_quarterly: 1500, scenario_quarterly: 150, delta: -1350, delta_percentage: -90 },
      },
    });
    expect(summarise([])).toEqual({
      current_quarterly_co2e: 0,
      scenario_quarterly_co2e: 0,
      delta_kg_co2e: 0,
      delta_percentage: 0,
      affected_assets_count: 0,
      impacts: {
        gwp: { unit: 'kg CO2e', current_quarterly: 0, scenario_quarterly: 0, delta: 0, delta_percentage: 0 },
        adpe: null,
        pe: null,
      },
    });
  });
});
