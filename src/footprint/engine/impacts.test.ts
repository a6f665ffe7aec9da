import { describe, expect, it } from 'vitest';
import { lowestConfidence, OLD_DEVICE_ENERGY_PENALTY } from './constants.ts';
import { criterionResult, electricityImpactFactors, FACTOR_UNCERTAINTY_PCT, summedCriterion } from './impacts.ts';
import { calculateFootprint, calculateRefurbishment, calculateSavings, footprintModel, getCategory } from './index.ts';
import type { FootprintInput } from './types.ts';

const server = getCategory('server')!;
const laptop = getCategory('laptop')!;

// A server with every spec stated: 2 x 150 W sockets, 64 GB in 32 GB modules, 1920 GB SSD, 2 kg PSU (category).
const serverInput: FootprintInput = {
  category: server,
  specs: { weight_kg: 20, processor_tdp_w: 300, ram_gb: 64, storage_gb: 1920, storage_type: 'ssd', typical_consumption_kwh: 1000 },
  supplied_spec_count: 6,
  grid_factor_kg_per_kwh: 0.35,
  use_region: 'DE',
  lifetime_years: 5,
};

describe('electricity ADPe and PE per country (BoaviztAPI, ADEME Base IMPACTS 2011)', () => {
  it('a country, a subdivision (its country) and an unknown code (world average)', () => {
    expect(electricityImpactFactors('DE')).toMatchObject({ region_code: 'DE', adpe_kg_sb_eq_per_kwh: 8.78733e-8, pe_mj_per_kwh: 16.26 });
    expect(electricityImpactFactors('us-ca')).toMatchObject({
      region_code: 'US',
      adpe_kg_sb_eq_per_kwh: 9.85548e-8,
      pe_mj_per_kwh: 11.358,
    });
    expect(electricityImpactFactors('XK')).toMatchObject({ region_code: 'WORLD', adpe_kg_sb_eq_per_kwh: 7.37708e-8, pe_mj_per_kwh: 9.988 });
  });
});

