/**
 * Brand and release-year keys of the calibration adjustments (section 3.3 of docs/methodology.md).
 * Pure helpers: the API passes the product's brand and the catalogue's release year; the fit
 * uses the same normalisation on the manufacturer column of the calibration set.
 */

/** Legal-form and filler words that do not identify a manufacturer. */
const DROP_TOKENS = new Set([
  'inc',
  'incorporated',
  'corp',
  'corporation',
  'co',
  'company',
  'ltd',
  'limited',
  'llc',
  'plc',
  'gmbh',
  'ag',
  'sa',
  'sas',
  'bv',
  'nv',
  'kk',
  'oy',
  'ab',
  'spa',
  'srl',
  'pte',
  'pty',
  'group',
  'holdings',
  'international',
  'technologies',
  'technology',
  'electronics',
  'computer',
  'computers',
  'computing',
  'the',
]);

/** Aliases after normalisation (lower case, punctuation removed, legal forms dropped). */
const ALIASES: Record<string, string> = {
  hp: 'hp',
  hpe: 'hp',
  'hewlett packard': 'hp',
  'hewlett packard enterprise': 'hp',
  'hp enterprise': 'hp',
  'dell emc': 'dell',
  emc: 'dell',
  alienware: 'dell',
  asustek: 'asus',
  'republic of gamers': 'asus',
  'lenovo pc': 'lenovo',
  'samsung display': 'samsung',
  'apple computer': 'apple',
  'google pixel': 'google',
  'microsoft surface': 'microsoft',
  surface: 'microsoft',
};

/**
 * Normalised brand key: lower case, accents and punctuation removed, legal forms ('Inc.',
 * 'Corporation', 'Technologies', ...) dropped, known aliases merged ('HP Inc.', 'Hewlett-Packard',
 * 'Hewlett Packard Enterprise' -> 'hp'; 'Dell Technologies', 'Dell EMC' -> 'dell';
 * 'ASUSTeK Computer Inc.' -> 'asus'). Returns null for a missing or empty brand.
 */
export function normaliseBrand(brand: string | null | undefined): string | null {
  if (typeof brand !== 'string') return null;
  const base = brand
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
  if (base === '') return null;
  const tokens = base.split(' ').filter((t) => !DROP_TOKENS.has(t));
  const key = tokens.length > 0 ? tokens.join(' ') : base;
  return ALIASES[key] ?? key;
}

export const RELEASE_YEAR_MIN = 1990;
export const RELEASE_YEAR_MAX = 2100;

/** A usable release year (integer-valued, 1990..2100), else null. */
export function usableReleaseYear(year: number | null | undefined): number | null {
  if (typeof year !== 'number' || !Number.isFinite(year)) return null;
  const y = Math.round(year);
  return y >= RELEASE_YEAR_MIN && y <= RELEASE_YEAR_MAX ? y : null;
}

/** Year of a free-text date ('December 2018', '2022-2-6', '26/07/2019', '2020'), else null. */
export function yearOfDate(text: string | null | undefined): number | null {
  if (typeof text !== 'string') return null;
  const m = text.match(/(?:^|\D)((?:19|20)\d\d)(?!\d)/);
  return m ? usableReleaseYear(Number(m[1])) : null;
}
