import { stringify } from 'csv-stringify/sync';

// Cells a spreadsheet would evaluate as a formula (OWASP "CSV injection"): =, +, -, @, tab, CR.
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell made inert for spreadsheets: a leading apostrophe, which Excel and LibreOffice show as text. */
export function neutraliseFormula(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

/**
 * CSV the service writes for people (exports, reports): RFC 4180 quoting by csv-stringify, and
 * every text cell that would start a formula neutralised. Numbers, booleans and dates are
 * written as values, so a negative number stays a number. Imports store values as sent.
 */
export function toSpreadsheetCsv(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return stringify([header, ...rows] as unknown[][], {
    cast: {
      string: (value) => neutraliseFormula(value),
      date: (value) => value.toISOString(),
      boolean: (value) => (value ? 'true' : 'false'),
    },
  });
}
