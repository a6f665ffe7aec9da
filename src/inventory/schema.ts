import { builder } from '../graphql/builder.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { keyCaller, type Access } from '../auth/access.ts';
import { forbidden } from '../errors/api-error.ts';
import {
  MAX_PERIOD_YEARS,
  inventoryRequest,
  periodInventory,
  type AvoidedEmissions,
  type InventoryDataQuality,
  type InventoryInterval,
  type InventoryMethod,
  type InventoryRow,
  type InventoryScopeRow,
  type PeriodInventory,
  type ScopeTwo,
} from './inventory.ts';

/**
 * The inventory is summed in SQL over the organisation's own rows; the shared demo sandbox of test keys
 * without organisation context has no period history of its own to report.
 */
const NO_SANDBOX_REASON = 'The period inventory needs an API key with organisation context (a test key with one reads its own sandbox)';
export const INVENTORY_ACCESS: Access = { organisation: true, records: NO_SANDBOX_REASON };

const InventoryMethodRef = builder.enumType('InventoryMethod', {
  description: 'How embodied emissions (production and transport) are allocated to periods (docs/inventory.md).',
  values: {
    acquisition: { description: 'All in the period the asset was acquired (GHG Protocol Scope 3 Standard, category 2; the default)' },
    linear: {
      description:
        "Spread evenly over the asset's lifetime days from acquisition; what is left when it leaves service early is recognised on that day",
    },
  } satisfies Record<InventoryMethod, unknown>,
});

const IntervalRef = builder.objectRef<InventoryInterval>('InventoryInterval').implement({
  description: 'The ~80 % interval of a figure, kg CO2e (asset intervals summed: errors taken as fully correlated).',
  fields: (t) => ({ low_kg: t.exposeFloat('low_kg'), high_kg: t.exposeFloat('high_kg') }),
});

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

const rowFields = (t: PothosSchemaTypes.ObjectFieldBuilder<Types, InventoryRow>) => ({
  key: t.exposeString('key', { description: 'Stable key of the row: scope, phase, month YYYY-MM, country code or device category id' }),
  label: t.exposeString('label'),
  kg_co2e: t.exposeFloat('kg_co2e', { description: 'Emissions of the row in the period, kg CO2e, with Scope 2 location-based' }),
  market_based_kg_co2e: t.exposeFloat('market_based_kg_co2e', {
    description: 'The same with Scope 2 market-based (rows without electricity: equal to kg_co2e)',
  }),
  uncertainty: t.expose('uncertainty', { type: IntervalRef, description: 'Interval of kg_co2e' }),
  market_based_uncertainty: t.expose('market_based_uncertainty', { type: IntervalRef, description: 'Interval of market_based_kg_co2e' }),
  assets: t.exposeInt('assets', { description: 'Assets with a figure in this row (each counted once)' }),
});

const InventoryRowRef = builder.objectRef<InventoryRow>('InventoryRow').implement({
  description: 'One row of a breakdown of the period inventory.',
  fields: rowFields,
});

const InventoryScopeRowRef = builder.objectRef<InventoryScopeRow>('InventoryScopeRow').implement({
  description: 'The inventory of one GHG Protocol scope and category.',
  fields: (t) => ({
    ...rowFields(t as never),
    scope: t.exposeInt('scope', { description: '2 or 3' }),
    ghg_category: t.exposeInt('ghg_category', {
      nullable: true,
      description:
        'Scope 3 category: 2 capital goods (1 purchased goods when hardware_accounting is purchased_goods), 4 upstream transportation, 5 waste; null for Scope 2',
    }),
    phase: t.exposeString('phase', { description: 'use, production, transport or end_of_life' }),
  }),
});

