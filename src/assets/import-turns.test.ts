import { describe, expect, it } from 'vitest';
import { mapLimited } from './import.ts';

describe('mapLimited', () => {
  it('gives the event loop a turn after each item, so a large import of rows that resolve without I/O does not hold other requests', async () => {
    // Items that resolve at once, as a footprint from warm caches does: without a yield they would all run in one task.
    let turns = 0;
    let done = false;
    const tick = () => {
      turns++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const results = await mapLimited([1, 2, 3, 4, 5, 6, 7, 8], 2, async (n) => n * 10);
    done = true;
    expect(results).toEqual([10, 20, 30, 40, 50, 60, 70, 80]);
    // Two workers, eight items: a turn after every pair of items.
    expect(turns).toBeGreaterThanOrEqual(3);
  });
});
