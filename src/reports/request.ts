import * as z from 'zod';
import { invalidParameter } from '../errors/api-error.ts';
import { text } from '../validation/schemas.ts';
import { CRITERIA } from '../footprint/engine/index.ts';
import type { Criterion } from '../footprint/engine/types.ts';

export const REPORT_TYPES = ['sustainability_summary', 'hotspot_analysis'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

/** Without dateFrom, the period is the year before dateTo (never before EARLIEST_DATE). */
export const DEFAULT_PERIOD_YEARS = 1;
/** The dates a report may name: older inventories do not exist, and the range keeps dates inside every database's range. */
export const EARLIEST_DATE = '1990-01-01';
export const LATEST_DATE = '2100-12-31';

export interface ReportRequest {
  type: ReportType;
  /** YYYY-MM-DD, UTC days, both ends included. */
  dateFrom: string;
  dateTo: string;
  /** What the hotspot analysis ranks by: gwp (kg CO2e, the default when left out), adpe (kg Sb eq) or pe (MJ). */
  criterion?: Criterion;
}

/** The body of POST /v1/report: what it accepts, and (routes.ts) its OpenAPI. */
export const reportBody = z.object({
  type: z.enum(REPORT_TYPES, {
    error: (issue) => (issue.input === undefined ? `is required (${REPORT_TYPES.join(' or ')})` : `must be ${REPORT_TYPES.join(' or ')}`),
  }),
  dateFrom: text(10).meta({ format: 'date' }).nullish(),
  dateTo: text(10).meta({ format: 'date' }).nullish(),
  criterion: z
    .enum(CRITERIA, { error: `must be ${CRITERIA.join(', ')} or left out (gwp)` })
    .nullish()
    .meta({ description: 'What the hotspot analysis ranks by: gwp (kg CO2e, the default), adpe (kg Sb eq) or pe (MJ)' }),
});

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** `date` moved by whole calendar years; 29 February becomes 28 February in a common year. */
export function addYears(day: string, years: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const target = new Date(Date.UTC(y + years, m - 1, 1));
  const lastDay = new Date(Date.UTC(y + years, m, 0)).getUTCDate();
  target.setUTCDate(Math.min(d, lastDay));
  return isoDay(target);
}

/** A real calendar date written YYYY-MM-DD (2026-02-30 is not) from EARLIEST_DATE to LATEST_DATE; else 400 naming the field. */
function parseDay(value: string, field: string): string {
  if (value === '') throw invalidParameter(field, 'must not be empty: give a date written YYYY-MM-DD, or leave the field out');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw invalidParameter(field, `must be a date written YYYY-MM-DD, got '${value}'`);
  const date = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || isoDay(date) !== value) throw invalidParameter(field, `'${value}' is not a calendar date`);
  if (value < EARLIEST_DATE || value > LATEST_DATE)
    throw invalidParameter(field, `must be from ${EARLIEST_DATE} to ${LATEST_DATE}, got '${value}'`);
  return value;
}

/**
 * The period of a report: dateTo defaults to today (UTC), dateFrom to one year before dateTo (not
 * before EARLIEST_DATE). Any length is accepted; dateFrom must not be after dateTo nor after today
 * (a period wholly in the future has no data to report).
 */
export function reportRequest(body: z.infer<typeof reportBody>, now: Date = new Date()): ReportRequest {
  const today = isoDay(now);
  const dateTo = body.dateTo != null ? parseDay(body.dateTo, 'dateTo') : today;
  const defaultFrom = addYears(dateTo, -DEFAULT_PERIOD_YEARS);
  const dateFrom = body.dateFrom != null ? parseDay(body.dateFrom, 'dateFrom') : defaultFrom < EARLIEST_DATE ? EARLIEST_DATE : defaultFrom;
  if (dateFrom > dateTo) throw invalidParameter('dateFrom', `must be on or before dateTo (${dateTo}), got '${dateFrom}'`);
  if (dateFrom > today)
    throw invalidParameter(
      'dateFrom',
      `the period ${dateFrom} to ${dateTo} lies wholly in the future (today is ${today}): dateFrom must be on or before today`,
    );
  return { type: body.type, dateFrom, dateTo, criterion: body.criterion ?? 'gwp' };
}
