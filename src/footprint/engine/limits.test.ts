import { describe, expect, it } from 'vitest';
import { getCategory } from './categories.ts';
import { outsideRealRange, specLimits, swapLimitProblems } from './limits.ts';
import { parseSwaps } from './swaps.ts';

const laptop = getCategory('laptop')!;
const server = getCategory('server')!;

describe('outsideRealRange', () => {
  it('names values accepted but beyond the real products of the category', () => {
    expect(outsideRealRange({ weight_kg: 15.6 }, laptop)).toEqual([
      { field: 'weight_kg', reason: '15.6 kg is beyond the heaviest real products of category laptop (6 kg)' },
    ]);
    expect(outsideRealRange({ weight_kg: 1.4, screen_size_inch: 14 }, laptop)).toEqual([]);
    expect(outsideRealRange({ screen_size_inch: 4 }, server)).toEqual([
      { field: 'screen_size_inch', reason: '4 inches on a server, which has no built-in screen' },
    ]);
    expect(outsideRealRange({ screen_size_inch: 0 }, server)).toEqual([]);
  });
});

describe('swapLimitProblems', () => {
  const laptop = getCategory('laptop')!;
  const server = getCategory('server')!;

  it('holds a swapped part to the bounds of its category, naming its place, the token and the allowed range', () => {
    const max = specLimits(laptop).screen_size_inch;
    expect(swapLimitProblems(parseSwaps(`battery:56,display:${max}:ips`), laptop)).toEqual([]);
    expect(swapLimitProblems(parseSwaps('battery:56,display:99:ips'), laptop)).toEqual([
      {
        field: 'swaps[1]',
        reason: `'display:99:ips': display size 99 inches is out of range for category laptop (allowed 1 to ${max} inches)`,
      },
    ]);
  });

  it('bounds battery, storage and total memory too; a server takes more memory than a laptop', () => {
    const l = specLimits(laptop);
    const problems = swapLimitProblems(
      parseSwaps(`battery:${l.battery_wh + 1},storage:${l.storage_gb * 2}:ssd,ram:${l.ram_gb * 2}:8,keyboard_trackpad`),
      laptop,
    );
    expect(problems.map((p) => p.field)).toEqual(['swaps[0]', 'swaps[1]', 'swaps[2]']);
    expect(problems[2]!.reason).toBe(
      `'ram:${l.ram_gb * 2}:8': total memory ${l.ram_gb * 2} GB is out of range for category laptop (allowed above 0 to ${l.ram_gb} GB)`,
    );
    expect(swapLimitProblems(parseSwaps(`ram:${l.ram_gb * 2}:8`), server)).toEqual([]);
  });
});