describe('footprint impacts: GWP unchanged, ADPe and PE per phase', () => {
  const r = footprintModel(serverInput);
  const i = r.impacts!;

  it('the gwp criterion is the breakdown, total, uncertainty and confidence of the footprint', () => {
    const rounded = calculateFootprint(serverInput);
    const g = rounded.impacts!.gwp;
    expect(g.unit).toBe('kg CO2e');
    expect(g.phases).toEqual({
      production: rounded.breakdown.production_kg,
      transport: rounded.breakdown.transport_kg,
      use: rounded.breakdown.use_phase_kg,
      end_of_life: rounded.breakdown.end_of_life_kg,
    });
    expect(g.total).toBe(rounded.total_kg_co2e);
    expect(g.uncertainty_pct).toBe(rounded.uncertainty_pct);
    expect(g.confidence).toBe(rounded.confidence);
  });

  it('production ADPe: processor, memory, storage and power supply from the Boavizta die models, by hand', () => {
    const die = 0.5 + 0.01 * (300 / 2); // cm2 per socket
    const c = i.adpe.production_components!;
    expect(c.processor).toBeCloseTo(2 * (0.0204 + 5.87e-9 * 100 * die), 10);
    expect(server.parameters.production.ram_gb_per_module).toBe(32);
    expect(c.memory).toBeCloseTo(2 * (0.00169 + 6.3e-5 * (32 / 1.5)), 10);
    expect(c.storage).toBeCloseTo(0.000563 + 6.3e-5 * (1920 / 48.5), 10);
    expect(c.power_supply).toBeCloseTo(2 * 0.0083, 10);
    expect(c.battery).toBe(0);
  });

  it('production PE: the same models with the PE factors', () => {
    const die = 0.5 + 0.01 * (300 / 2);
    const c = i.pe.production_components!;
    expect(c.processor).toBeCloseTo(2 * (156 + 0.265 * 100 * die), 6);
    expect(c.memory).toBeCloseTo(2 * (74 + 27.3 * (32 / 1.5)), 6);
    expect(c.storage).toBeCloseTo(73.98 + 27.3 * (1920 / 48.5), 6);
    expect(c.power_supply).toBeCloseTo(2 * 352, 6);
    const sum = Object.values(c).reduce((t, v) => t + v, 0);
    expect(i.pe.phases.production).toBeCloseTo(sum, 6);
  });

  it('use phase: kWh x lifetime x the country factor; end of life: mass x the per-kg factor', () => {
    expect(i.adpe.phases.use).toBeCloseTo(1000 * 5 * 8.78733e-8, 12);
    expect(i.pe.phases.use).toBeCloseTo(1000 * 5 * 16.26, 6);
    expect(i.adpe.phases.end_of_life).toBeCloseTo(20 * 3.714e-6, 12);
    expect(i.pe.phases.end_of_life).toBeCloseTo(20 * 22.348, 6);
    expect(i.electricity.region_code).toBe('DE');
  });

  it('transport: BoaviztAPI ratio to GWP per mode on the GWP route (sea and road ratios for a surface route)', () => {
    // PE per kg CO2e: plane 13.98, boat 12.33, truck 13.97: the PE transport lies between 12.3x and 14x the GWP's.
    const ratio = i.pe.phases.transport / r.breakdown.transport_kg;
    expect(ratio).toBeGreaterThan(1.64e-4 / 1.33e-5 - 0.01);
    expect(ratio).toBeLessThan(2.95e-2 / 2.11e-3 + 0.01);
  });

  it('total = sum of phases; interval multiplicative; wider than the GWP (factor uncertainty in quadrature)', () => {
    const rounded = calculateFootprint(serverInput).impacts!;
    for (const c of ['adpe', 'pe'] as const) {
      const x = i[c];
      expect(x.total).toBeCloseTo(x.phases.production + x.phases.transport + x.phases.use + x.phases.end_of_life, 12);
      expect(x.uncertainty_pct).toBeGreaterThanOrEqual(FACTOR_UNCERTAINTY_PCT[c].use);
      expect(x.uncertainty_pct).toBeGreaterThan(r.uncertainty_pct);
      const f = 1 + rounded[c].uncertainty_pct / 100;
      expect(rounded[c].interval.low / (x.total / f)).toBeCloseTo(1, 3);
      expect(rounded[c].interval.high / (x.total * f)).toBeCloseTo(1, 3);
      expect(x.confidence).toBe('estimated_high');
    }
    expect(rounded.adpe.unit).toBe('kg Sb eq');
    expect(rounded.pe.unit).toBe('MJ');
  });

  it('a battery has PE (280 kWh primary energy per kWh of capacity) and an ADPe gap that is said', () => {
    const l = footprintModel({
      category: laptop,
      specs: { battery_wh: 50 },
      supplied_spec_count: 1,
      grid_factor_kg_per_kwh: 0.1,
      use_region: 'FR',
    });
    expect(l.impacts!.pe.production_components!.battery).toBeCloseTo((50 * 280 * 3.6) / 1000, 9);
    expect(l.impacts!.adpe.production_components!.battery).toBe(0);
    expect(l.impacts!.adpe.notes).toContain('battery: no sourced ADPe factor; battery production not counted (gap)');
  });

  it('a published footprint verifies the GWP only', () => {
    const p = calculateFootprint({ ...serverInput, published: { total_kg: 5000, lifetime_years: 5, use_location: 'EU', use_ratio: 0.5 } });
    expect(p.impacts!.gwp.confidence).toBe('manufacturer_verified');
    expect(p.impacts!.adpe.confidence).toBe('estimated_high');
    expect(p.impacts!.adpe.total).toBe(calculateFootprint(serverInput).impacts!.adpe.total);
  });
});

