/**
 * The entity data model of the OData interface: the six entity sets of spec 2.12, their properties
 * (OData name, Edm type, the Prisma field behind it) and how each set is read. $metadata, the query
 * translation, the result rows and the data freshness all come from these definitions.
 */
import type { Prisma, PrismaClient } from '../db/database.ts';
import { ASSET_STATUS_VALUES } from '../assets/status.ts';
import { PERIOD_PARAMETERS, periodEmissions } from './period-emissions.ts';
import { SBTI_PROGRESS_FIELDS, inventoryFrom, inventoryQuery, progressOf, type InventoryAggregate } from '../sbti/progress.ts';

export const NAMESPACE = 'Service';

export type PrimitiveType =
  | 'Edm.Guid'
  | 'Edm.String'
  | 'Edm.Double'
  | 'Edm.Decimal'
  | 'Edm.Int32'
  | 'Edm.Boolean'
  | 'Edm.Date'
  | 'Edm.DateTimeOffset';

/** An enumeration of the model; members in declaration order, which is also their database order. */
export interface EnumDef {
  name: string;
  members: readonly string[];
}

export interface PropertyDef {
  /** The OData (and JSON) name. */
  name: string;
  type: PrimitiveType | EnumDef;
  nullable: boolean;
  /** Prisma field path of the value (a to-one relation first when the value lives on a related row); none for computed properties. */
  field?: readonly string[];
  /** Edm.Decimal precision and scale. */
  decimal?: { precision: number; scale: number };
  description?: string;
}

export interface NavigationDef {
  name: string;
  /** The entity set it leads to. */
  target: string;
  collection: boolean;
  nullable?: boolean;
  partner?: string;
  /** Local property -> property of the target (single-valued navigation). */
  constraint?: { property: string; referencedProperty: string };
}

/** Properties a set adds to each row from other data, read in the same snapshot as the rows (one query, part of the read's transaction). */
export interface ComputedProperties<T = unknown> {
  properties: readonly PropertyDef[];
  load(prisma: PrismaClient): Prisma.PrismaPromise<T>;
  apply(row: Record<string, unknown>, loaded: T, now: Date): Record<string, unknown>;
  /** The latest change of the data they come from. */
  freshness(loaded: T): Date | null;
}

/** A set computed on each request from the organisation's data and its custom query options, not stored: its rows are queried in memory. */
export interface ComputedRows {
  /** The custom query options it takes (any other non-$ option is refused). */
  parameters: readonly string[];
  rows(prisma: PrismaClient, orgId: string, parameters: ReadonlyMap<string, string>, now: Date): Promise<Record<string, unknown>[]>;
}

export interface EntitySetDef {
  name: string;
  entityType: string;
  /** Prisma model delegate (prisma[model]); none for a set of computed rows. */
  model?: 'asset' | 'certificate' | 'product' | 'emissionFactor' | 'sbtiTarget' | 'monthlyEmission';
  rows?: ComputedRows;
  key: string;
  properties: readonly PropertyDef[];
  navigation: readonly NavigationDef[];
  /** Organisation data (confined to the caller's organisation) or shared reference data. */
  organisationData: boolean;
  /** Properties whose latest value is the set's latest update (X-Service-Data-Freshness). */
  freshnessFields: readonly string[];
  computed?: ComputedProperties;
  description: string;
}

const ASSET_STATUS: EnumDef = { name: 'AssetStatus', members: ASSET_STATUS_VALUES };
const FACTOR_TYPE: EnumDef = { name: 'FactorType', members: ['GRID'] };
export const ENUMS: readonly EnumDef[] = [ASSET_STATUS, FACTOR_TYPE];

const KG = { precision: 20, scale: 6 };

type Shorthand = [name: string, type: PrimitiveType | EnumDef, nullable: boolean, description?: string, field?: readonly string[]];
const props = (list: Shorthand[]): PropertyDef[] =>
  list.map(([name, type, nullable, description, field]) => ({
    name,
    type,
    nullable,
    field: field ?? [name],
    ...(description ? { description } : {}),
  }));