const MarketBasisRef = builder.objectRef<ScopeTwo['market_basis']>('InventoryMarketBasis').implement({
  description: 'The kWh of the market-based Scope 2 figure by the factor they got (GHG Protocol Scope 2 Guidance, table 6.3 hierarchy).',
  fields: (t) => ({
    certificates_kwh: t.exposeFloat('certificates_kwh', { description: 'Covered by energy attribute certificates: 0 kg CO2e' }),
    supplier_specific_kwh: t.exposeFloat('supplier_specific_kwh', { description: 'At a supplier-specific factor' }),
    residual_mix_kwh: t.exposeFloat('residual_mix_kwh', { description: "At the country's residual mix" }),
    location_based_kwh: t.exposeFloat('location_based_kwh', {
      description: 'Neither an instrument nor a residual mix: at the location-based grid factor, flagged (location_based_fallback)',
    }),
  }),
});

const ScopeTwoRef = builder.objectRef<ScopeTwo>('InventoryScope2').implement({
  description: "Scope 2 (the devices' electricity) reported both ways, side by side (GHG Protocol Scope 2 Guidance, dual reporting).",
  fields: (t) => ({
    kwh: t.exposeFloat('kwh', { description: 'Electricity of the assets in service in the period, kWh' }),
    location_based_kg_co2e: t.exposeFloat('location_based_kg_co2e', {
      description: "At the grid factor of each asset's country, vintage in force on each day",
    }),
    market_based_kg_co2e: t.exposeFloat('market_based_kg_co2e', {
      description: 'Contractual instruments first, then the residual mix, else the location-based factor',
    }),
    location_based_uncertainty: t.expose('location_based_uncertainty', { type: IntervalRef }),
    market_based_uncertainty: t.expose('market_based_uncertainty', { type: IntervalRef }),
    market_basis: t.expose('market_basis', { type: MarketBasisRef }),
    location_based_fallback: t.exposeBoolean('location_based_fallback', {
      description: 'True when some kWh of the market-based figure had neither an instrument nor a residual mix',
    }),
    assets: t.exposeInt('assets'),
  }),
});

const DataQualityRef = builder.objectRef<InventoryDataQuality>('InventoryDataQuality').implement({
  description: 'What the inventory counted by rule rather than by record, never silently.',
  fields: (t) => ({
    assets_counted: t.exposeInt('assets_counted', { description: 'Assets with at least one figure in the period' }),
    assets_without_purchase_date: t.exposeInt('assets_without_purchase_date'),
    assets_without_purchase_date_pct: t.exposeFloat('assets_without_purchase_date_pct', {
      description: 'Share of assets_counted, percent',
    }),
    status_changes_without_date: t.exposeInt('status_changes_without_date', {
      description: 'Assets resold, recycled or disposed of with no dated status change',
    }),
    status_changes_without_date_pct: t.exposeFloat('status_changes_without_date_pct', { description: 'Share of assets_counted, percent' }),
    assets_without_calculation: t.exposeInt('assets_without_calculation', {
      description: "The organisation's assets without the calculated figures the inventory needs: not counted",
    }),
    assets_without_grid_factor: t.exposeInt('assets_without_grid_factor', {
      description: 'Assets in a country without a grid factor: their electricity counts 0 kg',
    }),
    rules: t.exposeStringList('rules', { description: 'The rules applied to missing dates' }),
  }),
});

const AvoidedRef = builder.objectRef<AvoidedEmissions>('InventoryAvoidedEmissions').implement({
  description: 'Emissions avoided by reuse and refurbishment in the period: reported beside the inventory, not part of it, never netted.',
  fields: (t) => ({
    part_of_inventory: t.boolean({ description: 'Always false', resolve: () => false }),
    reuse_kg_co2e: t.exposeFloat('reuse_kg_co2e'),
    refurbishment_kg_co2e: t.exposeFloat('refurbishment_kg_co2e'),
    resold_assets: t.exposeInt('resold_assets'),
    refurbished_assets: t.exposeInt('refurbished_assets'),
    basis: t.exposeString('basis'),
  }),
});

