import { describe, expect, it } from 'vitest';
import { getCategory } from './categories.ts';
import { EOL_KG_PER_KG } from './constants.ts';
import { endOfLifeFactor, endOfLifeKg } from './end-of-life.ts';

describe('end of life', () => {
  it('weight x factor of the material class', () => {
    const server = getCategory('server')!;
    expect(server.parameters.end_of_life.material_class).toBe('metal_rich');
    expect(endOfLifeKg(20, server, null)).toBeCloseTo(20 * EOL_KG_PER_KG.metal_rich, 9);
    const phone = getCategory('smartphone')!;
    expect(endOfLifeFactor(phone, null)).toBe(EOL_KG_PER_KG.battery_rich);
  });

  it('the fitted factor replaces the class prior', () => {
    const laptop = getCategory('laptop')!;
    expect(endOfLifeKg(2, laptop, 0.8)).toBeCloseTo(1.6, 9);
    expect(endOfLifeKg(-1, laptop, 0.8)).toBe(0);
  });

  it('has a prior for every material class used by a category', () => {
    for (const c of ['laptop', 'monitor', 'printer', 'tablet', 'server']) {
      expect(EOL_KG_PER_KG[getCategory(c)!.parameters.end_of_life.material_class]).toBeGreaterThan(0);
    }
  });
});
