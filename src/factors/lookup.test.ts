import { describe, expect, it } from 'vitest';
import { utcDay, vintageAt } from './lookup.ts';

const d = (s: string) => new Date(`${s}T00:00:00Z`);
const v = (id: string, from: string, to: string | null) => ({ id, valid_from: d(from), valid_to: to ? d(to) : null });
const DE = [
  v('2023', '2023-01-01', '2023-12-31'),
  v('2021', '2021-01-01', '2021-12-31'),
  v('2022', '2022-01-01', '2022-12-31'),
  v('2024', '2024-01-01', null),
];

describe('vintageAt', () => {
  it('answers the vintage whose validity period contains the day, whatever the list order', () => {
    expect(vintageAt(DE, d('2022-06-30'))?.id).toBe('2022');
    expect(vintageAt(DE, d('2023-12-31'))?.id).toBe('2023');
    expect(vintageAt(DE, d('2024-01-01'))?.id).toBe('2024');
    expect(vintageAt(DE, d('2031-03-01'))?.id).toBe('2024');
  });

  it('compares UTC calendar days: late on the last day of a period is still that period', () => {
    expect(vintageAt(DE, new Date('2022-12-31T23:59:59.999Z'))?.id).toBe('2022');
    expect(vintageAt(DE, new Date('2023-01-01T00:00:00+01:00'))?.id).toBe('2022');
  });

  it('gives the oldest vintage for a day before the first one', () => {
    expect(vintageAt(DE, d('1999-01-01'))?.id).toBe('2021');
  });

  it('falls back to the latest started vintage in a gap or after a closed last vintage', () => {
    const gappy = [v('a', '2020-01-01', '2020-12-31'), v('b', '2022-01-01', '2022-12-31')];
    expect(vintageAt(gappy, d('2021-06-01'))?.id).toBe('a');
    expect(vintageAt(gappy, d('2024-06-01'))?.id).toBe('b');
  });

  it('is undefined for no vintages and rejects an invalid date', () => {
    expect(vintageAt([], d('2024-01-01'))).toBeUndefined();
    expect(() => utcDay(new Date('nope'))).toThrow(RangeError);
  });
});