export const PeriodInventoryRef = builder.objectRef<PeriodInventory>('PeriodInventory').implement({
  description:
    "The organisation's greenhouse-gas inventory of a reporting period by GHG Protocol scope and category (docs/inventory.md): Scope 2 electricity of the days each asset was in service, " +
    'Scope 3 hardware acquired (category 2, or 1) and its delivery (category 4), end of life of hardware disposed of (category 5). Not the lifetime totals of Organization.total_kg_co2e.',
  fields: (t) => ({
    date_from: t.exposeString('date_from', { description: 'First day, YYYY-MM-DD (UTC)' }),
    date_to: t.exposeString('date_to', { description: 'Last day, included' }),
    method: t.field({ type: InventoryMethodRef, resolve: (i) => i.method, description: 'The allocation of embodied emissions used' }),
    restate: t.exposeBoolean('restate'),
    factors: t.exposeString('factors', { description: 'Which calculations and factor vintages the figures use' }),
    hardware_accounting: t.exposeString('hardware_accounting', {
      description: "The organisation's setting: capital_goods (category 2) or purchased_goods (category 1)",
    }),
    total: t.expose('total', { type: InventoryRowRef }),
    scope_2: t.expose('scope_2', { type: ScopeTwoRef }),
    by_scope: t.expose('by_scope', { type: [InventoryScopeRowRef] }),
    by_phase: t.expose('by_phase', { type: [InventoryRowRef] }),
    by_month: t.expose('by_month', { type: [InventoryRowRef], description: 'Months with a figure, YYYY-MM' }),
    by_country: t.expose('by_country', { type: [InventoryRowRef], description: 'Largest first' }),
    by_category: t.expose('by_category', { type: [InventoryRowRef], description: 'By device category, largest first' }),
    data_quality: t.expose('data_quality', { type: DataQualityRef }),
    avoided_emissions: t.expose('avoided_emissions', { type: AvoidedRef }),
    uncertainty_method: t.exposeString('uncertainty_method'),
  }),
});

export const PeriodInputRef = builder.inputType('InventoryPeriod', {
  description: `A reporting period: UTC days, both included, at most ${MAX_PERIOD_YEARS} years.`,
  fields: (t) => ({
    dateFrom: t.field({ type: 'Date', required: true }),
    dateTo: t.field({ type: 'Date', required: true }),
    method: t.field({ type: InventoryMethodRef, description: 'Default acquisition' }),
    restate: t.boolean({ description: 'true: current calculations and newest factor vintages; default false (as of the period)' }),
  }),
});

export const PERIOD_DESCRIPTION =
  `dateFrom and dateTo are UTC days, both included, from 1990-01-01 to 2100-12-31, at most ${MAX_PERIOD_YEARS} years apart. ` +
  'method: acquisition (default) or linear. restate: false (default) answers a closed period the same however calculations and factors change later; true uses the current ones. ' +
  'Needs a key with organisation context (a test key without one: 403 NO_ORGANIZATION_CONTEXT).';

/** The read-only demo sandbox has nothing of its own to inventory (INVENTORY_ACCESS); on Organization the check is the field's own. */
export function inventoryOf(ctx: GraphQLContext, args: Parameters<typeof inventoryRequest>[0]): Promise<PeriodInventory> {
  const caller = keyCaller(ctx.caller);
  if (caller.readOnly) throw forbidden('NO_ORGANIZATION_CONTEXT', NO_SANDBOX_REASON);
  const request = inventoryRequest(args);
  return periodInventory(ctx.prisma, caller.orgId, request);
}

builder.queryField('inventory', (t) =>
  t.field({
    type: PeriodInventoryRef,
    description: `The greenhouse-gas inventory of a reporting period (docs/inventory.md). ${PERIOD_DESCRIPTION}`,
    authScopes: INVENTORY_ACCESS,
    extensions: {
      rest: { method: 'GET', path: '/inventory', summary: 'Greenhouse-gas inventory of a reporting period', tags: ['Inventory'] },
    },
    args: {
      dateFrom: t.arg({ type: 'Date', required: true, description: 'First day of the period, YYYY-MM-DD' }),
      dateTo: t.arg({ type: 'Date', required: true, description: 'Last day of the period, included' }),
      method: t.arg({ type: InventoryMethodRef, description: 'acquisition (default) or linear' }),
      restate: t.arg.boolean({ description: 'true: current calculations and factors; default false' }),
    },
    resolve: (_root, args, ctx) => inventoryOf(ctx, args),
  }),
);
