import { rememberAnswer } from '../rest/fast-path.ts';
import { builder } from '../graphql/builder.ts';
import { PUBLIC } from '../auth/access.ts';
import { maxChars, TEXT_LIMITS } from '../validation/text.ts';
import { ApiError, invalidParameter } from '../errors/api-error.ts';
import { IcecatUnavailableError } from './icecat/index.ts';
import { BUILT_IN_SOURCE, type CatalogueMatch } from './service.ts';
import type { CatalogueEntry } from './search.ts';
import { fullSpecs, RESULT_SPEC_BASES, type FullSpecs, type ResultSpecSource } from './spec-provenance.ts';
import { openApi } from '../rest/openapi-schemas.ts';

const MIN_QUERY = 2;
const MAX_RESULTS = 15;

export const ProductSpecs = builder.objectRef<FullSpecs>('ProductSpecs').implement({
  description:
    "Every spec field of the device: the catalogue's value, else the value its footprint uses (the engine's estimate for the device or its category's typical value); " +
    'null only where the category has no such part or the engine does not know the category. `spec_sources` gives the basis of each field.',
  fields: (t) => ({
    weight_kg: t.exposeFloat('weight_kg', { nullable: true }),
    screen_size_inch: t.exposeFloat('screen_size_inch', { nullable: true }),
    // The catalogue's values are the engine's (src/catalogue/icecat/mapping.ts maps to them): the footprint inputs' enums.
    screen_type: t.exposeString('screen_type', { nullable: true, ...openApi({ values: 'ScreenType' }) }),
    processor_tdp_w: t.exposeFloat('processor_tdp_w', { nullable: true }),
    ram_gb: t.exposeFloat('ram_gb', { nullable: true }),
    storage_gb: t.exposeFloat('storage_gb', { nullable: true }),
    storage_type: t.exposeString('storage_type', { nullable: true, ...openApi({ values: 'StorageType' }) }),
    battery_wh: t.exposeFloat('battery_wh', { nullable: true }),
    typical_consumption_kwh: t.exposeFloat('typical_consumption_kwh', {
      nullable: true,
      description:
        "kWh per year: the catalogue's figure (ENERGY STAR TEC) where it publishes one, else the energy model's estimate for the device, the annual kWh its footprint uses",
    }),
  }),
});

const SpecBasis = builder.enumType('SpecBasis', { values: RESULT_SPEC_BASES });

const SpecSourceRef = builder.objectRef<ResultSpecSource>('SpecSource').implement({
  description: 'Where one spec value comes from (docs/catalogue.md, "Per-field provenance"; docs/search.md, "Full specs").',
  fields: (t) => ({
    field: t.exposeString('field', { description: 'Spec field, e.g. `weight_kg`' }),
    basis: t.expose('basis', {
      type: SpecBasis,
      description:
        "From the catalogue: `published`, the model's own published figure; `configuration`, a chosen typical configuration (RAM, storage, TDP), a unit may differ; " +
        '`derived`, computed from a published figure (battery Wh from mAh). ' +
        "From the engine, for a field the catalogue does not publish, the value the device's footprint uses: `estimated`, from the device's other figures " +
        "(typical_consumption_kwh from the energy model, weight_kg from the screen size and battery); `category_typical`, the category's typical configuration of the release year (RAM, storage) or its default. " +
        "Null values: `not_applicable`, the category has no such part (a monitor's processor, a desktop's screen) and the footprint counts none; `not_estimable`, the engine does not know the category. " +
        '`note` says how.',
    }),
    url: t.exposeString('url', { nullable: true }),
    note: t.exposeString('note', {
      nullable: true,
      description: "The document a catalogue value comes from; for the engine's bases, how the value was formed or why there is none",
    }),
  }),
});

const SPEC_SOURCES_DESCRIPTION = 'Provenance of each spec value: one row per field of `specs`, in its order';

