import { describe, expect, it } from 'vitest';
import {
  CATEGORIES,
  calculateFootprint,
  ENGINE_PARAMETERS,
  ENGINE_VERSION,
  getCategory,
  sheetConfigurationFill,
  sheetConfigurationNote,
} from './index.ts';
import type { CategoryDefinition, FootprintInput } from './index.ts';
import { confidenceFor, uncertaintyPct } from './footprint.ts';
import { groupFit } from './parameters.ts';
import { specLimits } from './limits.ts';

const laptop = getCategory('laptop')!;
const input = (over: Partial<FootprintInput> = {}): FootprintInput => ({
  category: laptop,
  specs: { weight_kg: 1.4, screen_size_inch: 14, ram_gb: 16 },
  supplied_spec_count: 3,
  grid_factor_kg_per_kwh: 0.35,
  use_region: 'DE',
  ...over,
});

const decimals = (v: number): number => (v.toString().split('.')[1] ?? '').length;

describe('calculateFootprint', () => {
  it('carries the engine version v4 and sums the phases', () => {
    expect(ENGINE_VERSION).toMatch(/^4\.\d+\.\d+$/);
    const r = calculateFootprint(input());
    expect(r.engine_version).toBe(ENGINE_VERSION);
    const b = r.breakdown;
    expect(r.total_kg_co2e).toBeCloseTo(b.production_kg + b.transport_kg + b.use_phase_kg + b.end_of_life_kg, 1);
    expect(r.embodied_kg).toBeCloseTo(b.production_kg + b.transport_kg + b.end_of_life_kg, 1);
    const comp = Object.values(r.production_components).reduce((a, v) => a + v, 0);
    expect(comp).toBeCloseTo(b.production_kg, 0);
    for (const v of [r.total_kg_co2e, ...Object.values(b), ...Object.values(r.production_components)]) {
      expect(Number.isFinite(v)).toBe(true);
      expect(decimals(v)).toBeLessThanOrEqual(2);
    }
  });

  type AmountField =
    | 'weight_kg'
    | 'screen_size_inch'
    | 'processor_tdp_w'
    | 'ram_gb'
    | 'storage_gb'
    | 'battery_wh'
    | 'typical_consumption_kwh';
  const contexts = (brands: (string | undefined)[], years: (number | undefined)[] = [undefined]) =>
    brands.flatMap((brand) => years.map((release_year) => ({ ...(brand ? { brand } : {}), ...(release_year ? { release_year } : {}) })));

  /**
   * Footprints along one spec, each other spec left to the engine, in every context: production, the
   * embodied footprint and the total never fall (the embodied footprint rises, when strict).
   */
  const expectNonDecreasing = (
    category: CategoryDefinition,
    field: AmountField,
    values: number[],
    inContexts: { brand?: string; release_year?: number }[],
    strict = false,
  ) => {
    for (const context of inContexts) {
      const at = values.map((v) =>
        calculateFootprint({
          category,
          specs: { [field]: v },
          supplied_spec_count: 1,
          grid_factor_kg_per_kwh: 0.35,
          use_region: 'DE',
          ...context,
        }),
      );
      for (let i = 1; i < at.length; i++) {
        const where = `${category.id} ${JSON.stringify(context)} ${field} ${values[i - 1]} -> ${values[i]}`;
        expect(at[i]!.breakdown.production_kg, where).toBeGreaterThanOrEqual(at[i - 1]!.breakdown.production_kg);
        if (strict) expect(at[i]!.embodied_kg, where).toBeGreaterThan(at[i - 1]!.embodied_kg!);
        else expect(at[i]!.embodied_kg, where).toBeGreaterThanOrEqual(at[i - 1]!.embodied_kg!);
        expect(at[i]!.total_kg_co2e, where).toBeGreaterThanOrEqual(at[i - 1]!.total_kg_co2e);
      }
    }
  };

  it('more mass never lowers production or the embodied footprint, in any category, brand or not', () => {
    for (const category of CATEGORIES) {
      const weights = [0.25, 0.5, 1, 1.5, 2, 3]
        .map((k) => k * category.defaults.weight_kg)
        .filter((w) => w <= category.parameters.limits.max_weight_kg);
      // transport and end of life are per kg: the embodied footprint rises strictly
      expectNonDecreasing(category, 'weight_kg', weights, contexts([undefined, 'Dell', 'HP', 'Lenovo', 'Apple']), true);
    }
  });

  it('a larger screen never lowers the footprint when the weight is not stated, in any category with a screen', () => {
    for (const category of CATEGORIES.filter((c) => c.defaults.screen_size_inch > 0)) {
      const d = category.defaults.screen_size_inch;
      const screens = [0.5, 0.75, 1, 1.25, 1.5, 2]
        .map((k) => Math.round(k * d * 10) / 10)
        .filter((s) => s <= category.parameters.limits.max_screen_inch);
      expectNonDecreasing(category, 'screen_size_inch', screens, contexts([undefined, 'Dell', 'Lenovo']));
    }
  });

  it('more processor, memory, storage, battery or energy never lowers the footprint, in any category, brand and year', () => {
    const fields = ['processor_tdp_w', 'ram_gb', 'storage_gb', 'battery_wh', 'typical_consumption_kwh'] as const;
    for (const category of CATEGORIES) {
      const limits = specLimits(category);
      for (const field of fields) {
        const base = field === 'typical_consumption_kwh' ? category.fallback_kwh_per_year : category.defaults[field];
        if (!(base > 0)) continue;
        const values = [0.25, 0.5, 1, 2, 4, 8].map((k) => k * base).filter((v) => v <= limits[field]);
        expectNonDecreasing(category, field, values, contexts([undefined, 'Dell', 'HP', 'Lenovo', 'Apple'], [undefined, 2016, 2022]));
      }
    }
  });

  it('an unstated weight follows the stated screen where the screen sets the size, and a stated battery, and says so', () => {
    const monitor = getCategory('monitor')!;
    const at = (specs: FootprintInput['specs']) =>
      calculateFootprint({
        category: monitor,
        specs,
        supplied_spec_count: 1,
        grid_factor_kg_per_kwh: 0.35,
        use_region: 'DE',
        brand: 'Dell',
      });
    // 5 kg at 24 inch x (34 / 24)^2
    expect(at({ screen_size_inch: 34 }).specs_used?.weight_kg).toBeCloseTo(5 * (34 / 24) ** 2, 2);
    expect(at({ screen_size_inch: 34 }).assumptions).toContain(
      'weight_kg not supplied: 10.03, category default 5 kg at 24 inch scaled to the 34-inch screen (x (screen ratio)^2)',
    );
    // a stated weight wins; without a screen the default stays
    expect(at({ screen_size_inch: 34, weight_kg: 7 }).specs_used?.weight_kg).toBe(7);
    expect(at({}).specs_used?.weight_kg).toBe(5);
    // never beyond the heaviest real product of the category
    const display = getCategory('interactive_display')!;
    const huge = calculateFootprint({
      category: display,
      specs: { screen_size_inch: 110 },
      supplied_spec_count: 1,
      grid_factor_kg_per_kwh: 0.35,
      use_region: 'DE',
    });
    expect(huge.specs_used?.weight_kg).toBe(Math.min(display.parameters.limits.max_weight_kg, 45 * (110 / 65) ** 2));
    // a stated battery brings its mass beyond the default one: 12 kg + (864 - 216) Wh / 35 Wh/kg (lead-acid)
    const ups = calculateFootprint({
      category: getCategory('ups')!,
      specs: { battery_wh: 864 },
      supplied_spec_count: 1,
      grid_factor_kg_per_kwh: 0.35,
      use_region: 'DE',
    });
    expect(ups.specs_used?.weight_kg).toBeCloseTo(12 + 648 / 35, 2);
    expect(ups.assumptions).toContain(
      'weight_kg not supplied: 30.51, category default 12 kg with 18.51 kg for the 864 Wh battery instead of the default 216 Wh',
    );
    // servers, desktops and phones keep their default weight whatever the screen
    const phone = getCategory('smartphone')!;
    expect(
      calculateFootprint({
        category: phone,
        specs: { screen_size_inch: 6.9 },
        supplied_spec_count: 1,
        grid_factor_kg_per_kwh: 0.35,
        use_region: 'DE',
      }).specs_used?.weight_kg,
    ).toBe(phone.defaults.weight_kg);
  });

  it('unstated memory and storage take the typical configuration of the release year, and say so', () => {
    const base = { category: laptop, supplied_spec_count: 2, grid_factor_kg_per_kwh: 0.35, use_region: 'DE', brand: 'Dell' };
    const table = laptop.typical_configuration!;
    expect(table['2019']).toMatchObject({ ram_gb: 8, storage_gb: 256 });
    expect(table['2024']).toMatchObject({ ram_gb: 16, storage_gb: 512 });
    const at = (release_year: number | undefined, specs: FootprintInput['specs'] = { weight_kg: 1.4, screen_size_inch: 14 }) =>
      calculateFootprint({ ...base, specs, ...(release_year !== undefined ? { release_year } : {}) });
    // the same footprint as with the typical configuration supplied
    const r2019 = at(2019);
    expect(r2019.specs_used).toMatchObject({ ram_gb: 8, storage_gb: 256 });
    expect(r2019.total_kg_co2e).toBe(at(2019, { weight_kg: 1.4, screen_size_inch: 14, ram_gb: 8, storage_gb: 256 }).total_kg_co2e);
    expect(r2019.assumptions).toContain(
      'ram_gb not supplied: 8, typical configuration of laptop devices of 2019 (median of the catalogue)',
    );
    // nearest year of the table; its middle year (2020) without a usable year
    expect(at(2031).specs_used).toMatchObject({ ram_gb: 16, storage_gb: 512 });
    expect(at(2031).assumptions).toContain(
      'storage_gb not supplied: 512, typical configuration of laptop devices of 2024 (median of the catalogue)',
    );
    expect(at(undefined).assumptions).toContain(
      'ram_gb not supplied: 8, typical configuration of laptop devices of 2020 (median of the catalogue)',
    );
    expect(at(1850).specs_used).toMatchObject({ ram_gb: 8, storage_gb: 256 });
    // a supplied value wins; a category without a table keeps its fixed default
    expect(at(2019, { weight_kg: 1.4, ram_gb: 32 }).specs_used).toMatchObject({ ram_gb: 32, storage_gb: 256 });
    const server = getCategory('server')!;
    expect(server.typical_configuration).toBeUndefined();
    const s = calculateFootprint({ ...base, category: server, specs: {}, release_year: 2019 });
    expect(s.assumptions).toContain(`ram_gb not supplied: category default ${server.defaults.ram_gb}`);
  });

  it("a server's unstated configuration is the one manufacturers' footprint sheets assume, field by field", () => {
    for (const id of ['server', 'tower_server', 'blade_server']) {
      const category = getCategory(id)!;
      expect(sheetConfigurationFill(category, {}), id).toEqual({ ram_gb: 16, storage_gb: 2000, storage_type: 'hdd' });
      expect(sheetConfigurationNote(category)).toBe(
        `the configuration manufacturers' footprint sheets of ${id} products assume (16 GB, 2000 GB hdd: medians of 32 sheets)`,
      );
    }
    const server = getCategory('server')!;
    // what the unit states wins: only the rest is filled, and a stated configuration fills nothing
    expect(sheetConfigurationFill(server, { ram_gb: 256, storage_type: 'ssd' })).toEqual({ storage_gb: 2000 });
    expect(sheetConfigurationFill(server, { ram_gb: 64, storage_gb: 3840, storage_type: 'ssd' })).toEqual({});
    // lighter than the category's mid-range defaults (128 GB, 3840 GB SSD) the fit never saw on a server sheet
    const at = (specs: FootprintInput['specs']) =>
      calculateFootprint({
        category: server,
        specs,
        supplied_spec_count: 1,
        grid_factor_kg_per_kwh: 0.35,
        use_region: 'DE',
        brand: 'Dell',
      });
    expect(at({ weight_kg: 20, ...sheetConfigurationFill(server, {}) }).breakdown.production_kg).toBeLessThan(
      at({ weight_kg: 20 }).breakdown.production_kg,
    );
    // other categories have none
    expect(sheetConfigurationFill(getCategory('laptop')!, {})).toEqual({});
    expect(sheetConfigurationFill(getCategory('nas')!, {})).toEqual({});
  });

  it('use phase = annual kWh x lifetime x grid factor of the country of use', () => {
    const r = calculateFootprint(input({ specs: { typical_consumption_kwh: 20 }, lifetime_years: 5, grid_factor_kg_per_kwh: 0.5 }));
    expect(r.annual_kwh).toBe(20);
    expect(r.lifetime_years).toBe(5);
    expect(r.breakdown.use_phase_kg).toBeCloseTo(50, 6);
    const def = calculateFootprint(input());
    expect(def.lifetime_years).toBe(laptop.lifetime_years);
    expect(def.assumptions.some((a) => a.startsWith('lifetime: category default'))).toBe(true);
  });

  it('responds to specs: bigger screen and more storage cost more to produce', () => {
    const base = calculateFootprint(input());
    expect(
      calculateFootprint(input({ specs: { weight_kg: 1.4, screen_size_inch: 16, ram_gb: 16 } })).breakdown.production_kg,
    ).toBeGreaterThan(base.breakdown.production_kg);
    expect(
      calculateFootprint(input({ specs: { weight_kg: 1.4, screen_size_inch: 14, ram_gb: 16, storage_gb: 2000 } })).breakdown.production_kg,
    ).toBeGreaterThan(base.breakdown.production_kg);
    expect(
      calculateFootprint(input({ specs: { weight_kg: 1.4, screen_size_inch: 14, ram_gb: 64 } })).breakdown.production_kg,
    ).toBeGreaterThan(base.breakdown.production_kg);
  });

  it('transport depends on the country of use', () => {
    const de = calculateFootprint(input({ use_region: 'DE' }));
    const cn = calculateFootprint(input({ use_region: 'CN' }));
    expect(cn.breakdown.transport_kg).toBeLessThan(de.breakdown.transport_kg);
    expect(de.transport?.use_region).toBe('europe');
    const unknown = calculateFootprint(input({ use_region: 'ZZ' }));
    expect(unknown.assumptions.some((a) => a.includes("'ZZ' not recognised"))).toBe(true);
  });

  it('confidence by supplied spec count', () => {
    expect(confidenceFor(0, false)).toBe('estimated_low');
    expect(confidenceFor(1, false)).toBe('estimated_low');
    expect(confidenceFor(2, false)).toBe('estimated_medium');
    expect(confidenceFor(4, false)).toBe('estimated_medium');
    expect(confidenceFor(5, false)).toBe('estimated_high');
    expect(confidenceFor(0, true)).toBe('manufacturer_verified');
    expect(calculateFootprint(input({ supplied_spec_count: 7 })).confidence).toBe('estimated_high');
  });

  it('uncertainty comes from the calibration residuals of the category group, not a constant', () => {
    const values = new Set(
      CATEGORIES.map(
        (c) =>
          calculateFootprint({ category: c, specs: {}, supplied_spec_count: 0, grid_factor_kg_per_kwh: 0.4, use_region: 'FR' })
            .uncertainty_pct,
      ),
    );
    expect(values.size).toBeGreaterThan(5);
    const fit = groupFit(ENGINE_PARAMETERS, laptop.parameters.fit_group);
    // embodied only: the group's p80 residual times the confidence multiplier
    expect(uncertaintyPct(ENGINE_PARAMETERS, fit, 'estimated_medium', 100, 0, false)).toBe(
      Math.max(1, Math.round(fit.residual_abs_pct.p80 * ENGINE_PARAMETERS.confidence_multipliers.estimated_medium)),
    );
    // verified: the manufacturers' published error
    expect(uncertaintyPct(ENGINE_PARAMETERS, fit, 'manufacturer_verified', 100, 0, false)).toBe(
      Math.round(ENGINE_PARAMETERS.manufacturer_error_pct),
    );
    // more use phase share -> use-phase uncertainty weighs in (a measured kWh: the tolerance, independent errors)
    const uEmb = fit.residual_abs_pct.p80 * ENGINE_PARAMETERS.confidence_multipliers.estimated_high;
    const uUse = ENGINE_PARAMETERS.use_phase_uncertainty_pct.measured;
    expect(uncertaintyPct(ENGINE_PARAMETERS, fit, 'estimated_high', 100, 0, true)).toBe(Math.max(1, Math.round(uEmb)));
    expect(uncertaintyPct(ENGINE_PARAMETERS, fit, 'estimated_high', 100, 1000, true)).toBe(
      Math.round(Math.sqrt((100 * uEmb) ** 2 + (1000 * uUse) ** 2) / 1100),
    );
  });

  it('combines embodied and estimated use-phase uncertainty with the fitted error correlation of the level', () => {
    const fit = groupFit(ENGINE_PARAMETERS, laptop.parameters.fit_group);
    const params = { ...ENGINE_PARAMETERS, confidence_multipliers: { estimated_high: 1, estimated_medium: 1, estimated_low: 1 } };
    const at = (rho: number, measured = false, widening = 1) =>
      uncertaintyPct(
        {
          ...params,
          embodied_use_error_correlation: { estimated_high: 0, estimated_medium: 0, estimated_low: rho },
          total_use_widening: { estimated_high: 1, estimated_medium: 1, estimated_low: widening },
        },
        { ...fit, residual_abs_pct: { p50: 10, p80: 30, p90: 40 } },
        'estimated_low',
        300,
        100,
        measured,
        40,
      );
    // independent: sqrt((300 x 30)^2 + (100 x 40)^2) / 400 = 24.6; fully correlated: (9000 + 4000) / 400 = 32.5
    expect(at(0)).toBe(25);
    expect(at(1)).toBe(33);
    expect(at(0.5)).toBe(Math.round(Math.sqrt(9000 ** 2 + 4000 ** 2 + 9000 * 4000) / 400));
    // a measured kWh carries the tolerance, whose error has nothing to do with the embodied estimate's
    expect(at(1, true)).toBe(Math.round(Math.sqrt(9000 ** 2 + (100 * ENGINE_PARAMETERS.use_phase_uncertainty_pct.measured) ** 2) / 400));
    // the widening scales the estimated use part only: (9000 + 1.5 x 4000) / 400 = 37.5; not a measured kWh
    expect(at(1, false, 1.5)).toBe(38);
    expect(at(1, true, 1.5)).toBe(at(1, true));
    // the shipped fit: errors correlate where few specs are known (docs/methodology.md section 8)
    const rho = ENGINE_PARAMETERS.embodied_use_error_correlation!;
    expect(rho.estimated_low).toBeGreaterThan(0.5);
    expect(rho.estimated_low).toBeLessThanOrEqual(1);
    // widened only where a correlation of 1 still covered too few held-out totals
    const widening = ENGINE_PARAMETERS.total_use_widening!;
    for (const level of ['estimated_high', 'estimated_medium', 'estimated_low'] as const) {
      expect(widening[level], level).toBeGreaterThanOrEqual(1);
      if (widening[level] > 1) expect(rho[level], level).toBe(1);
    }
  });

  it('a published footprint makes the result manufacturer_verified and sets the embodied part', () => {
    const r = calculateFootprint(input({ published: { total_kg: 300, lifetime_years: 4, use_location: 'EU', use_ratio: 0.2 } }));
    expect(r.confidence).toBe('manufacturer_verified');
    expect(r.embodied_kg).toBeCloseTo(240, 1);
    expect(r.uncertainty_pct).toBeGreaterThan(0);
    // use phase is recalculated for the caller's grid and lifetime
    expect(r.breakdown.use_phase_kg).toBeCloseTo(calculateFootprint(input()).breakdown.use_phase_kg, 6);
    // without a use ratio the split is modelled
    const noRatio = calculateFootprint(input({ published: { total_kg: 300, lifetime_years: 4, use_location: 'WW' } }));
    expect(noRatio.embodied_kg).toBeGreaterThan(150);
    expect(noRatio.embodied_kg).toBeLessThan(300);
    expect(noRatio.assumptions.some((a) => a.includes('no published use ratio'))).toBe(true);
  });

  it('fills missing specs from category defaults and says so', () => {
    const r = calculateFootprint(input({ specs: {}, supplied_spec_count: 0 }));
    expect(r.specs_used?.weight_kg).toBe(laptop.defaults.weight_kg);
    expect(r.assumptions.some((a) => a.startsWith('weight_kg not supplied'))).toBe(true);
    expect(r.confidence).toBe('estimated_low');
  });

  it('gives a finite, positive footprint for all 48 categories', () => {
    expect(CATEGORIES).toHaveLength(48);
    for (const c of CATEGORIES) {
      const r = calculateFootprint({ category: c, specs: {}, supplied_spec_count: 0, grid_factor_kg_per_kwh: 0.3, use_region: 'US-TX' });
      expect(r.total_kg_co2e, c.id).toBeGreaterThan(0);
      expect(r.breakdown.production_kg, c.id).toBeGreaterThan(0);
      expect(r.breakdown.transport_kg, c.id).toBeGreaterThan(0);
      expect(r.breakdown.end_of_life_kg, c.id).toBeGreaterThan(0);
      expect(r.uncertainty_pct, c.id).toBeGreaterThan(0);
    }
  });

  it('is pure: same input, same output; input not mutated', () => {
    const i = input();
    const copy = structuredClone(i);
    expect(calculateFootprint(i)).toEqual(calculateFootprint(i));
    expect(i).toEqual(copy);
  });
});