describe('savings and refurbishment impacts', () => {
  const f = footprintModel(serverInput);

  it('savings: avoided production and transport, minus the older device extra electricity, per criterion', () => {
    const s = calculateSavings({ footprint: f, remaining_years: 2, grid_factor_kg_per_kwh: 0.35 });
    const a = s.impacts!.adpe;
    const extra = 1000 * OLD_DEVICE_ENERGY_PENALTY * 2 * 8.78733e-8;
    expect(a.phases.use / -extra).toBeCloseTo(1, 3);
    expect(a.phases.end_of_life).toBe(0);
    expect(a.total / (f.impacts!.adpe.phases.production + f.impacts!.adpe.phases.transport - extra)).toBeCloseTo(1, 3);
    expect(s.impacts!.gwp.total).toBe(s.avoided_co2_kg);
    expect(s.impacts!.gwp.phases.use).toBe(-s.additional_use_phase_kg);
    expect(s.impacts!.pe.phases.use).toBeCloseTo(-1000 * OLD_DEVICE_ENERGY_PENALTY * 2 * 16.26, 1);
  });

  it('refurbishment: net ADPe/PE in the country of reuse, swaps and testing taken off production', () => {
    const base = {
      footprint: f,
      category: server,
      specs: serverInput.specs,
      grade: 'C' as const,
      remaining_years: 3,
      reuse_grid_factor_kg_per_kwh: 0.05,
    };
    const fr = calculateRefurbishment({ ...base, swaps: [], reuse_region: 'FR' });
    const withSwap = calculateRefurbishment({ ...base, swaps: [{ kind: 'storage', gb: 1920, storage_type: 'ssd' }], reuse_region: 'FR' });
    expect(fr.impacts!.gwp.total).toBe(fr.net_savings_kg);
    expect(fr.impacts!.pe.phases.use).toBeCloseTo(-1000 * OLD_DEVICE_ENERGY_PENALTY * 3 * 11.289, 0);
    expect(fr.impacts!.pe.phases.production - withSwap.impacts!.pe.phases.production).toBeCloseTo(73.98 + 27.3 * (1920 / 48.5), 0);
    expect(fr.impacts!.adpe.notes).toContain(
      'refurbishment cleaning and packaging: no sourced factor for this criterion, not counted (gap)',
    );
  });
});

describe('summedCriterion (a scenario over several assets)', () => {
  const part = (production: number, use: number, u: number, confidence: 'estimated_high' | 'estimated_low', note: string) =>
    criterionResult('gwp', { production, transport: 0, use, end_of_life: 0 }, u, confidence, ['engine'], [note]);

  it("sums phases and the parts' interval bounds (fully correlated), weights u by |total|, takes the lowest confidence", () => {
    // +100 kg at u 50 % (66.67 to 150) and -40 kg at u 20 % (-48 to -33.33): a net of 60 kg
    const sum = summedCriterion('gwp', [part(90, 10, 50, 'estimated_high', 'a'), part(-40, 0, 20, 'estimated_low', 'b')]);
    expect(sum).toMatchObject({
      unit: 'kg CO2e',
      phases: { production: 50, transport: 0, use: 10, end_of_life: 0 },
      total: 60,
      interval: { low: 18.67, high: 116.67 },
      uncertainty_pct: 41.4, // (100 x 50 + 40 x 20) / 140
      confidence: 'estimated_low',
      sources: ['engine'],
      notes: ['a', 'b'],
    });
    expect(sum.interval.method).toMatch(/summed bound by bound \(errors taken as fully correlated\)/);
    // A stated total (a difference of two rounded figures) replaces the rounded sum; the interval stays the parts'.
    expect(summedCriterion('gwp', [part(90, 10, 50, 'estimated_high', 'a')], 99.99)).toMatchObject({
      total: 99.99,
      interval: { low: 66.67, high: 150 },
    });
    expect(() => summedCriterion('gwp', [])).toThrow(RangeError);
  });

  it('orders confidence levels from manufacturer_verified down to estimated_low', () => {
    expect(lowestConfidence(['manufacturer_verified', 'estimated_medium', 'estimated_high'])).toBe('estimated_medium');
    expect(lowestConfidence(['manufacturer_verified'])).toBe('manufacturer_verified');
    expect(() => lowestConfidence([])).toThrow(RangeError);
  });
});