const SearchHitRef = builder.objectRef<CatalogueEntry>('CatalogueDevice').implement({
  fields: (t) => ({
    brand: t.exposeString('brand'),
    mpn: t.exposeString('mpn'),
    name: t.exposeString('name'),
    category: t.exposeString('category'),
    release_year: t.exposeInt('release_year'),
    // Resolved from the entry alone: the REST fast path writes these with the parent only (src/graphql/json-writer.ts).
    specs: t.field({ type: ProductSpecs, resolve: (e) => fullSpecs(e).specs }),
    spec_sources: t.field({ type: [SpecSourceRef], description: SPEC_SOURCES_DESCRIPTION, resolve: (e) => fullSpecs(e).sources }),
  }),
});

const SearchResult = builder
  .objectRef<{ query: string; count: number; returned: number; source: string; results: CatalogueEntry[] }>('SearchResult')
  .implement({
    fields: (t) => ({
      query: t.exposeString('query'),
      count: t.exposeInt('count', { description: 'Number of catalogue devices that match the query, including those beyond `limit`' }),
      returned: t.exposeInt('returned', {
        description: 'Number of devices in `results`: the first `limit` of the `count` matches, best first',
      }),
      source: t.exposeString('source', { description: 'Origin of the results: the built-in device database' }),
      results: t.expose('results', { type: [SearchHitRef] }),
    }),
  });

const IdentifyResult = builder.objectRef<CatalogueMatch>('IdentifyResult').implement({
  description:
    'A device identified by the external catalogue (Icecat) or, without one or when it does not know it, the built-in catalogue.',
  fields: (t) => ({
    found: t.boolean({ resolve: () => true }),
    icecat_id: t.int({
      nullable: true,
      description: 'Icecat product id; null when identified from the built-in catalogue',
      resolve: (m) => m.icecat_id ?? null,
    }),
    brand: t.string({ resolve: (m) => m.entry.brand }),
    mpn: t.string({ resolve: (m) => m.entry.mpn }),
    name: t.string({ resolve: (m) => m.entry.name }),
    icecat_category: t.string({
      nullable: true,
      description: "The external catalogue's category",
      resolve: (m) => m.icecat_category ?? null,
    }),
    mapped_category: t.string({ resolve: (m) => m.entry.category }),
    specs: t.field({ type: ProductSpecs, resolve: (m) => fullSpecs(m.entry).specs }),
    spec_sources: t.field({ type: [SpecSourceRef], description: SPEC_SOURCES_DESCRIPTION, resolve: (m) => fullSpecs(m.entry).sources }),
    source: t.string({
      description: '`icecat` or `built-in catalogue`',
      resolve: (m) => (m.icecat_id !== undefined ? 'icecat' : BUILT_IN_SOURCE),
    }),
  }),
});

/** 404 of /identify: the spec's not-found body {found: false, brand, mpn, message} instead of an ApiError. */
class NotIdentifiedError extends ApiError {
  constructor(private readonly query: { brand: string | null; mpn: string | null }) {
    super(404, 'PRODUCT_NOT_FOUND', 'Product not found', 'No catalogue knows this product');
  }

  override toBody() {
    // The spec's fields, plus the code every error body carries.
    return {
      found: false,
      brand: this.query.brand,
      mpn: this.query.mpn,
      message: 'No catalogue knows this product; footprints still work from specs or category defaults.',
      code: this.code,
    };
  }
}

/** The 404 body of POST /identify (NotIdentifiedError), for the OpenAPI document. */
const NOT_IDENTIFIED = {
  description: 'No catalogue knows the product',
  schema: {
    type: 'object',
    required: ['found', 'brand', 'mpn', 'message', 'code'],
    properties: {
      found: { type: 'boolean', enum: [false] },
      brand: { type: 'string', nullable: true },
      mpn: { type: 'string', nullable: true },
      message: { type: 'string' },
      code: { type: 'string', enum: ['PRODUCT_NOT_FOUND'] },
    },
  },
};

