/**
 * The release year of a device, from what is known of it, strongest first: the year the caller
 * states, the catalogue device's, the year of devices numbered like it (name-hints), and last a year
 * estimated from the unit's purchase date (docs/methodology.md section 3.4).
 */
import { type CategoryDefinition, usableReleaseYear } from './engine/index.ts';

/**
 * Years between a model's release and a unit's purchase that the estimate subtracts: the median lag
 * between the catalogue's release years and the dates of the manufacturers' footprint sheets of the
 * same models (the sheets date the models' time on the market): 0 years, 72 % of 272 models at 0, 86 %
 * within 1 year, 95 % within 2 (`npm run accuracy` measures it again).
 */
export const PURCHASE_LAG_YEARS = 0;

export type ReleaseYearBasis = 'stated' | 'catalogue' | 'model_number' | 'purchase_date';

export interface ReleaseYear {
  year: number;
  basis: ReleaseYearBasis;
}

/** The year of a purchase date (YYYY-MM-DD text or a Date), null when there is none. */
export function purchaseYear(date: string | Date | null | undefined): number | null {
  if (date instanceof Date) return Number.isNaN(date.getTime()) ? null : date.getUTCFullYear();
  const m = typeof date === 'string' ? /^(\d{4})-\d{2}-\d{2}/.exec(date.trim()) : null;
  return m ? Number(m[1]) : null;
}

/** The release year a purchase date is evidence of: its year less the measured lag, null without a usable date. */
export function yearFromPurchase(date: string | Date | null | undefined): number | null {
  const year = purchaseYear(date);
  return year === null ? null : usableReleaseYear(year - PURCHASE_LAG_YEARS);
}

/** The release year the estimate uses and its basis, or undefined when nothing dates the device. */
export function chooseReleaseYear(known: {
  stated?: number | null;
  catalogue?: number | null;
  modelNumber?: number | null;
  purchaseDate?: string | Date | null;
}): ReleaseYear | undefined {
  if (known.stated) return { year: known.stated, basis: 'stated' };
  if (known.catalogue) return { year: known.catalogue, basis: 'catalogue' };
  if (known.modelNumber) return { year: known.modelNumber, basis: 'model_number' };
  const estimated = yearFromPurchase(known.purchaseDate);
  return estimated === null ? undefined : { year: estimated, basis: 'purchase_date' };
}

/**
 * The year the engine's year terms take for a device's release year. They are fitted on manufacturers'
 * footprint sheets dated by their report date; where a category's sheets are dated a measured lag after
 * the model's release (`sheet_year_lag`, servers: 2 years), a release year stated, from the catalogue or
 * from the model number is moved by it. A year from a purchase date is not: a purchase, like a sheet,
 * dates the model's time on the market (docs/methodology.md section 3.4).
 */
export function engineYear(category: CategoryDefinition, year: ReleaseYear | undefined): number | undefined {
  if (!year) return undefined;
  return year.basis === 'purchase_date' ? year.year : year.year + (category.sheet_year_lag ?? 0);
}
