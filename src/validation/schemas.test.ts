import { describe, expect, it } from 'vitest';
import { fieldPath } from './schemas.ts';

describe('fieldPath', () => {
  it('names a field as the caller wrote it', () => {
    expect(fieldPath(['products', 3, 'country'])).toBe('products[3].country');
    expect(fieldPath(['ids', 0])).toBe('ids[0]');
    expect(fieldPath([{ key: 'assets' }, { key: 1 }, 'serial_number'])).toBe('assets[1].serial_number');
    expect(fieldPath([])).toBe('');
  });
});