builder.queryField('search', (t) =>
  t.field({
    type: SearchResult,
    description:
      'Fuzzy, typo-tolerant search of the built-in device database over brand, name, part number and aliases; up to `limit` results, best first. ' +
      'Devices that match the same words rank by how close their model number is to the one searched for (`latitude 5441` lists the Latitude 5440 and 5450 first).',
    authScopes: PUBLIC,
    extensions: {
      rest: { method: 'GET', path: '/search', summary: 'Search the product catalogue', tags: ['Products'], fastPath: 'shared' },
      pageSize: { default: MAX_RESULTS, max: MAX_RESULTS },
    },
    args: {
      q: t.arg.string({
        required: true,
        description: `Search text, at least ${MIN_QUERY} characters`,
        ...maxChars(TEXT_LIMITS.searchQuery),
      }),
      limit: t.arg.int({ defaultValue: MAX_RESULTS, description: `Most results to return, 1 to ${MAX_RESULTS} (default ${MAX_RESULTS})` }),
    },
    resolve: async (_root, args, { services }) => {
      const { q, limit } = args;
      const query = q.trim();
      if (query.length < MIN_QUERY) throw invalidParameter('q', `must be at least ${MIN_QUERY} characters`);
      const size = limit ?? MAX_RESULTS;
      if (size < 1 || size > MAX_RESULTS) throw invalidParameter('limit', `must be an integer from 1 to ${MAX_RESULTS}, got ${size}`);
      const { total, hits } = (await services.catalogue.searchIndex()).searchPage(query, size);
      // The built-in catalogue does not change while the process runs.
      rememberAnswer(args);
      return { query, count: total, returned: hits.length, source: BUILT_IN_SOURCE, results: hits.map((hit) => hit.entry) };
    },
  }),
);

builder.mutationField('identify', (t) =>
  t.field({
    type: IdentifyResult,
    description:
      'Identifies a product by manufacturer (alias brand) and model string or part number (alias mpn), or by GTIN. ' +
      'Not found: 404 {found: false, brand, mpn, message}. External catalogue unreachable: 503.',
    authScopes: PUBLIC,
    extensions: {
      rest: {
        method: 'POST',
        path: '/identify',
        summary: 'Identify a product',
        tags: ['Products'],
        errors: { 404: NOT_IDENTIFIED, 503: 'The external catalogue (Icecat) cannot be reached (CATALOGUE_UNAVAILABLE)' },
      },
    },
    args: {
      manufacturer: t.arg.string(maxChars(TEXT_LIMITS.brand)),
      brand: t.arg.string({ description: 'Alias of manufacturer', ...maxChars(TEXT_LIMITS.brand) }),
      model_string: t.arg.string({ description: 'Model name, part number or GTIN', ...maxChars(TEXT_LIMITS.model) }),
      mpn: t.arg.string({ description: 'Alias of model_string', ...maxChars(TEXT_LIMITS.model) }),
    },
    resolve: async (_root, args, { services }) => {
      const brand = (args.manufacturer ?? args.brand)?.trim() || null;
      const code = (args.model_string ?? args.mpn)?.trim() || null;
      if (!code) throw invalidParameter('model_string', 'model_string (or mpn) is required');
      let match: CatalogueMatch | undefined;
      try {
        match = await services.catalogue.lookupExternal(brand ?? undefined, code);
      } catch (error) {
        if (!(error instanceof IcecatUnavailableError)) throw error;
        throw new ApiError(
          503,
          'CATALOGUE_UNAVAILABLE',
          'External catalogue unavailable',
          `Icecat could not be reached (${error.reason}); try again later`,
          { 'Retry-After': '30' },
        );
      }
      if (!match) {
        await services.catalogue.searchIndex();
        match = services.catalogue.findBuiltIn(brand ?? undefined, code, code);
      }
      // Identify names one product: variants nothing tells apart (ThinkPad T14 Gen 3) or a family (ThinkPad E14) are not one.
      if (match?.match?.status === 'shared' || match?.match?.status === 'family') match = undefined;
      if (!match) throw new NotIdentifiedError({ brand, mpn: code });
      return match;
    },
  }),
);
