import { describe, expect, it } from 'vitest';
import { getCategory } from './categories.ts';
import { ENERGY_MODEL, energyFactor, energyUncertaintyPct } from './energy-model.ts';
import type { EnergyModel } from './energy-model.ts';
import { calculateFootprint, uncertaintyPct } from './footprint.ts';
import { ENGINE_PARAMETERS, groupFit } from './parameters.ts';
import { resolveSpecs } from './specs.ts';
import type { DeviceSpecs } from './types.ts';
import { profileKwh, usePhaseKwh } from './use-phase.ts';

const laptop = getCategory('laptop')!;
const monitor = getCategory('monitor')!;
const server = getCategory('server')!;
const kwh = (id: string, specs: DeviceSpecs, year?: number): number => {
  const c = getCategory(id)!;
  return usePhaseKwh(c, resolveSpecs(c, specs), year).kwh;
};

/** a model with one notebook term: -5 % per year between 2016 and 2022 */
const yearOnly: EnergyModel = {
  ...ENERGY_MODEL,
  factor_range: [0.5, 2],
  groups: {
    notebook: {
      rows: 10,
      offset: 0.1,
      category_offsets: { laptop: -0.1 },
      terms: { year: { coefficient: -0.05, reference: 2019, range: [2016, 2022] } },
      residual_abs_pct: { p50: 12, p80: 30, p90: 40 },
    },
  },
};

