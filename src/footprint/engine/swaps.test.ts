import { describe, expect, it } from 'vitest';
import { parseSwaps, SwapParseError, swapToken } from './swaps.ts';

const fails = (input: string): SwapParseError => {
  try {
    parseSwaps(input);
  } catch (e) {
    if (e instanceof SwapParseError) return e;
    throw e;
  }
  throw new Error(`expected '${input}' to fail`);
};

describe('parseSwaps', () => {
  it('parses every token kind', () => {
    expect(parseSwaps('battery:56,storage:512:nvme,ram:16:2,display:14:ips,keyboard_trackpad')).toEqual([
      { kind: 'battery', wh: 56 },
      { kind: 'storage', gb: 512, storage_type: 'nvme' },
      { kind: 'ram', total_gb: 16, modules: 2 },
      { kind: 'display', inches: 14, screen_type: 'ips' },
      { kind: 'keyboard_trackpad' },
    ]);
  });

  it('tolerates whitespace, case and decimals; empty means no swaps', () => {
    expect(parseSwaps(' Battery : 49.5 , STORAGE:1000:SSD ')).toEqual([
      { kind: 'battery', wh: 49.5 },
      { kind: 'storage', gb: 1000, storage_type: 'ssd' },
    ]);
    expect(parseSwaps('')).toEqual([]);
    expect(parseSwaps('   ')).toEqual([]);
    expect(parseSwaps('display:13.3:mini_led')).toEqual([{ kind: 'display', inches: 13.3, screen_type: 'mini_led' }]);
  });

  it.each([
    ['battery', 'battery', 'expected battery:<wh>'],
    ['battery:', 'battery:', 'missing battery capacity'],
    ['battery:abc', 'battery:abc', "'abc' is not a positive number"],
    ['battery:-5', 'battery:-5', 'is not a positive number'],
    ['battery:0', 'battery:0', 'must be greater than 0'],
    ['battery:5000', 'battery:5000', 'at most 2000'],
    ['battery:50:extra', 'battery:50:extra', 'expected battery:<wh>'],
    ['storage:512', 'storage:512', 'expected storage:<gb>:<storage_type>'],
    ['storage:512:floppy', 'storage:512:floppy', "storage_type 'floppy' must be one of ssd, hdd, emmc, nvme"],
    ['storage:x:ssd', 'storage:x:ssd', 'not a positive number'],
    ['ram:2', 'ram:2', 'expected ram:<total_gb>:<modules>'],
    ['ram:16:1.5', 'ram:16:1.5', 'module count must be a whole number'],
    ['ram:16:0', 'ram:16:0', 'module count must be at least 1'],
    ['ram:0:2', 'ram:0:2', 'total memory (GB) must be greater than 0'],
    ['ram:2:8', 'ram:2:8', 'ram:<total_gb>:<modules> puts 2 GB in 8 modules (0.25 GB each); a module holds 1 to 1024 GB'],
    ['ram:4096:2', 'ram:4096:2', '4096 GB in 2 modules (2048 GB each)'],
    ['display:14:plasma', 'display:14:plasma', "screen_type 'plasma' must be one of lcd, oled, ips, tn, va, mini_led"],
    ['display:0.5:ips', 'display:0.5:ips', 'display size (inches) must be at least 1'],
    ['keyboard_trackpad:1', 'keyboard_trackpad:1', 'takes no arguments'],
    ['cpu:1', 'cpu:1', "unknown swap kind 'cpu'"],
    [':5', ':5', 'missing swap kind'],
    ['battery:50,,ram:16:2', '', 'empty token'],
    ['battery:50,', '', 'empty token'],
  ])('rejects %j naming the token', (input, token, reason) => {
    const e = fails(input);
    expect(e.token).toBe(token);
    expect(e.reason).toContain(reason);
    expect(e.message).toContain(`'${token}'`);
    expect(e.message).toContain(e.reason);
  });

  it('names the first bad token in a list', () => {
    const e = fails('battery:50, storage:256:tape, ram:16:2');
    expect(e.token).toBe('storage:256:tape');
  });

  it('normalises tokens', () => {
    for (const t of ['battery:56', 'storage:512:nvme', 'ram:16:2', 'display:14:ips', 'keyboard_trackpad']) {
      expect(swapToken(parseSwaps(t)[0]!)).toBe(t);
    }
  });
});