const assets: EntitySetDef = {
  name: 'Assets',
  entityType: 'Asset',
  model: 'asset',
  key: 'asset_id',
  organisationData: true,
  description:
    "The organisation's inventory, each asset with the current whole-life figures of its active calculation (kg CO2e; ADPe kg Sb eq and PE MJ).",
  properties: props([
    ['asset_id', 'Edm.Guid', false, 'Asset id', ['id']],
    ['brand', 'Edm.String', false],
    ['mpn', 'Edm.String', true, 'Manufacturer part number'],
    ['model', 'Edm.String', true],
    ['serial_number', 'Edm.String', true],
    ['category', 'Edm.String', false, 'Device category, e.g. laptop'],
    ['status', ASSET_STATUS, false],
    ['purchase_date', 'Edm.Date', true],
    ['country', 'Edm.String', false, 'Region of use: ISO 3166-1 alpha-2 or ISO 3166-2'],
    ['product_id', 'Edm.Guid', true, 'Catalogue product, when matched'],
    ['active_calculation_id', 'Edm.Guid', true],
    ['total_kg_co2e', 'Edm.Double', true, 'Whole lifecycle, kg CO2e (null: not calculated)'],
    ['production_kg', 'Edm.Double', true, 'Production phase, kg CO2e'],
    ['use_phase_kg', 'Edm.Double', true, 'Use phase, kg CO2e'],
    [
      'adpe_kg_sb_eq',
      'Edm.Double',
      true,
      'Whole lifecycle abiotic depletion of elements (ADPe), kg Sb eq (null: not calculated, or calculated before ADPe and PE)',
    ],
    ['pe_mj', 'Edm.Double', true, 'Whole lifecycle primary energy (PE), MJ (null: not calculated, or calculated before ADPe and PE)'],
    ['source', 'Edm.String', false, 'How the asset was recorded (api, import:csv, …)'],
    ['external_ref', 'Edm.String', true],
    ['created_at', 'Edm.DateTimeOffset', false],
    ['updated_at', 'Edm.DateTimeOffset', false],
  ]),
  navigation: [
    {
      name: 'product',
      target: 'Products',
      collection: false,
      nullable: true,
      constraint: { property: 'product_id', referencedProperty: 'product_id' },
    },
    { name: 'certificates', target: 'Certificates', collection: true, partner: 'asset' },
  ],
  freshnessFields: ['updated_at'],
};

/**
 * ADPe and PE per phase and whole-life, as the calculations' columns name them (migration
 * monthly_emissions_impacts); decimal: the scale each asset's figure is rounded to before the rollup adds it
 * (docs/odata.md, MonthlyEmissions).
 */
const IMPACT_CRITERIA = [
  { prefix: 'adpe', unit: 'kg_sb_eq', decimal: { precision: 30, scale: 15 }, name: 'abiotic depletion of elements (ADPe), kg Sb eq' },
  { prefix: 'pe', unit: 'mj', decimal: { precision: 24, scale: 9 }, name: 'primary energy (PE), MJ' },
] as const;
const IMPACT_PHASES = [
  ['production', 'Production phase'],
  ['transport', 'Transport phase'],
  ['use_phase', 'Use phase'],
  ['end_of_life', 'End-of-life phase'],
] as const;

/** Each ADPe and PE column of a calculation (per phase, then whole-life) with what it holds. */
const impactColumns = <T>(column: (name: string, decimal: { precision: number; scale: number }, what: string) => T): T[] =>
  IMPACT_CRITERIA.flatMap(({ prefix, unit, decimal, name }) => [
    ...IMPACT_PHASES.map(([phase, label]) => column(`${prefix}_${phase}_${unit}`, decimal, `${label} ${name}`)),
    column(`${prefix}_${unit}`, decimal, `Whole lifecycle ${name}`),
  ]);