describe('energy model (use phase)', () => {
  it('a supplied typical consumption wins over the model', () => {
    const e = usePhaseKwh(laptop, resolveSpecs(laptop, { typical_consumption_kwh: 18.5 }), 2021);
    expect(e).toEqual({ kwh: 18.5, measured: true, source: 'measured' });
  });

  it('corrects the category profile for the groups it was fitted on', () => {
    const s = resolveSpecs(laptop, {});
    const e = usePhaseKwh(laptop, s);
    expect(e.source).toBe('energy_model');
    expect(e.kwh).toBeCloseTo(profileKwh(laptop, s.processor_tdp_w, s.screen_size_inch) * energyFactor(ENERGY_MODEL, laptop, s), 9);
    // the shipped fit lowers the 25 kWh laptop fallback (published laptop TECs are mostly 13-25 kWh)
    expect(e.kwh).toBeGreaterThan(12);
    expect(e.kwh).toBeLessThan(25);
  });

  it('keeps the plain profile for a category without calibration rows', () => {
    const router = getCategory('router')!;
    expect(usePhaseKwh(router, resolveSpecs(router, {}))).toEqual({
      kwh: router.fallback_kwh_per_year,
      measured: false,
      source: 'profile',
    });
    expect(energyUncertaintyPct(ENERGY_MODEL, router, 'manufacturer_verified')).toBe(ENERGY_MODEL.use_phase_uncertainty_pct.profile);
    expect(energyUncertaintyPct(ENERGY_MODEL, router, 'estimated_low')).toBeCloseTo(
      ENERGY_MODEL.use_phase_uncertainty_pct.profile * ENERGY_MODEL.confidence_multipliers.estimated_low,
      9,
    );
  });

  it('never lowers the estimate for a larger screen or a hotter processor', () => {
    expect(kwh('laptop', { screen_size_inch: 16 })).toBeGreaterThan(kwh('laptop', { screen_size_inch: 13 }));
    expect(kwh('laptop', { processor_tdp_w: 45 })).toBeGreaterThan(kwh('laptop', { processor_tdp_w: 15 }));
    expect(kwh('monitor', { screen_size_inch: 32 })).toBeGreaterThan(kwh('monitor', { screen_size_inch: 24 }));
    expect(kwh('desktop', { processor_tdp_w: 125 })).toBeGreaterThan(kwh('desktop', { processor_tdp_w: 65 }));
    expect(kwh('server', { processor_tdp_w: 600 })).toBeGreaterThan(kwh('server', { processor_tdp_w: 300 }));
  });

  it('applies the year trend inside the fitted range and clamps outside it', () => {
    const s = resolveSpecs(laptop, {});
    const at = (y?: number): number => energyFactor(yearOnly, laptop, s, y);
    expect(at()).toBeCloseTo(1, 12); // no year: reference year, offsets 0.1 - 0.1
    expect(at(2021)).toBeCloseTo(Math.exp(-0.1), 12);
    expect(at(2016)).toBeCloseTo(Math.exp(0.15), 12);
    expect(at(2030)).toBeCloseTo(at(2022), 12);
    expect(at(1995)).toBeCloseTo(at(2016), 12);
    // the category offset is the laptop's own: a mobile workstation gets the group offset only
    const mw = getCategory('mobile_workstation')!;
    expect(energyFactor(yearOnly, mw, resolveSpecs(mw, {}))).toBeCloseTo(Math.exp(0.1), 12);
  });

  it('bounds the factor', () => {
    const steep: EnergyModel = {
      ...yearOnly,
      groups: { notebook: { ...yearOnly.groups.notebook!, terms: { year: { coefficient: -1, reference: 2019, range: [2010, 2030] } } } },
    };
    const s = resolveSpecs(laptop, {});
    expect(energyFactor(steep, laptop, s, 2029)).toBe(0.5);
    expect(energyFactor(steep, laptop, s, 2011)).toBe(2);
    for (const specs of [
      { screen_size_inch: 40, weight_kg: 9, processor_tdp_w: 200 },
      { screen_size_inch: 7, weight_kg: 0.3, processor_tdp_w: 1 },
    ]) {
      const f = energyFactor(ENERGY_MODEL, server, resolveSpecs(server, specs), 2035);
      expect(f).toBeGreaterThanOrEqual(ENERGY_MODEL.factor_range[0]);
      expect(f).toBeLessThanOrEqual(ENERGY_MODEL.factor_range[1]);
    }
  });

  it('says which model gave the kWh, and takes the use-phase uncertainty from its cross-validated p80 at the confidence level', () => {
    const base = {
      category: monitor,
      specs: { screen_size_inch: 27 },
      supplied_spec_count: 1,
      grid_factor_kg_per_kwh: 0.35,
      use_region: 'DE',
    };
    const r = calculateFootprint({ ...base, release_year: 2021 });
    const p50 = ENERGY_MODEL.groups.display!.residual_abs_pct.p50;
    expect(r.assumptions).toContain(
      `use phase: annual energy ${r.annual_kwh} kWh/year estimated from category, screen size, TDP, weight and release year (energy model, CV median ${p50} %) x ${monitor.lifetime_years} years x 0.35 kg CO2e/kWh`,
    );
    const groupP80 = ENERGY_MODEL.groups.display!.residual_abs_pct.p80;
    expect(energyUncertaintyPct(ENERGY_MODEL, monitor, 'manufacturer_verified')).toBe(groupP80);
    expect(energyUncertaintyPct(ENERGY_MODEL, monitor, 'estimated_high')).toBeCloseTo(
      groupP80 * ENERGY_MODEL.confidence_multipliers.estimated_high,
      9,
    );
    // fewer specs, wider interval: the fitted multipliers never decrease from high to low
    const m = ENERGY_MODEL.confidence_multipliers;
    expect(m.estimated_high).toBeLessThanOrEqual(m.estimated_medium);
    expect(m.estimated_medium).toBeLessThan(m.estimated_low);
    const measured = calculateFootprint({ ...base, specs: { screen_size_inch: 27, typical_consumption_kwh: r.annual_kwh } });
    expect(measured.assumptions.some((a) => a.startsWith('use phase: typical consumption'))).toBe(true);
    // a use phase alone: the estimated kWh carries the energy model's p80 (times the level's widening in
    // a total, docs/methodology.md section 8), a measured one the tolerance
    const fit = groupFit(ENGINE_PARAMETERS, 'display');
    const p80 = energyUncertaintyPct(ENERGY_MODEL, monitor, 'estimated_low');
    const widening = ENGINE_PARAMETERS.total_use_widening?.estimated_low ?? 1;
    expect(uncertaintyPct(ENGINE_PARAMETERS, fit, 'estimated_low', 0, 100, false, p80)).toBe(Math.round(p80 * widening));
    expect(uncertaintyPct(ENGINE_PARAMETERS, fit, 'estimated_low', 0, 100, true, p80)).toBe(
      Math.round(ENGINE_PARAMETERS.use_phase_uncertainty_pct.measured),
    );
  });
});
