/**
 * The caller's explicit category against the category of the catalogue device its name identified.
 * Never silent: the result's methodology.warnings says which was used and why (docs/catalogue.md).
 */
import type { CatalogueMatch } from '../catalogue/service.ts';

/**
 * Categories that name one kind of product at different detail: a caller's "laptop" is the
 * catalogue's convertible or mobile workstation, a "desktop" its mini PC or all-in-one.
 */
const SAME_KIND: readonly (readonly string[])[] = [
  ['laptop', 'chromebook', 'convertible', 'rugged_laptop', 'mobile_workstation'],
  ['desktop', 'all_in_one', 'workstation', 'thin_client', 'mini_pc'],
  ['server', 'tower_server', 'blade_server'],
  ['printer', 'multifunction_printer', 'label_printer'],
];

const sameKind = (a: string, b: string): boolean => SAME_KIND.some((kind) => kind.includes(a) && kind.includes(b));

/** What to do when the caller's category and the identified device's differ. */
export interface CategoryConflict {
  /** `device`: the device is used with its category; `requested`: the device is not used. */
  use: 'device' | 'requested';
  warning: string;
}

/**
 * The rule: a device of a more specific category of the same kind (SAME_KIND) is used with its
 * category, since the caller named the kind and the catalogue knows the form; a device of another
 * kind is not used, and the estimate is for the category the caller gave, since a name that
 * matched a smartphone for a caller who says laptop more likely names another product than the
 * caller mistook a phone for a laptop. Undefined when the categories agree.
 */
export function categoryConflict(requested: string, match: CatalogueMatch): CategoryConflict | undefined {
  const found = match.entry.category;
  if (found === requested) return undefined;
  const device = `${match.entry.name} (${match.entry.brand})`;
  if (sameKind(requested, found)) {
    return {
      use: 'device',
      warning: `category '${requested}' given; the identified device ${device} is a ${found}, a more specific category of the same kind: estimated as ${found}`,
    };
  }
  return {
    use: 'requested',
    warning: `category '${requested}' given, but the model name matched ${device}, a ${found}: that device is not used and the estimate is for a ${requested}; send category '${found}' or none to use it`,
  };
}
