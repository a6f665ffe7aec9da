import { describe, expect, it } from 'vitest';
import { getCategory } from './engine/index.ts';
import type { CategoryDefinition, DeviceSpecs } from './engine/index.ts';
import { problemsOf } from '../validation/schemas.ts';
import { deviceSpecs } from './inputs.ts';

const laptop = getCategory('laptop')!;
const server = getCategory('server')!;
const monitor = getCategory('monitor')!;
const specProblems = (specs: DeviceSpecs, category: CategoryDefinition) => problemsOf(deviceSpecs(category), specs);

describe('deviceSpecs', () => {
  it('accepts plausible specs and empty specs', () => {
    expect(
      specProblems(
        {
          weight_kg: 1.4,
          screen_size_inch: 14,
          screen_type: 'ips',
          processor_tdp_w: 28,
          ram_gb: 16,
          storage_gb: 512,
          storage_type: 'nvme',
          battery_wh: 56,
          typical_consumption_kwh: 22,
        },
        laptop,
      ),
    ).toEqual([]);
    expect(specProblems({}, laptop)).toEqual([]);
  });

  it('weight must be > 0 and below a category-aware absurd limit', () => {
    expect(specProblems({ weight_kg: 0 }, laptop)).toEqual([{ field: 'weight_kg', reason: 'must be greater than 0' }]);
    expect(specProblems({ weight_kg: -1 }, laptop)[0]?.reason).toBe('must be greater than 0');
    // refusal bound = heaviest real laptop (6 kg) x WEIGHT_MARGIN 3: a sheet's 15.6 kg slip passes (with a note), 5000 kg does not
    expect(specProblems({ weight_kg: 15.6 }, laptop)).toEqual([]);
    expect(specProblems({ weight_kg: 5000 }, laptop)).toEqual([{ field: 'weight_kg', reason: 'must be below 18 kg for category laptop' }]);
    expect(specProblems({ weight_kg: 15.6 }, server)).toEqual([]);
    expect(specProblems({ weight_kg: 18 }, laptop)).toHaveLength(1); // strict upper bound
    expect(specProblems({ weight_kg: 17.9 }, laptop)).toEqual([]);
  });

  it('large-format monitors and interactive panels past 100 kg, thin clients with stands are accepted', () => {
    expect(specProblems({ weight_kg: 64, screen_size_inch: 75 }, monitor)).toEqual([]);
    expect(specProblems({ weight_kg: 140, screen_size_inch: 98 }, getCategory('interactive_display')!)).toEqual([]);
    expect(specProblems({ weight_kg: 6, screen_size_inch: 21.5 }, getCategory('thin_client')!)).toEqual([]);
    expect(specProblems({ weight_kg: 500 }, monitor)).toEqual([
      { field: 'weight_kg', reason: 'must be below 300 kg for category monitor' },
    ]);
    expect(specProblems({ screen_size_inch: 200 }, monitor)).toEqual([
      { field: 'screen_size_inch', reason: 'must be at most 107.5 inches for category monitor' },
    ]);
  });

  it('numbers must be finite; other fields not negative and within limits', () => {
    expect(specProblems({ ram_gb: Number.NaN }, laptop)).toEqual([{ field: 'ram_gb', reason: 'must be a finite number' }]);
    expect(specProblems({ storage_gb: -1 }, laptop)).toEqual([{ field: 'storage_gb', reason: 'must not be negative' }]);
    expect(specProblems({ screen_size_inch: 80 }, laptop)[0]?.field).toBe('screen_size_inch');
    // a server's front-panel status LCD (sheets list 4 inches) is accepted up to STATUS_PANEL_MAX_INCH (5)
    expect(specProblems({ screen_size_inch: 4 }, server)).toEqual([]);
    expect(specProblems({ screen_size_inch: 24 }, server)).toEqual([
      { field: 'screen_size_inch', reason: 'must be at most 5 inches (a status panel): a server has no built-in screen' },
    ]);
    expect(specProblems({ screen_size_inch: 49 }, monitor)).toEqual([]);
    expect(specProblems({ battery_wh: 1000 }, laptop)[0]?.field).toBe('battery_wh');
    expect(specProblems({ processor_tdp_w: 5000 }, laptop)[0]?.field).toBe('processor_tdp_w');
    expect(specProblems({ typical_consumption_kwh: 1e6 }, laptop)[0]?.field).toBe('typical_consumption_kwh');
    expect(specProblems({ weight_kg: 'heavy' } as unknown as DeviceSpecs, laptop)).toEqual([
      { field: 'weight_kg', reason: 'must be a finite number' },
    ]);
  });

  it('screen_type and storage_type enums', () => {
    expect(specProblems({ screen_type: 'plasma' } as unknown as DeviceSpecs, laptop)).toEqual([
      { field: 'screen_type', reason: 'must be one of lcd, oled, ips, tn, va, mini_led' },
    ]);
    expect(specProblems({ storage_type: 'tape' } as unknown as DeviceSpecs, laptop)).toEqual([
      { field: 'storage_type', reason: 'must be one of ssd, hdd, emmc, nvme' },
    ]);
  });

  it('reports every problem', () => {
    expect(specProblems({ weight_kg: 0, ram_gb: -2, screen_type: 'x' } as unknown as DeviceSpecs, laptop).map((p) => p.field)).toEqual([
      'weight_kg',
      'ram_gb',
      'screen_type',
    ]);
  });
});
