import { describe, expect, it } from 'vitest';
import {
  CRITERIA,
  criterionRounding,
  footprintModel,
  getCategory,
  refurbishmentModel,
  type DeviceSpecs,
} from '../footprint/engine/index.ts';
import { assetQuarter, QUARTER_YEARS, summarise } from './refurbish.ts';

const laptop = getCategory('laptop')!;
const PHASES = ['production', 'transport', 'use', 'end_of_life'] as const;
/** An unrounded footprint of a new laptop, as simulateRefurbish computes it (footprintModelOf). */
const footprint = (grid: number, specs: DeviceSpecs = {}, supplied = 0) =>
  footprintModel({ category: laptop, specs, supplied_spec_count: supplied, grid_factor_kg_per_kwh: grid, use_region: 'DE' });
const quarterOf = (f: ReturnType<typeof footprint>, specs: DeviceSpecs = {}, grade: 'A' | 'B' | 'C' = 'B') =>
  assetQuarter({ footprint: f, category: laptop, specs, grid_factor_kg_per_kwh: 0.4, grade });
const refurbishmentOf = (f: ReturnType<typeof footprint>) =>
  refurbishmentModel({
    footprint: f,
    category: laptop,
    specs: {},
    grade: 'B',
    swaps: [],
    remaining_years: QUARTER_YEARS,
    reuse_grid_factor_kg_per_kwh: 0.4,
  });
/** Within the rounding of the figures summed (ADPe and PE: 4 significant digits; GWP: 2 decimals). */
const nearSum = (sum: number, total: number) => expect(Math.abs(sum - total)).toBeLessThanOrEqual(Math.max(0.02, Math.abs(total) * 2e-3));

describe('assetQuarter', () => {
  it('counts the new device embodied on the buy-new side and only the refurbishment overhead on the other, phase by phase', () => {
    const f = footprint(0.4);
    const { gwp } = quarterOf(f);
    const r = refurbishmentOf(f);
    const quarterUse = f.annual_kwh * 0.25 * 0.4;
    // The GWP sides are the refurbishment engine's: new embodied + a quarter of use; overhead + the older device's quarter.
    expect(gwp.current.total).toBeCloseTo(r.new_device.embodied_kg + r.adjusted_use_phase.new_device_use_phase_kg, 9);
    expect(gwp.scenario.total).toBeCloseTo(r.refurbishment_total_kg + r.adjusted_use_phase.refurbished_use_phase_kg, 9);
    expect(gwp.current.phases).toEqual({
      production: f.breakdown.production_kg,
      transport: f.breakdown.transport_kg,
      use: expect.closeTo(quarterUse, 9),
      end_of_life: 0,
    });
    const o = r.overhead;
    expect(gwp.scenario.phases.production).toBeCloseTo(o.cleaning_kg + o.testing_kg + o.parts_kg + o.packaging_kg, 9);
    expect(gwp.scenario.phases.transport).toBeCloseTo(o.logistics_kg, 9);
    expect(gwp.scenario.phases.use).toBeCloseTo(quarterUse * 1.15, 9);
    expect(gwp.scenario.phases.end_of_life).toBe(0);
    expect(gwp.difference.total).toBeCloseTo(gwp.scenario.total - gwp.current.total, 9);
    // refurbishment overhead is a few kg
    expect(gwp.scenario.total - quarterUse * 1.15).toBeGreaterThan(0);
    expect(gwp.scenario.total - quarterUse * 1.15).toBeLessThan(30);
  });

  it('compares the same quarters in ADPe and PE, by the formula that gives the GWP figures', () => {
    const f = footprint(0.4);
    const q = quarterOf(f);
    const r = refurbishmentOf(f);
    for (const c of ['adpe', 'pe'] as const) {
      const i = f.impacts![c];
      const current = i.phases.production + i.phases.transport + (i.phases.use * QUARTER_YEARS) / f.lifetime_years;
      expect(q[c].current.total, c).toBeCloseTo(current, 12);
      expect(q[c].scenario.total, c).toBeCloseTo(current - r.impacts![c].total, 12);
      for (const phase of PHASES) expect(q[c].difference.phases[phase], `${c} ${phase}`).toBeCloseTo(-r.impacts![c].phases[phase], 12);
      // Refurbishing avoids most of the new device's production: far less in every criterion.
      expect(q[c].scenario.total, c).toBeLessThan(q[c].current.total * 0.5);
      expect(q[c].scenario.total, c).toBeGreaterThan(0);
      // The refurbishment's gap (cleaning and packaging have no factor) is said where its figures are.
      expect(q[c].scenario.notes.join(' '), c).toMatch(/cleaning and packaging: no sourced factor/);
      expect(q[c].current.notes.join(' '), c).not.toMatch(/cleaning and packaging/);
    }
  });

  it('has a higher overhead for grade A than C', () => {
    const f = footprint(0.4);
    expect(quarterOf(f, {}, 'A').gwp.scenario.total).toBeGreaterThan(quarterOf(f, {}, 'C').gwp.scenario.total);
  });
});