const certificates: EntitySetDef = {
  name: 'Certificates',
  entityType: 'Certificate',
  model: 'certificate',
  key: 'certificate_id',
  organisationData: true,
  description: 'CO2 impact certificates issued for calculations of the organisation, with the figures of the certified calculation.',
  properties: props([
    ['certificate_id', 'Edm.Guid', false, 'Certificate id', ['id']],
    ['certificate_number', 'Edm.String', false],
    ['calculation_id', 'Edm.Guid', false],
    ['asset_id', 'Edm.Guid', true],
    ['issued_at', 'Edm.DateTimeOffset', false],
    ['revoked_at', 'Edm.DateTimeOffset', true, 'Set when the certificate was revoked'],
    ['content_sha256', 'Edm.String', false, 'SHA-256 of the canonical certificate content'],
    ['key_id', 'Edm.String', false, 'Signing key (RFC 7638 thumbprint, /.well-known/jwks.json)'],
    ['category', 'Edm.String', false, 'Category of the certified calculation', ['calculation', 'category']],
    ['country', 'Edm.String', false, 'Region of use of the certified calculation', ['calculation', 'country']],
    ['total_kg_co2e', 'Edm.Double', false, 'Whole lifecycle of the certified calculation, kg CO2e', ['calculation', 'total_kg_co2e']],
    ['production_kg', 'Edm.Double', false, undefined, ['calculation', 'production_kg']],
    ['transport_kg', 'Edm.Double', false, undefined, ['calculation', 'transport_kg']],
    ['use_phase_kg', 'Edm.Double', false, undefined, ['calculation', 'use_phase_kg']],
    ['end_of_life_kg', 'Edm.Double', false, undefined, ['calculation', 'end_of_life_kg']],
    ...impactColumns(
      (name, _decimal, what): Shorthand => [
        name,
        'Edm.Double',
        true,
        `${what} of the certified calculation (null: calculated before ADPe and PE)`,
        ['calculation', name],
      ],
    ),
  ]),
  navigation: [
    {
      name: 'asset',
      target: 'Assets',
      collection: false,
      nullable: true,
      partner: 'certificates',
      constraint: { property: 'asset_id', referencedProperty: 'asset_id' },
    },
  ],
  freshnessFields: ['issued_at', 'revoked_at'],
};

const products: EntitySetDef = {
  name: 'Products',
  entityType: 'Product',
  model: 'product',
  key: 'product_id',
  organisationData: false,
  description: 'The device catalogue (shared reference data): built-in products and entries learnt from the external catalogue.',
  properties: props([
    ['product_id', 'Edm.Guid', false, 'Product id', ['id']],
    ['brand', 'Edm.String', false],
    ['mpn', 'Edm.String', false, 'Manufacturer part number'],
    ['name', 'Edm.String', false],
    ['category', 'Edm.String', false],
    ['release_year', 'Edm.Int32', true],
    ['weight_kg', 'Edm.Double', true],
    ['screen_size_inch', 'Edm.Double', true],
    ['screen_type', 'Edm.String', true],
    ['processor_tdp_w', 'Edm.Double', true],
    ['ram_gb', 'Edm.Double', true],
    ['storage_gb', 'Edm.Double', true],
    ['storage_type', 'Edm.String', true],
    ['battery_wh', 'Edm.Double', true],
    ['typical_consumption_kwh', 'Edm.Double', true, 'kWh per year'],
    ['pcf_total_kg', 'Edm.Double', true, 'Manufacturer-published product carbon footprint, kg CO2e'],
    ['pcf_lifetime_years', 'Edm.Double', true],
    ['pcf_use_location', 'Edm.String', true],
    ['pcf_source_url', 'Edm.String', true],
    ['source', 'Edm.String', false],
    ['created_at', 'Edm.DateTimeOffset', false],
    ['updated_at', 'Edm.DateTimeOffset', false],
  ]),
  navigation: [],
  freshnessFields: ['updated_at'],
};

