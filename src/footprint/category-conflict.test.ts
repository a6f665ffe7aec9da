import { describe, expect, it } from 'vitest';
import { categoryConflict } from './category-conflict.ts';
import type { CatalogueMatch } from '../catalogue/service.ts';

const matchOf = (name: string, category: string): CatalogueMatch => ({
  entry: { brand: 'Acme', mpn: 'X1', name, category, release_year: 2023, aliases: [], specs: {}, source: {} },
  product_id: null,
  source: 'built-in catalogue',
});

describe('categoryConflict', () => {
  it('is silent when the categories agree', () => {
    expect(categoryConflict('laptop', matchOf('Acme Book 14', 'laptop'))).toBeUndefined();
  });

  it('uses a device of a more specific category of the same kind, and says so', () => {
    for (const [given, found] of [
      ['laptop', 'convertible'],
      ['desktop', 'mini_pc'],
      ['server', 'tower_server'],
      ['printer', 'multifunction_printer'],
      ['mobile_workstation', 'laptop'],
    ]) {
      const c = categoryConflict(given!, matchOf('Acme Thing', found!));
      expect(c?.use).toBe('device');
      expect(c?.warning).toBe(
        `category '${given}' given; the identified device Acme Thing (Acme) is a ${found}, a more specific category of the same kind: estimated as ${found}`,
      );
    }
  });

  it('keeps the category given and leaves out a device of another kind, and says so', () => {
    for (const [given, found] of [
      ['laptop', 'smartphone'],
      ['laptop', 'desktop'],
      ['monitor', 'television'],
      ['tablet', 'smartphone'],
    ]) {
      const c = categoryConflict(given!, matchOf('Acme Thing', found!));
      expect(c?.use).toBe('requested');
      expect(c?.warning).toBe(
        `category '${given}' given, but the model name matched Acme Thing (Acme), a ${found}: that device is not used and the estimate is for a ${given}; send category '${found}' or none to use it`,
      );
    }
  });
});
