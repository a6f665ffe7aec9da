/**
 * Asset import rows (pure): the CSV/JSON columns, CSV parsing and the checks that need nothing but
 * the row itself. The device columns (brand, mpn/model, category, country, specs) are checked
 * afterwards against the catalogue and reference data (src/assets/import.ts).
 */
import { parse } from 'csv-parse/sync';
import { ApiError, invalidParameter } from '../errors/api-error.ts';
import { ASSET_STATUS_VALUES, DEFAULT_ASSET_STATUS, isAssetStatus, type AssetStatus } from './status.ts';

export const MAX_IMPORT_ROWS = 1000;

// release_year is no spec but the unit's model year: stored with the specs the import states of the unit, checked with them.
export const NUMERIC_SPEC_COLUMNS = ['weight_kg', 'tdp', 'ram_gb', 'battery_wh', 'screen_size_inch', 'storage_gb', 'release_year'] as const;
export const TEXT_SPEC_COLUMNS = ['screen_type', 'storage_type'] as const;
export const SPEC_COLUMNS = [...NUMERIC_SPEC_COLUMNS, ...TEXT_SPEC_COLUMNS] as const;
/** The columns of a CSV import and the fields of a JSON import item (spec 2.1 names for the specs). */
export const ASSET_COLUMNS = [
  'brand',
  'mpn',
  'model',
  'serial_number',
  'category',
  'purchase_date',
  'country',
  'status',
  ...SPEC_COLUMNS,
] as const;

export type AssetSpecs = Partial<
  Record<(typeof NUMERIC_SPEC_COLUMNS)[number], number> & Record<(typeof TEXT_SPEC_COLUMNS)[number], string>
>;

/** One import item as received: CSV cells are strings, JSON fields may be numbers or null. */
export type AssetRowInput = Partial<Record<(typeof ASSET_COLUMNS)[number], string | number | null | undefined>>;

/** A row that passed the row-level checks. */
export interface AssetRow {
  brand: string | null;
  mpn: string | null;
  model: string | null;
  serial_number: string;
  category: string | null;
  /** YYYY-MM-DD */
  purchase_date: string | null;
  country: string | null;
  status: AssetStatus;
  specs: AssetSpecs;
}

export interface RowProblem {
  field: string;
  reason: string;
}

const MAX_TEXT = 200;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function text(input: AssetRowInput, field: (typeof ASSET_COLUMNS)[number], problems: RowProblem[]): string | null {
  const raw = input[field];
  if (raw === undefined || raw === null) return null;
  const value = String(raw).trim();
  if (value.length > MAX_TEXT) problems.push({ field, reason: `at most ${MAX_TEXT} characters` });
  return value === '' ? null : value;
}

/** YYYY-MM-DD, a real calendar day, not after `today` (UTC). */
export function purchaseDateProblem(value: string, today: Date): string | undefined {
  const m = DATE.exec(value);
  if (!m) return `must be a date YYYY-MM-DD, got '${value}'`;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (date.getUTCFullYear() !== Number(m[1]) || date.getUTCMonth() !== Number(m[2]) - 1 || date.getUTCDate() !== Number(m[3])) {
    return `is not a calendar date: '${value}'`;
  }
  if (Number(m[1]) < 1970) return `must not be before 1970, got '${value}'`;
  if (value > today.toISOString().slice(0, 10)) return `must not be in the future, got '${value}'`;
  return undefined;
}

/**
 * Row-level checks and normalisation; `problems` names each bad field with the reason. The row is
 * returned either way (bad fields left out) so that the device columns can be checked too.
 */