const emissionFactors: EntitySetDef = {
  name: 'EmissionFactors',
  entityType: 'EmissionFactor',
  model: 'emissionFactor',
  key: 'emission_factor_id',
  organisationData: false,
  description: 'Grid emission factors by region with source, version, licence and validity period (shared reference data).',
  properties: props([
    ['emission_factor_id', 'Edm.Guid', false, 'Emission factor id', ['id']],
    ['type', FACTOR_TYPE, false],
    ['region_code', 'Edm.String', false],
    ['value', 'Edm.Double', false],
    ['unit', 'Edm.String', false, 'e.g. kg CO2e/kWh'],
    ['source', 'Edm.String', false],
    ['source_version', 'Edm.String', false],
    ['source_url', 'Edm.String', true],
    ['source_license', 'Edm.String', true],
    ['registry', 'Edm.String', false, 'Registry the factor is published in', ['registry', 'display_name']],
    ['valid_from', 'Edm.Date', false],
    ['valid_to', 'Edm.Date', true, 'null: still valid'],
    ['created_at', 'Edm.DateTimeOffset', false],
  ]),
  navigation: [],
  freshnessFields: ['created_at'],
};

const sbtiTargets: EntitySetDef = {
  name: 'SbtiTargets',
  entityType: 'SbtiTarget',
  model: 'sbtiTarget',
  key: 'sbti_target_id',
  organisationData: true,
  description:
    "The organisation's science-based reduction targets, each with its progress measured on the current inventory (docs/odata.md, SbtiTargets).",
  properties: props([
    ['sbti_target_id', 'Edm.Guid', false, 'Target id', ['id']],
    ['name', 'Edm.String', false],
    ['scope', 'Edm.String', false, 'scope_1_2, scope_3 or scope_1_2_3'],
    ['base_year', 'Edm.Int32', false],
    ['base_year_kg_co2e', 'Edm.Double', false, 'Emissions of the scope in the base year, kg CO2e'],
    ['target_year', 'Edm.Int32', false],
    ['reduction_pct', 'Edm.Double', false, 'Reduction from the base year by the target year, percent'],
    ['status', 'Edm.String', false],
    ['created_at', 'Edm.DateTimeOffset', false],
    ['updated_at', 'Edm.DateTimeOffset', false],
  ]),
  navigation: [],
  freshnessFields: ['updated_at'],
  computed: {
    properties: SBTI_PROGRESS_FIELDS.map(({ name, boolean, description }) => ({
      name,
      type: boolean ? 'Edm.Boolean' : 'Edm.Double',
      nullable: true,
      description,
    })),
    load: inventoryQuery,
    apply: (row, loaded, now) => ({ ...row, ...progressOf(row as never, inventoryFrom(loaded), now) }),
    freshness: (loaded) => loaded._max.updated_at,
  } satisfies ComputedProperties<InventoryAggregate> as ComputedProperties,
};

const rollupImpact = (name: string, decimal: { precision: number; scale: number }, what: string): PropertyDef => ({
  name,
  type: 'Edm.Decimal',
  decimal,
  nullable: true,
  field: [name],
  description: `${what}, summed over the impacts_asset_count assets that have it (null: none has)`,
});

const monthlyEmissions: EntitySetDef = {
  name: 'MonthlyEmissions',
  entityType: 'MonthlyEmission',
  model: 'monthlyEmission',
  key: 'monthly_emission_id',
  organisationData: true,
  description:
    "The inventory by month, category and country: the whole-life figures of the assets' active calculations (kg CO2e; ADPe kg Sb eq and PE MJ) " +
    'in the month each asset was bought (or recorded, when it has no purchase date), kept current on every change to the assets.',
  properties: [
    ...props([
      ['monthly_emission_id', 'Edm.Guid', false, 'Row id (a row is recreated when its group empties and fills again)', ['id']],
      ['month', 'Edm.Date', false, 'First day of the month (UTC)'],
      ['category', 'Edm.String', false],
      ['country', 'Edm.String', false],
    ]),
    ...(['production_kg', 'transport_kg', 'use_phase_kg', 'end_of_life_kg', 'total_kg_co2e'] as const).map(
      (name): PropertyDef => ({ name, type: 'Edm.Decimal', decimal: KG, nullable: false, field: [name], description: 'kg CO2e' }),
    ),
    ...props([['asset_count', 'Edm.Int32', false]]),
    ...impactColumns(rollupImpact),
    ...props([
      [
        'impacts_asset_count',
        'Edm.Int32',
        false,
        'Assets whose active calculation carries ADPe and PE: the ADPe and PE figures sum these (the others were calculated before them)',
      ],
      ['updated_at', 'Edm.DateTimeOffset', false],
    ]),
  ],
  navigation: [],
  freshnessFields: ['updated_at'],
};

