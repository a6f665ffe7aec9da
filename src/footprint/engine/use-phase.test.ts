import { describe, expect, it } from 'vitest';
import { getCategory } from './categories.ts';
import { resolveSpecs } from './specs.ts';
import { annualKwh, profileKwh, usePhaseKg } from './use-phase.ts';

const laptop = getCategory('laptop')!;
const monitor = getCategory('monitor')!;

describe('use phase', () => {
  it('uses typical_consumption_kwh when given', () => {
    const e = annualKwh(laptop, resolveSpecs(laptop, { typical_consumption_kwh: 18.5 }));
    expect(e).toEqual({ kwh: 18.5, measured: true });
  });

  it('falls back to the category profile at the default specs', () => {
    const e = annualKwh(laptop, resolveSpecs(laptop, {}));
    expect(e.measured).toBe(false);
    expect(e.kwh).toBeCloseTo(laptop.fallback_kwh_per_year, 9);
  });

  it('scales the profile with TDP and screen size', () => {
    const base = profileKwh(laptop, 15, 14);
    expect(profileKwh(laptop, 45, 14)).toBeGreaterThan(base);
    expect(profileKwh(laptop, 15, 17)).toBeGreaterThan(base);
    // fallback x (1 - a - b + a x 30/15 + b), a = tdp_share
    const a = laptop.parameters.use_phase.tdp_share;
    expect(profileKwh(laptop, 30, 14)).toBeCloseTo(laptop.fallback_kwh_per_year * (1 + a), 9);
    // monitors: screen only (no processor in the default)
    expect(profileKwh(monitor, 0, 32)).toBeGreaterThan(profileKwh(monitor, 0, 24));
  });

  it('bounds the profile', () => {
    expect(profileKwh(laptop, 0, 0)).toBeCloseTo(laptop.fallback_kwh_per_year * Math.max(0.2, 1 - 0.5 - 0.3), 9);
    expect(profileKwh(laptop, 10_000, 14)).toBeCloseTo(laptop.fallback_kwh_per_year * 6, 9);
  });

  it('kWh x lifetime x grid factor', () => {
    expect(usePhaseKg(25, 4, 0.4)).toBeCloseTo(40, 9);
    expect(usePhaseKg(25, 4, 0)).toBe(0);
    expect(usePhaseKg(-5, 4, 0.4)).toBe(0);
  });
});