describe('summarise', () => {
  it('sums, takes scenario minus current and the percentage of current, in each criterion; the GWP is the top-level figures', () => {
    const f = footprint(0.4);
    const s = summarise([quarterOf(f), quarterOf(footprint(0.2))]);
    expect(s.affected_assets_count).toBe(2);
    expect(s.impacts.gwp).toMatchObject({
      unit: 'kg CO2e',
      current_quarterly: s.current_quarterly_co2e,
      scenario_quarterly: s.scenario_quarterly_co2e,
      delta: s.delta_kg_co2e,
      delta_percentage: s.delta_percentage,
    });
    for (const c of CRITERIA) {
      const i = s.impacts[c];
      expect(i.current.total, c).toBe(i.current_quarterly);
      expect(i.scenario.total, c).toBe(i.scenario_quarterly);
      expect(i.difference.total, c).toBe(i.delta);
      // delta is the difference of the two figures shown, in the criterion's rounding
      expect(i.delta, c).toBe(criterionRounding(c)(i.scenario_quarterly - i.current_quarterly));
      expect(i.delta_percentage, c).toBeCloseTo((i.delta / i.current_quarterly) * 100, 1);
      for (const side of [i.current, i.scenario, i.difference]) {
        nearSum(
          PHASES.reduce((t, p) => t + side.phases[p], 0),
          side.total,
        );
        expect(side.phases.end_of_life).toBe(0);
      }
    }
    expect(s.impacts.adpe.unit).toBe('kg Sb eq');
    expect(s.impacts.pe.unit).toBe('MJ');
    expect(() => summarise([])).toThrow(RangeError);
  });

  it("states one asset's interval as its footprint's uncertainty gives it (hand computed), with its confidence", () => {
    const f = footprint(0.4);
    const q = quarterOf(f);
    const s = summarise([q]);
    for (const c of CRITERIA) {
      const u = f.impacts![c].uncertainty_pct / 100;
      const current = q[c].current.total;
      const delta = q[c].difference.total; // negative: refurbishing uses less
      const i = s.impacts[c];
      expect(i.current.uncertainty_pct, c).toBe(f.impacts![c].uncertainty_pct);
      expect(i.difference.uncertainty_pct, c).toBe(f.impacts![c].uncertainty_pct);
      const round = criterionRounding(c);
      expect(i.current.interval, c).toMatchObject({ low: round(current / (1 + u)), high: round(current * (1 + u)) });
      // a negative delta keeps its relative width: from delta x (1 + u) to delta / (1 + u)
      expect(i.difference.interval, c).toMatchObject({ low: round(delta * (1 + u)), high: round(delta / (1 + u)) });
      expect(i.difference.interval.method, c).toMatch(/summed bound by bound \(errors taken as fully correlated\)/);
      for (const side of [i.current, i.scenario, i.difference]) expect(side.confidence, c).toBe(f.impacts![c].confidence);
    }
    // no specs known: the footprint's own level
    expect(s.impacts.gwp.current.confidence).toBe('estimated_low');
  });

  it('adds the intervals of two assets of the same model (fully correlated: twice the width, not sqrt(2) times)', () => {
    const f = footprint(0.4);
    const one = summarise([quarterOf(f)]);
    const two = summarise([quarterOf(f), quarterOf(f)]);
    for (const c of CRITERIA) {
      const u = f.impacts![c].uncertainty_pct;
      const round = criterionRounding(c);
      const q = quarterOf(f)[c].difference;
      expect(two.impacts[c].difference.uncertainty_pct, c).toBe(u);
      expect(two.impacts[c].difference.interval.low, c).toBe(round(2 * q.interval.low));
      expect(two.impacts[c].difference.interval.high, c).toBe(round(2 * q.interval.high));
      const width = (s: typeof one) => s.impacts[c].difference.interval.high - s.impacts[c].difference.interval.low;
      expect(width(two) / width(one), c).toBeCloseTo(2, 2);
      expect(two.impacts[c].current.interval.high, c).toBe(round(2 * quarterOf(f)[c].current.interval.high));
    }
  });

  it('takes the lowest confidence of the assets and weights their uncertainty by their figures', () => {
    const known: DeviceSpecs = { weight_kg: 1.4, ram_gb: 16, storage_gb: 512, screen_size_inch: 14, processor_tdp_w: 15 };
    const high = footprint(0.4, known, 5);
    const low = footprint(0.4);
    expect(high.confidence).toBe('estimated_high');
    const qs = [quarterOf(high, known), quarterOf(low)];
    const s = summarise(qs);
    for (const c of CRITERIA) {
      const i = s.impacts[c];
      expect(i.current.confidence, c).toBe('estimated_low');
      const parts = qs.map((q) => q[c].current);
      const weighted = parts.reduce((t, p) => t + p.total * p.uncertainty_pct, 0) / parts.reduce((t, p) => t + p.total, 0);
      expect(i.current.uncertainty_pct, c).toBeCloseTo(weighted, 1);
      expect(i.current.uncertainty_pct, c).toBeGreaterThan(Math.min(...parts.map((p) => p.uncertainty_pct)));
      expect(i.current.uncertainty_pct, c).toBeLessThan(Math.max(...parts.map((p) => p.uncertainty_pct)));
    }
    expect(summarise([quarterOf(high, known)]).impacts.gwp.current.confidence).toBe('estimated_high');
  });
});

describe('the example of docs/assets.md ("simulateRefurbish", Uncertainty)', () => {
  it('answers its figures for one and two laptops of category defaults at 0.4 kg CO2e/kWh, grade B', () => {
    const q = quarterOf(footprint(0.4));
    const one = summarise([q]).impacts.gwp;
    const two = summarise([q, q]).impacts.gwp;
    expect(one.current).toMatchObject({ total: 239.13, uncertainty_pct: 59, interval: { low: 150.39, high: 380.21 } });
    expect(one.difference).toMatchObject({ total: -234.33, interval: { low: -372.58, high: -147.38 } });
    expect(two.current).toMatchObject({ total: 478.25, interval: { low: 300.79, high: 760.42 } });
    expect(two.difference).toMatchObject({ total: -468.66, interval: { low: -745.17, high: -294.75 } });
  });
});
