/** Number and date formats written on the documents: fixed locale (en-GB) and UTC, so output never depends on the host. */

const kgLarge = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 0 });
const kgSmall = new Intl.NumberFormat('en-GB', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const integer = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 0 });

/** "287.4" below 1,000 kg, "12,345" from there on: a tenth of a kg is noise in an organisation total. */
export function kg(value: number): string {
  return Math.abs(value) >= 1000 ? kgLarge.format(value) : kgSmall.format(value);
}

export const kgCo2e = (value: number): string => `${kg(value)} kg CO₂e`;

const fourDigits = new Intl.NumberFormat('en-GB', { maximumSignificantDigits: 4 });
/** ADPe (kg Sb eq) and PE (MJ) as the API rounds them: 4 significant digits (they span 1e-9 to 1e5). */
export const significant = (value: number): string => fourDigits.format(value);

export const count = (value: number): string => integer.format(value);

export function pct(value: number): string {
  return `${kgSmall.format(value)} %`;
}

const dateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
const timeFormat = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC', hourCycle: 'h23' });

/** "14 March 2025" for a date or date-time string; the input itself when it is not a date. */
export function date(value: string): string {
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? value : dateFormat.format(parsed);
}

/** "14 March 2025, 09:30 UTC". */
export function dateTime(value: string): string {
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? value : `${dateFormat.format(parsed)}, ${timeFormat.format(parsed)} UTC`;
}

const monthFormat = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });

/** "July 2025" for "2025-07". */
export function month(value: string): string {
  const parsed = new Date(`${value}-01T00:00:00Z`);
  return Number.isNaN(parsed.getTime()) ? value : monthFormat.format(parsed);
}

/** A signature fingerprint (hex) as upper-case groups of four: readable aloud and comparable by eye. */
export function fingerprint(hex: string): string {
  return (
    hex
      .replace(/[^0-9a-f]/gi, '')
      .toUpperCase()
      .match(/.{1,4}/g) ?? []
  ).join(' ');
}

/** "Dell Latitude 5440": catalogue names already start with the brand, estimates carry the model only. */
export function productName(brand: string, name: string): string {
  return name.toLowerCase().startsWith(brand.toLowerCase()) ? name : `${brand} ${name}`;
}
