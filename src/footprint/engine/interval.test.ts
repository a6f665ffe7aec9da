import { describe, expect, it } from 'vitest';
import { INTERVAL_METHOD, insideInterval, intervalErrorPct, statedInterval, uncertaintyInterval } from './interval.ts';

describe('uncertaintyInterval', () => {
  it('is value / (1 + u) to value x (1 + u): above zero and with low x high = value^2, whatever u', () => {
    const value = 218.76;
    for (const u of [0, 15, 110, 300]) {
      const { low_kg, high_kg } = uncertaintyInterval(value, u);
      expect(low_kg, `u ${u}`).toBeGreaterThan(0);
      expect(low_kg, `u ${u}`).toBeLessThanOrEqual(value);
      expect(high_kg, `u ${u}`).toBeGreaterThanOrEqual(value);
      // each bound is rounded to 0.005 kg
      expect(Math.abs(low_kg * high_kg - value * value), `u ${u}`).toBeLessThanOrEqual(0.005 * (low_kg + high_kg) + 1e-4);
    }
    expect(uncertaintyInterval(value, 0)).toEqual({ low_kg: 218.76, high_kg: 218.76 });
    expect(uncertaintyInterval(value, 15)).toEqual({ low_kg: 190.23, high_kg: 251.57 });
    // a symmetric +/-110 % would read -21.88 to 459.4
    expect(uncertaintyInterval(value, 110)).toEqual({ low_kg: 104.17, high_kg: 459.4 });
    expect(uncertaintyInterval(value, 300)).toEqual({ low_kg: 54.69, high_kg: 875.04 });
  });

  it('names its form when stated', () => {
    expect(statedInterval(100, 25)).toEqual({ low_kg: 80, high_kg: 125, method: INTERVAL_METHOD });
    expect(INTERVAL_METHOD).toMatch(/value \/ \(1 \+ u\) to value x \(1 \+ u\)/);
  });
});

describe('insideInterval and intervalErrorPct (the calibration coverage measure)', () => {
  it('tests the stated interval, not value +/- u', () => {
    // 100 +/- 50 % would hold 50; the stated interval is 66.7 to 150
    expect(insideInterval(100, 50, 50)).toBe(false);
    expect(insideInterval(100, 66.7, 50)).toBe(true);
    expect(insideInterval(100, 66.6, 50)).toBe(false);
    expect(insideInterval(100, 150, 50)).toBe(true);
    expect(insideInterval(100, 150.1, 50)).toBe(false);
    // a symmetric band reaches every value above the estimate once u >= 100 %; this one does not
    expect(insideInterval(100, 500, 300)).toBe(false);
  });

  it('is the smallest u whose interval holds the value, the same for under- and over-estimates by one factor', () => {
    expect(intervalErrorPct(100, 200)).toBeCloseTo(100, 9);
    expect(intervalErrorPct(200, 100)).toBeCloseTo(100, 9);
    expect(intervalErrorPct(100, 100)).toBe(0);
    for (const [estimate, actual] of [
      [100, 130],
      [130, 100],
      [5, 61],
      [61, 5],
    ] as const) {
      const u = intervalErrorPct(estimate, actual);
      expect(insideInterval(estimate, actual, u + 1e-9)).toBe(true);
      expect(insideInterval(estimate, actual, u - 1e-6)).toBe(false);
    }
  });
});
