import { describe, expect, it } from 'vitest';
import { CATEGORIES, getCategory } from './categories.ts';
import { calculateFootprint } from './footprint.ts';
import { round2 } from './rounding.ts';
import { specEstimates } from './spec-estimates.ts';
import { SPEC_FIELDS, type DeviceSpecs } from './types.ts';

const footprintOf = (id: string, specs: DeviceSpecs, year?: number) =>
  calculateFootprint({
    category: getCategory(id)!,
    specs,
    supplied_spec_count: 0,
    grid_factor_kg_per_kwh: 0.4,
    use_region: 'DE',
    ...(year !== undefined ? { release_year: year } : {}),
  });

describe('specEstimates', () => {
  it.each([
    [{}, undefined],
    [{}, 2019],
    [{ screen_size_inch: 27, battery_wh: 0.5 }, 2023],
  ] as [DeviceSpecs, number | undefined][])(
    'gives, in every category, the values its footprint uses (specs %j, year %s)',
    (specs, year) => {
      for (const category of CATEGORIES) {
        const estimates = specEstimates(category, specs, year);
        const footprint = footprintOf(category.id, specs, year);
        const used: Record<string, unknown> = { ...footprint.specs_used, typical_consumption_kwh: footprint.annual_kwh };
        for (const field of SPEC_FIELDS) {
          const e = estimates[field];
          if (specs[field] !== undefined) {
            expect(e, `${category.id} ${field}`).toBeUndefined();
            continue;
          }
          expect(e, `${category.id} ${field}`).toBeDefined();
          if (e!.basis === 'not_applicable') expect(e!.value, `${category.id} ${field}`).toBeNull();
          else {
            const value = used[field];
            expect(e!.value, `${category.id} ${field}`).toBe(typeof value === 'number' ? round2(value) : value);
          }
        }
      }
    },
  );

  it('says the basis: energy model, weight from the screen, typical configuration of the year, no such part', () => {
    const monitor = specEstimates(getCategory('monitor')!, { screen_size_inch: 34 }, 2022);
    expect(monitor.weight_kg).toMatchObject({ basis: 'estimated', note: 'category default 5 kg scaled with the screen size' });
    expect(monitor.weight_kg!.value).toBeGreaterThan(5);
    expect(monitor.typical_consumption_kwh).toMatchObject({
      basis: 'estimated',
      note: expect.stringMatching(/^energy model: category monitor/),
    });
    expect(monitor.ram_gb).toEqual({ value: null, basis: 'not_applicable', note: 'a monitor has no memory: the footprint counts none' });
    const laptop = specEstimates(getCategory('laptop')!, {}, 2019);
    expect(laptop.ram_gb).toMatchObject({
      basis: 'category_typical',
      note: expect.stringMatching(/^typical configuration of laptop devices of 20\d\d/),
    });
    expect(laptop.screen_type).toEqual({ value: 'ips', basis: 'category_typical', note: 'category default (laptop)' });
    const router = specEstimates(getCategory('router')!, {});
    expect(router.typical_consumption_kwh!.note).toMatch(/^category profile .* no energy-model calibration for router$/);
  });
});
