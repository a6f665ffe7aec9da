import { describe, expect, it } from 'vitest';
import { calculateFootprint, ENGINE_PARAMETERS, getCategory, normaliseBrand, usableReleaseYear } from './index.ts';
import type { FootprintInput } from './index.ts';
import { yearOfDate } from './brand.ts';
import { groupFit } from './parameters.ts';

describe('brand normalisation', () => {
  it('merges case, legal forms and aliases', () => {
    expect(normaliseBrand('HP Inc.')).toBe('hp');
    expect(normaliseBrand('hp')).toBe('hp');
    expect(normaliseBrand('Hewlett-Packard')).toBe('hp');
    expect(normaliseBrand('Hewlett Packard Enterprise')).toBe('hp');
    expect(normaliseBrand('HPE')).toBe('hp');
    expect(normaliseBrand('Dell Technologies')).toBe('dell');
    expect(normaliseBrand('Dell EMC')).toBe('dell');
    expect(normaliseBrand('LENOVO')).toBe('lenovo');
    expect(normaliseBrand('Apple Inc.')).toBe('apple');
    expect(normaliseBrand('ASUSTeK Computer Inc.')).toBe('asus');
    expect(normaliseBrand('Microsoft Corporation')).toBe('microsoft');
    expect(normaliseBrand('  ')).toBeNull();
    expect(normaliseBrand(undefined)).toBeNull();
  });

  it('reads years', () => {
    expect(yearOfDate('December 2018')).toBe(2018);
    expect(yearOfDate('2022-2-6')).toBe(2022);
    expect(yearOfDate('26/07/2019')).toBe(2019);
    expect(yearOfDate('')).toBeNull();
    expect(usableReleaseYear(2021.2)).toBe(2021);
    expect(usableReleaseYear(1800)).toBeNull();
    expect(usableReleaseYear(Number.NaN)).toBeNull();
  });
});

describe('brand and release-year adjustment', () => {
  const monitor = getCategory('monitor')!;
  const input = (over: Partial<FootprintInput> = {}): FootprintInput => ({
    category: monitor,
    specs: { weight_kg: 5, screen_size_inch: 24 },
    supplied_spec_count: 2,
    grid_factor_kg_per_kwh: 0.3,
    use_region: 'DE',
    ...over,
  });

  it('unknown or missing brand uses the pooled group level; brand spelling does not matter', () => {
    const none = calculateFootprint(input());
    const unknown = calculateFootprint(input({ brand: 'Acme Displays Ltd' }));
    expect(unknown.embodied_kg).toBe(none.embodied_kg);
    const a = calculateFootprint(input({ brand: 'HP Inc.', release_year: 2021 }));
    const b = calculateFootprint(input({ brand: 'hp', release_year: 2021 }));
    expect(a.embodied_kg).toBe(b.embodied_kg);
    expect(a.assumptions.some((s) => s.includes("brand 'hp'"))).toBe(true);
    expect(unknown.assumptions.some((s) => s.includes('not in the calibration set'))).toBe(true);
  });

  it('a fitted brand changes the level, components still sum to production, years are clamped', () => {
    const adj = ENGINE_PARAMETERS.adjustments;
    expect(adj).toBeDefined();
    const lenovo = calculateFootprint(input({ brand: 'Lenovo' }));
    const dell = calculateFootprint(input({ brand: 'Dell' }));
    expect(lenovo.embodied_kg).not.toBe(dell.embodied_kg);
    const comp = Object.values(lenovo.production_components).reduce((s, v) => s + v, 0);
    expect(comp).toBeCloseTo(lenovo.breakdown.production_kg, 0);
    const range = adj!.groups.display!.year_range!;
    const far = calculateFootprint(input({ brand: 'Dell', release_year: range[1] + 30 }));
    // beyond the fitted range the trend is held at the last fitted year (no per-year offset exists there)
    const last = calculateFootprint(input({ brand: 'Dell', release_year: range[1] + 1 }));
    expect(far.embodied_kg).toBe(last.embodied_kg);
  });

  it('the interval of a known brand without a release year is the one measured without it; an unknown brand keeps its own', () => {
    const display = groupFit(ENGINE_PARAMETERS, 'display');
    // no use phase (grid factor 0): uncertainty_pct is the embodied part, p80 x the level's multiplier
    const embodiedPct = (over: Partial<FootprintInput>) =>
      calculateFootprint(input({ ...over, grid_factor_kg_per_kwh: 0 })).uncertainty_pct;
    expect(calculateFootprint(input()).confidence).toBe('estimated_medium');
    const m = ENGINE_PARAMETERS.confidence_multipliers.estimated_medium;
    expect(display.residual_abs_pct_unknown_year!.p80).toBeGreaterThan(display.residual_abs_pct.p80);
    expect(embodiedPct({ brand: 'Dell', release_year: 2020 })).toBe(Math.round(display.residual_abs_pct.p80 * m));
    expect(embodiedPct({ brand: 'Dell' })).toBe(Math.round(display.residual_abs_pct_unknown_year!.p80 * m));
    expect(embodiedPct({ brand: 'Acme Displays Ltd' })).toBe(Math.round(display.residual_abs_pct_unknown_brand!.p80 * m));
    expect(embodiedPct({ brand: 'Acme Displays Ltd', release_year: 2020 })).toBe(embodiedPct({ brand: 'Acme Displays Ltd' }));
  });

  it('groups without calibration data are not adjusted', () => {
    const mouse = getCategory('mouse')!;
    const base = { category: mouse, specs: {}, supplied_spec_count: 0, grid_factor_kg_per_kwh: 0.3, use_region: 'DE' };
    expect(calculateFootprint({ ...base, brand: 'Dell', release_year: 2020 }).embodied_kg).toBe(calculateFootprint(base).embodied_kg);
  });
});