export function normaliseRow(input: AssetRowInput, today = new Date()): { row: AssetRow; problems: RowProblem[] } {
  const problems: RowProblem[] = [];
  const serial_number = text(input, 'serial_number', problems);
  if (!serial_number) problems.push({ field: 'serial_number', reason: 'is required (re-imports find an asset by its serial number)' });

  const statusText = text(input, 'status', problems)
    ?.toLowerCase()
    .replace(/[\s-]+/g, '_');
  if (statusText && !isAssetStatus(statusText)) {
    problems.push({ field: 'status', reason: `must be one of ${ASSET_STATUS_VALUES.join(', ')}, got '${input.status}'` });
  }
  const purchase_date = text(input, 'purchase_date', problems);
  const dateProblem = purchase_date ? purchaseDateProblem(purchase_date, today) : undefined;
  if (dateProblem) problems.push({ field: 'purchase_date', reason: dateProblem });

  const specs: AssetSpecs = {};
  for (const field of NUMERIC_SPEC_COLUMNS) {
    const raw = input[field];
    if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) continue;
    const value = typeof raw === 'number' ? raw : Number(raw.trim());
    if (!Number.isFinite(value)) problems.push({ field, reason: `must be a number, got '${raw}'` });
    else specs[field] = value;
  }
  for (const field of TEXT_SPEC_COLUMNS) {
    const value = text(input, field, problems);
    if (value) specs[field] = value.toLowerCase();
  }
  const row: AssetRow = {
    brand: text(input, 'brand', problems),
    mpn: text(input, 'mpn', problems),
    model: text(input, 'model', problems),
    serial_number: serial_number ?? '',
    category: text(input, 'category', problems)?.toLowerCase() ?? null,
    purchase_date,
    country: text(input, 'country', problems),
    status: statusText && isAssetStatus(statusText) ? statusText : DEFAULT_ASSET_STATUS,
    specs,
  };
  return { row, problems };
}

/**
 * Parses an import CSV: a header row naming columns of ASSET_COLUMNS (any order and case; mpn or
 * model or both), then one asset per record. A header problem rejects the whole file (400); cell
 * problems are reported per row later. Empty lines are skipped and do not count as rows.
 */
export function parseAssetCsv(csv: string): AssetRowInput[] {
  let records: string[][];
  try {
    records = parse(csv, { bom: true, skip_empty_lines: true, relax_column_count: true, trim: true });
  } catch (error) {
    throw invalidParameter('csv', `could not be parsed as CSV: ${(error as Error).message}`);
  }
  const [header, ...data] = records;
  if (!header) throw invalidParameter('csv', 'is empty: expected a header row and at least one asset');
  const columns = header.map((h) => h.trim().toLowerCase());
  const unknown = columns.filter((c) => !(ASSET_COLUMNS as readonly string[]).includes(c));
  if (unknown.length) {
    throw invalidParameter(
      'csv',
      `unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => `'${c}'`).join(', ')}; allowed: ${ASSET_COLUMNS.join(', ')}`,
    );
  }
  const repeated = columns.filter((c, i) => columns.indexOf(c) !== i);
  if (repeated.length) throw invalidParameter('csv', `column '${repeated[0]}' appears more than once`);
  const missing = ['brand', 'serial_number', 'country'].filter((c) => !columns.includes(c));
  if (!columns.includes('mpn') && !columns.includes('model')) missing.push('mpn or model');
  if (missing.length) throw invalidParameter('csv', `missing column${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`);
  if (data.length === 0) throw invalidParameter('csv', 'has a header but no asset rows');
  checkRowCount(data.length, 'csv');
  return data.map((cells) => Object.fromEntries(columns.map((c, i) => [c, cells[i] ?? ''])) as AssetRowInput);
}

export function checkRowCount(count: number, field: string): void {
  if (count > MAX_IMPORT_ROWS) {
    throw new ApiError(
      400,
      'TOO_MANY_ROWS',
      `Invalid parameter '${field}'`,
      `${field}: at most ${MAX_IMPORT_ROWS} assets per request, got ${count}; split larger files (lcf assets import does this)`,
    );
  }
  if (count === 0) throw invalidParameter(field, 'must contain at least one asset');
}

/** Minimal CSV writing (RFC 4180 quoting), used by the CLI to split a file into requests. */
export function toCsvLine(cells: readonly string[]): string {
  return cells.map((c) => (/[",\r\n]/.test(c) || c !== c.trim() ? `"${c.replaceAll('"', '""')}"` : c)).join(',');
}
