/**
 * The rows of the computed entity set PeriodEmissions: the period inventory (src/inventory) by month,
 * scope/category, device category and country, for the period its custom query options name
 * (docs/odata.md, PeriodEmissions). The rows are few (months x phases x countries x categories), so the
 * adapter filters, sorts and pages them in memory.
 */
import type { PrismaClient } from '../db/database.ts';
import { invalidParameter } from '../errors/api-error.ts';
import { INVENTORY_METHODS, inventoryRequest, periodEmissionRows, type InventoryMethod } from '../inventory/inventory.ts';
import { isQueryBoolean } from '../validation/strict-input.ts';

/** The custom query options of PeriodEmissions (OData 4.0, 5.2: names without $, passed on by Power BI and Excel feeds). */
export const PERIOD_PARAMETERS = ['dateFrom', 'dateTo', 'method', 'restate'] as const;

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

function day(name: string, text: string): Date {
  const date = new Date(`${text}T00:00:00Z`);
  if (!ISO_DAY.test(text) || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text)
    throw invalidParameter(name, `must be a date YYYY-MM-DD, got '${text.slice(0, 20)}'`);
  return date;
}

/** Without dateFrom and dateTo: the last full calendar year before `now` (UTC), what an annual report files. */
export async function periodEmissions(
  prisma: PrismaClient,
  orgId: string,
  parameters: ReadonlyMap<string, string>,
  now: Date,
): Promise<Record<string, unknown>[]> {
  const lastYear = now.getUTCFullYear() - 1;
  const method = parameters.get('method');
  if (method !== undefined && !INVENTORY_METHODS.includes(method as InventoryMethod))
    throw invalidParameter('method', `must be one of ${INVENTORY_METHODS.join(', ')}, got '${method.slice(0, 20)}'`);
  const restate = parameters.get('restate');
  if (restate !== undefined && !isQueryBoolean(restate))
    throw invalidParameter('restate', `must be true or false, got '${restate.slice(0, 20)}'`);
  const request = inventoryRequest({
    dateFrom: day('dateFrom', parameters.get('dateFrom') ?? `${lastYear}-01-01`),
    dateTo: day('dateTo', parameters.get('dateTo') ?? `${lastYear}-12-31`),
    method: method as InventoryMethod | undefined,
    restate: restate === 'true',
  });
  const rows = await periodEmissionRows(prisma, orgId, request);
  return rows.map((row) => ({
    row_id: `${row.month.slice(0, 7)}|${row.phase}|${row.country}|${row.device_category}`,
    month: new Date(`${row.month.slice(0, 10)}T00:00:00Z`),
    scope: row.scope,
    ghg_category: row.ghg_category,
    phase: row.phase,
    device_category: row.device_category,
    country: row.country,
    kg_co2e: row.kg_co2e,
    market_based_kg_co2e: row.market_based_kg_co2e,
    low_kg: row.low_kg,
    high_kg: row.high_kg,
    kwh: row.kwh,
    asset_count: row.assets,
    method: request.method,
    date_from: new Date(`${request.dateFrom}T00:00:00Z`),
    date_to: new Date(`${request.dateTo}T00:00:00Z`),
  }));
}