const periodEmissionsSet: EntitySetDef = {
  name: 'PeriodEmissions',
  entityType: 'PeriodEmission',
  key: 'row_id',
  organisationData: true,
  description:
    'The greenhouse-gas inventory of a reporting period (GET /v1/inventory) by month, scope/category, device category and country, ' +
    'location-based and market-based; the period from the custom query options dateFrom and dateTo (default: the last full calendar year), ' +
    'method (acquisition or linear) and restate (docs/odata.md, PeriodEmissions).',
  properties: props([
    ['row_id', 'Edm.String', false, 'month|phase|country|device_category'],
    ['month', 'Edm.Date', false, 'First day of the month (UTC)'],
    ['scope', 'Edm.Int32', false, 'GHG Protocol scope: 2 or 3'],
    ['ghg_category', 'Edm.Int32', true, 'Scope 3 category (1, 2, 4 or 5); null for Scope 2'],
    ['phase', 'Edm.String', false, 'use, production, transport or end_of_life'],
    ['device_category', 'Edm.String', false, 'e.g. laptop'],
    ['country', 'Edm.String', false],
    ['kg_co2e', 'Edm.Double', false, 'Location-based, kg CO2e'],
    ['market_based_kg_co2e', 'Edm.Double', false, 'Market-based, kg CO2e (differs from kg_co2e in Scope 2 only)'],
    ['low_kg', 'Edm.Double', false, 'Low bound of the ~80 % interval of kg_co2e'],
    ['high_kg', 'Edm.Double', false, 'High bound of the ~80 % interval of kg_co2e'],
    ['kwh', 'Edm.Double', true, 'Electricity, kWh (Scope 2 rows; null otherwise)'],
    ['asset_count', 'Edm.Int32', false, 'Assets behind the row'],
    ['method', 'Edm.String', false, 'Allocation method of embodied emissions: acquisition or linear'],
    ['date_from', 'Edm.Date', false, 'First day of the period'],
    ['date_to', 'Edm.Date', false, 'Last day of the period (included)'],
  ]),
  navigation: [],
  freshnessFields: [],
  rows: { parameters: PERIOD_PARAMETERS, rows: periodEmissions },
};

export const ENTITY_SETS: readonly EntitySetDef[] = [
  assets,
  certificates,
  products,
  emissionFactors,
  sbtiTargets,
  monthlyEmissions,
  periodEmissionsSet,
];

const byLowerName = new Map(ENTITY_SETS.map((set) => [set.name.toLowerCase(), set]));

/** The entity set of a URL segment; names are case-insensitive (spec 4.7). */
export const entitySetNamed = (name: string): EntitySetDef | undefined => byLowerName.get(name.toLowerCase());

/** Stored and computed properties, in the order of $metadata. */
export const allProperties = (set: EntitySetDef): readonly PropertyDef[] => [...set.properties, ...(set.computed?.properties ?? [])];

export const propertyNamed = (set: EntitySetDef, name: string): PropertyDef | undefined => allProperties(set).find((p) => p.name === name);

export const keyProperty = (set: EntitySetDef): PropertyDef => set.properties.find((p) => p.name === set.key)!;

export const isEnum = (type: PropertyDef['type']): type is EnumDef => typeof type === 'object';
