import { describe, expect, it } from 'vitest';
import { getCategory } from './categories.ts';
import type { DeviceSpecs } from './types.ts';
import {
  outsideRealRange, validateCategoryId, validateGrade, validateGridFactor, validateLifetimeYears, validateRemainingYears, validateSpecs, validateSwaps,
} from './validate.ts';

const laptop = getCategory('laptop')!;
const server = getCategory('server')!;
const monitor = getCategory('monitor')!;

describe('validateSpecs', () => {
  it('accepts plausible specs and empty specs', () => {
    expect(validateSpecs({ weight_kg: 1.4, screen_size_inch: 14, screen_type: 'ips', processor_tdp_w: 28, ram_gb: 16, storage_gb: 512, storage_type: 'nvme', battery_wh: 56, typical_consumption_kwh: 22 }, laptop)).toEqual([]);
    expect(validateSpecs({}, laptop)).toEqual([]);
  });

  it('weight must be > 0 and below a category-aware absurd limit', () => {
    expect(validateSpecs({ weight_kg: 0 }, laptop)).toEqual([{ field: 'weight_kg', reason: 'must be greater than 0' }]);
    expect(validateSpecs({ weight_kg: -1 }, laptop)[0]?.reason).toBe('must be greater than 0');
    // refusal bound = heaviest real laptop (6 kg) x WEIGHT_MARGIN 3: a sheet's 15.6 kg slip passes (with a note), 5000 kg does not
    expect(validateSpecs({ weight_kg: 15.6 }, laptop)).toEqual([]);
    expect(validateSpecs({ weight_kg: 5000 }, laptop)).toEqual([{ field: 'weight_kg', reason: 'must be below 18 kg for category laptop' }]);
    expect(validateSpecs({ weight_kg: 15.6 }, server)).toEqual([]);
    expect(validateSpecs({ weight_kg: 18 }, laptop)).toHaveLength(1); // strict upper bound
    expect(validateSpecs({ weight_kg: 17.9 }, laptop)).toEqual([]);
  });

  it('large-format monitors and interactive panels past 100 kg, thin clients with stands are accepted', () => {
    expect(validateSpecs({ weight_kg: 64, screen_size_inch: 75 }, monitor)).toEqual([]);
    expect(validateSpecs({ weight_kg: 140, screen_size_inch: 98 }, getCategory('interactive_display')!)).toEqual([]);
    expect(validateSpecs({ weight_kg: 6, screen_size_inch: 21.5 }, getCategory('thin_client')!)).toEqual([]);
    expect(validateSpecs({ weight_kg: 500 }, monitor)).toEqual([{ field: 'weight_kg', reason: 'must be below 300 kg for category monitor' }]);
    expect(validateSpecs({ screen_size_inch: 200 }, monitor)).toEqual([{ field: 'screen_size_inch', reason: 'must be at most 107.5 inches for category monitor' }]);
  });

  it('outsideRealRange names values accepted but beyond the real products of the category', () => {
    expect(outsideRealRange({ weight_kg: 15.6 }, laptop)).toEqual([{ field: 'weight_kg', reason: '15.6 kg is beyond the heaviest real products of category laptop (6 kg)' }]);
    expect(outsideRealRange({ weight_kg: 1.4, screen_size_inch: 14 }, laptop)).toEqual([]);
    expect(outsideRealRange({ screen_size_inch: 4 }, server)).toEqual([{ field: 'screen_size_inch', reason: '4 inches on a server, which has no built-in screen' }]);
    expect(outsideRealRange({ screen_size_inch: 0 }, server)).toEqual([]);
  });

  it('numbers must be finite; other fields not negative and within limits', () => {
    expect(validateSpecs({ ram_gb: Number.NaN }, laptop)).toEqual([{ field: 'ram_gb', reason: 'must be a finite number' }]);
    expect(validateSpecs({ storage_gb: -1 }, laptop)).toEqual([{ field: 'storage_gb', reason: 'must not be negative' }]);
    expect(validateSpecs({ screen_size_inch: 80 }, laptop)[0]?.field).toBe('screen_size_inch');
    // a server's front-panel status LCD (sheets list 4 inches) is accepted up to STATUS_PANEL_MAX_INCH (5)
    expect(validateSpecs({ screen_size_inch: 4 }, server)).toEqual([]);
    expect(validateSpecs({ screen_size_inch: 24 }, server)).toEqual([{ field: 'screen_size_inch', reason: 'must be at most 5 inches (a status panel): a server has no built-in screen' }]);
    expect(validateSpecs({ screen_size_inch: 49 }, monitor)).toEqual([]);
    expect(validateSpecs({ battery_wh: 1000 }, laptop)[0]?.field).toBe('battery_wh');
    expect(validateSpecs({ processor_tdp_w: 5000 }, laptop)[0]?.field).toBe('processor_tdp_w');
    expect(validateSpecs({ typical_consumption_kwh: 1e6 }, laptop)[0]?.field).toBe('typical_consumption_kwh');
    expect(validateSpecs({ weight_kg: 'heavy' } as unknown as DeviceSpecs, laptop)).toEqual([{ field: 'weight_kg', reason: 'must be a finite number' }]);
  });

  it('screen_type and storage_type enums', () => {
    expect(validateSpecs({ screen_type: 'plasma' } as unknown as DeviceSpecs, laptop)).toEqual([
      { field: 'screen_type', reason: 'must be one of lcd, oled, ips, tn, va, mini_led' },
    ]);
    expect(validateSpecs({ storage_type: 'tape' } as unknown as DeviceSpecs, laptop)).toEqual([
      { field: 'storage_type', reason: 'must be one of ssd, hdd, emmc, nvme' },
    ]);
  });

  it('reports every problem', () => {
    expect(validateSpecs({ weight_kg: 0, ram_gb: -2, screen_type: 'x' } as unknown as DeviceSpecs, laptop).map((p) => p.field)).toEqual(['weight_kg', 'ram_gb', 'screen_type']);
  });
});

describe('other validators', () => {
  it('remaining_years within 0..15', () => {
    expect(validateRemainingYears(0)).toEqual([]);
    expect(validateRemainingYears(15)).toEqual([]);
    expect(validateRemainingYears(2.5)).toEqual([]);
    expect(validateRemainingYears(-1)).toEqual([{ field: 'remaining_years', reason: 'must be between 0 and 15 years' }]);
    expect(validateRemainingYears(16)).toHaveLength(1);
    expect(validateRemainingYears(Number.NaN)).toEqual([{ field: 'remaining_years', reason: 'must be a finite number' }]);
    expect(validateRemainingYears('2')).toHaveLength(1);
  });

  it('lifetime, grid factor, grade, category, swaps', () => {
    expect(validateLifetimeYears(4)).toEqual([]);
    expect(validateLifetimeYears(0)).toHaveLength(1);
    expect(validateGridFactor(0.4)).toEqual([]);
    expect(validateGridFactor(-0.1)).toHaveLength(1);
    expect(validateGrade('A')).toEqual([]);
    expect(validateGrade('D')).toEqual([{ field: 'grade', reason: 'must be one of A (Like New), B (Good), C (Fair)' }]);
    expect(validateCategoryId('monitor')).toEqual([]);
    expect(validateCategoryId('toaster')).toHaveLength(1);
    expect(validateSwaps('battery:50,ram:2:8')).toEqual([]);
    expect(validateSwaps(undefined)).toEqual([]);
    expect(validateSwaps('battery:x')).toEqual([{ field: 'swaps', reason: "invalid swap token 'battery:x': battery capacity (Wh) 'x' is not a positive number" }]);
  });
});
