import { describe, expect, it } from 'vitest';
import { getCategory } from './categories.ts';
import { outsideRealRange } from './limits.ts';

const laptop = getCategory('laptop')!;
const server = getCategory('server')!;

describe('outsideRealRange', () => {
  it('names values accepted but beyond the real products of the category', () => {
    expect(outsideRealRange({ weight_kg: 15.6 }, laptop)).toEqual([{ field: 'weight_kg', reason: '15.6 kg is beyond the heaviest real products of category laptop (6 kg)' }]);
    expect(outsideRealRange({ weight_kg: 1.4, screen_size_inch: 14 }, laptop)).toEqual([]);
    expect(outsideRealRange({ screen_size_inch: 4 }, server)).toEqual([{ field: 'screen_size_inch', reason: '4 inches on a server, which has no built-in screen' }]);
    expect(outsideRealRange({ screen_size_inch: 0 }, server)).toEqual([]);
  });
});
