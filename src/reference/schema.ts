import { builder } from '../graphql/builder.ts';
import { PUBLIC } from '../auth/access.ts';
import { cacheFor } from '../observability/request-context.ts';
import type { CategorySnapshot } from './store.ts';
import { factorBasisProvenance, factorCitation } from './grid-data.ts';
import { GRID_FACTOR_BASES } from './grid-build.ts';
import { openApi } from '../rest/openapi-schemas.ts';
import { rememberAnswer } from '../rest/fast-path.ts';
import { vintageChoiceHoldsUntil } from '../factors/lookup.ts';

/** The bases of a grid factor, a closed list the document states as the GridFactorBasis enum. */
export const GRID_FACTOR_BASIS = { name: 'GridFactorBasis', values: GRID_FACTOR_BASES };

const REFERENCE_MAX_AGE = 604_800;

interface CountryRow {
  code: string;
  name: string;
  kind: string;
  parent_code: string | null;
  grid_factor: number;
  grid_factor_source: string;
  grid_factor_valid_from: Date;
  grid_factor_published_value: number | null;
  grid_factor_published_basis: string | null;
  grid_factor_uplift: number | null;
}

const Country = builder.objectRef<CountryRow>('Country').implement({
  description: 'A country (ISO 3166-1 alpha-2) or sub-national region (ISO 3166-2) with its current grid factor.',
  fields: (t) => ({
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    kind: t.exposeString('kind', { description: '`country` or `subdivision`' }),
    parent_code: t.exposeString('parent_code', { nullable: true, description: 'Country of a subdivision' }),
    grid_factor: t.exposeFloat('grid_factor', { description: 'kg CO2e per kWh, the vintage valid today' }),
    grid_factor_source: t.exposeString('grid_factor_source'),
    grid_factor_valid_from: t.expose('grid_factor_valid_from', { type: 'Date' }),
    grid_factor_published_value: t.exposeFloat('grid_factor_published_value', {
      nullable: true,
      description: 'The figure as published, kg per kWh on grid_factor_published_basis',
    }),
    grid_factor_published_basis: t.exposeString('grid_factor_published_basis', {
      nullable: true,
      description: 'lifecycle_co2e, direct_co2e or direct_co2; grid_factor itself is always lifecycle CO2e',
      ...openApi({ values: GRID_FACTOR_BASIS }),
    }),
    grid_factor_uplift: t.exposeFloat('grid_factor_uplift', {
      nullable: true,
      description: 'grid_factor = published value x uplift; null when published as lifecycle',
    }),
  }),
});

const CountryList = builder.objectRef<{ total: number; countries: CountryRow[] }>('CountryList').implement({
  fields: (t) => ({
    total: t.exposeInt('total'),
    countries: t.expose('countries', { type: [Country] }),
  }),
});

const Category = builder.objectRef<CategorySnapshot>('Category').implement({
  description: 'A device category with the defaults the engine falls back to.',
  fields: (t) => ({
    category: t.exposeString('category'),
    name: t.exposeString('name'),
    group: t.exposeString('group'),
    lifetime_years: t.exposeFloat('lifetime_years'),
    fallback_kwh_per_year: t.exposeFloat('fallback_kwh_per_year'),
  }),
});

const CategoryList = builder.objectRef<{ total: number; categories: readonly CategorySnapshot[] }>('CategoryList').implement({
  fields: (t) => ({
    total: t.exposeInt('total'),
    categories: t.expose('categories', { type: [Category] }),
  }),
});

builder.queryFields((t) => ({
  referenceCountries: t.field({
    type: CountryList,
    description: 'Countries and sub-national regions with their current grid emission factor.',
    authScopes: PUBLIC,
    extensions: {
      rest: {
        method: 'GET',
        path: '/reference/countries',
        summary: 'List the countries and regions with grid intensities',
        tags: ['Reference'],
        fastPath: 'shared',
      },
    },
    resolve: (_root, args, { services }) => {
      cacheFor(REFERENCE_MAX_AGE);
      // The current factor of each region: the list holds while the vintages chosen today do.
      rememberAnswer(args, { until: vintageChoiceHoldsUntil(new Date()) });
      const countries: CountryRow[] = [];
      for (const region of services.reference.regions.values()) {
        const factor = services.reference.gridFactor(region.code);
        if (!factor) continue;
        const basis = factorBasisProvenance(region.code, factor.valid_from);
        countries.push({
          code: region.code,
          name: region.name,
          kind: region.kind,
          parent_code: region.parent_code,
          grid_factor: factor.value,
          grid_factor_source: factorCitation(factor),
          grid_factor_valid_from: factor.valid_from,
          grid_factor_published_value: basis?.published_value ?? null,
          grid_factor_published_basis: basis?.published_basis ?? null,
          grid_factor_uplift: basis?.uplift ?? null,
        });
      }
      return { total: countries.length, countries };
    },
  }),
  referenceCategories: t.field({
    type: CategoryList,
    description: 'Device categories with lifetime and fallback yearly energy use.',
    authScopes: PUBLIC,
    extensions: {
      rest: {
        method: 'GET',
        path: '/reference/categories',
        summary: 'List the device categories',
        tags: ['Reference'],
        fastPath: 'shared',
      },
    },
    resolve: (_root, args, { services }) => {
      cacheFor(REFERENCE_MAX_AGE);
      // Reference data changes only when a new release is loaded at start-up (src/reference/store.ts).
      rememberAnswer(args);
      return { total: services.reference.categories.length, categories: services.reference.categories };
    },
  }),
}));
