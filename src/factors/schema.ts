import { builder } from '../graphql/builder.ts';
import { maxChars, TEXT_LIMITS } from '../validation/text.ts';
import { invalidParameter } from '../errors/api-error.ts';
import { closestRegionCodes, factorBasisProvenance, normaliseRegionCode } from '../reference/grid-data.ts';
import { vintageAt } from './lookup.ts';
import { GRID_FACTOR_BASIS } from '../reference/schema.ts';
import { openApi } from '../rest/openapi-schemas.ts';

export const FactorType = builder.enumType('FactorType', {
  description:
    "Kind of emission factor. GRID: electricity grid carbon intensity of a region, kg CO2e per kWh; RESIDUAL_MIX: the residual mix of a region for market-based Scope 2, kg CO2e per kWh; ELECTRICITY_ADPE and ELECTRICITY_PE: abiotic depletion (kg Sb eq per kWh) and primary energy (MJ per kWh) of a region's electricity.",
  values: {
    GRID: { description: 'Electricity grid, kg CO2e per kWh (location-based)' },
    RESIDUAL_MIX: { description: 'Residual mix of a region, kg CO2e per kWh (market-based Scope 2 without a contractual instrument)' },
    ELECTRICITY_ADPE: { description: "Abiotic depletion of elements of a region's electricity, kg Sb eq per kWh" },
    ELECTRICITY_PE: { description: "Primary energy of a region's electricity, MJ per kWh" },
  } as const,
});

builder.prismaObject('FactorRegistry', {
  name: 'Registry',
  description:
    'A published source of emission factors (a registry or dataset) and the version of it the service has loaded. A registry link is not independent assurance of a value.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'Stable identifier, e.g. electricity-maps, epa-egrid' }),
    display_name: t.exposeString('display_name'),
    current_version: t.exposeString('current_version', { description: 'Version of the source loaded into the service' }),
    next_check_after: t.expose('next_check_after', {
      type: 'Date',
      nullable: true,
      description: 'Date after which a newer version is due to be checked for; null when not scheduled',
    }),
    url: t.exposeString('url', { nullable: true }),
    license: t.exposeString('license', { nullable: true }),
  }),
});

// The basis fields come from the reference data the row was loaded from, found by region and vintage.
const BASIS_SELECT = { region_code: true, valid_from: true } as const;
const basisOf = (f: { region_code: string; valid_from: Date }) => factorBasisProvenance(f.region_code, f.valid_from);

builder.prismaObject('EmissionFactor', {
  description:
    'One vintage of an emission factor with its provenance. Provenance that the original source does not state is null, never filled in.',
  fields: (t) => ({
    id: t.exposeID('id'),
    type: t.expose('type', { type: FactorType }),
    region_code: t.exposeString('region_code', { description: 'ISO 3166-1 alpha-2 country or ISO 3166-2 region' }),
    value: t.exposeFloat('value', { description: 'The value footprints use, on the basis named by `basis` (lifecycle CO2e)' }),
    unit: t.exposeString('unit', { description: 'e.g. kg CO2e/kWh' }),
    basis: t.string({
      nullable: true,
      description:
        'Basis of `value`: lifecycle_co2e (every grid factor is converted to it); null for a factor outside the loaded reference data',
      select: BASIS_SELECT,
      resolve: (f) => basisOf(f)?.basis ?? null,
      ...openApi({ values: GRID_FACTOR_BASIS }),
    }),
    published_value: t.float({
      nullable: true,
      description: 'The figure as its publisher gives it, kg per kWh on `published_basis`',
      select: BASIS_SELECT,
      resolve: (f) => basisOf(f)?.published_value ?? null,
    }),
    published_basis: t.string({
      nullable: true,
      description: 'lifecycle_co2e, direct_co2e (combustion CO2 + CH4 + N2O) or direct_co2 (combustion CO2 only)',
      select: BASIS_SELECT,
      resolve: (f) => basisOf(f)?.published_basis ?? null,
      ...openApi({ values: GRID_FACTOR_BASIS }),
    }),
    uplift: t.float({
      nullable: true,
      description: 'value = published_value x uplift; null when the figure is published as lifecycle CO2e',
      select: BASIS_SELECT,
      resolve: (f) => basisOf(f)?.uplift ?? null,
    }),
    uplift_source: t.string({
      nullable: true,
      description: 'The two published figures the uplift is the ratio of (see docs/grid-factors.md)',
      select: BASIS_SELECT,
      resolve: (f) => basisOf(f)?.uplift_source ?? null,
    }),
    source: t.exposeString('source'),
    source_version: t.exposeString('source_version'),
    source_url: t.exposeString('source_url', { nullable: true }),
    source_license: t.exposeString('source_license', { nullable: true }),
    valid_from: t.expose('valid_from', { type: 'Date', description: 'First day (UTC) this vintage applies to' }),
    valid_to: t.expose('valid_to', {
      type: 'Date',
      nullable: true,
      description: 'Last day (UTC, inclusive) this vintage applies to; null for the newest vintage',
    }),
    registry: t.relation('registry'),
  }),
});

builder.queryField('factorByRegion', (t) =>
  t.prismaField({
    type: 'EmissionFactor',
    description:
      'The emission factor of a region valid at a date (default: now): the vintage with valid_from <= date <= valid_to (valid_to null: open). ' +
      'A date before the oldest vintage answers the oldest. An unknown region is an INVALID_PARAMETER error naming the closest region codes. ' +
      'A reference lookup: it does not prove that this factor was used in a stored calculation (see Calculation.emission_factor for that).',
    // Reference data, GraphQL only (which needs a key).
    authScopes: { key: true },
    args: {
      type: t.arg({ type: FactorType, required: true, defaultValue: 'GRID' }),
      regionCode: t.arg.string({
        required: true,
        description: 'ISO 3166-1 alpha-2 (DE) or ISO 3166-2 (US-CA); case-insensitive',
        ...maxChars(TEXT_LIMITS.country),
      }),
      atDate: t.arg({ type: 'DateTime', description: 'The instant whose UTC calendar day is looked up; default now' }),
    },
    resolve: async (query, _root, { type, regionCode, atDate }, { prisma }) => {
      const code = normaliseRegionCode(regionCode);
      const vintages = code ? await prisma.emissionFactor.findMany({ ...query, where: { type, region_code: code } }) : [];
      const factor = vintageAt(vintages, atDate ?? new Date());
      if (!factor) {
        throw invalidParameter(
          'regionCode',
          `unknown region code '${regionCode.trim()}'; closest valid codes: ${closestRegionCodes(regionCode, 3).join(', ')}`,
        );
      }
      return factor;
    },
  }),
);
