import { builder } from '../graphql/builder.ts';
import { PUBLIC } from '../auth/access.ts';
import { maxChars, TEXT_LIMITS } from '../validation/text.ts';
import { cacheFor, currentRequest } from '../observability/request-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { describeProblems, refusedItems } from '../rest/item-refusals.ts';
import {
  PRODUCTION_COMPONENTS,
  RELEASE_YEAR_MIN,
  SCREEN_TYPES,
  STORAGE_TYPES,
  SWAP_KINDS,
  type HeatmapEntry,
  type RefurbishmentSwapResult,
} from './engine/index.ts';
import { checkedBy, itemCount, openApiBounds } from '../validation/schemas.ts';
import { durationYears, REMAINING_YEARS_MAX, REMAINING_YEARS_MIN, remainingYears, SPEC_VALUES } from './inputs.ts';
import type { FootprintProduct } from './device.ts';
import type { DeviceMatch, MatchedDevice } from '../catalogue/service.ts';
import { rememberAnswer } from '../rest/fast-path.ts';
import { vintageChoiceHoldsUntil } from '../factors/lookup.ts';
import { openApi } from '../rest/openapi-schemas.ts';
import { bounds } from '../rest/openapi.ts';
import type { FootprintResponse, Methodology, RefurbishmentResponse, SavingsResponse } from './service.ts';
import type { Allocation, StatedInterval } from './engine/index.ts';
import { ConfidenceRef as Confidence, CriteriaRef, ImpactsRef } from './impacts-schema.ts';

export const MAX_BATCH = 100;

/** Calculation results are public and cacheable for a day (spec 4.1); they differ by key only in calculation_id. */
function cacheCalculation(): void {
  cacheFor(86_400);
  currentRequest()?.successHeaders.set('vary', 'Authorization');
}

export const ScreenType = builder.enumType('ScreenType', { values: SCREEN_TYPES });
export const StorageType = builder.enumType('StorageType', { values: STORAGE_TYPES });
const Grade = builder.enumType('RefurbishmentGrade', {
  values: { A: { description: 'Like New' }, B: { description: 'Good' }, C: { description: 'Fair' } } as const,
});

export const FootprintProductRef = builder.objectRef<FootprintProduct>('FootprintProduct').implement({
  description: 'The device the calculation is for, as matched by the lookup chain.',
  fields: (t) => ({
    brand: t.exposeString('brand'),
    mpn: t.exposeString('mpn', { nullable: true }),
    name: t.exposeString('name'),
    category: t.exposeString('category'),
    weight_kg: t.exposeFloat('weight_kg', {
      description:
        "kg: the supplied or catalogue weight, else the engine's estimate (the category default, scaled with the screen area for products whose screen sets their size, with a supplied battery's mass beyond the default one; docs/methodology.md section 2)",
    }),
  }),
});

const Breakdown = builder.objectRef<FootprintResponse['breakdown']>('FootprintBreakdown').implement({
  description: 'Lifecycle phases, kg CO2e.',
  fields: (t) => ({
    production_kg: t.exposeFloat('production_kg'),
    transport_kg: t.exposeFloat('transport_kg'),
    use_phase_kg: t.exposeFloat('use_phase_kg'),
    end_of_life_kg: t.exposeFloat('end_of_life_kg'),
  }),
});

const MatchStatus = builder.enumType('DeviceMatchStatus', {
  values: {
    exact: { description: 'One catalogue device, by part number, name or a confident model-name match' },
    variant: {
      description:
        'The model name fits several variants of one model (ThinkPad T14 Gen 3 Intel and AMD); a processor in the model string or the supplied specs picked one',
    },
    shared: {
      description:
        'Several variants and nothing told them apart: the specs they share are used, the ones they differ in are estimated; confidence at most estimated_medium',
    },
    family: {
      description:
        'The model name names a family without its generation (ThinkPad E14, EliteBook 840): family-level specs (median of the values its devices state), candidates are its devices; confidence at most estimated_medium',
    },
    none: { description: 'No catalogue device: parametric estimate from the supplied specs, else category defaults' },
  } as const,
});

const MatchedDeviceRef = builder.objectRef<MatchedDevice>('MatchedDevice').implement({
  description: 'A built-in or external catalogue device.',
  fields: (t) => ({
    brand: t.exposeString('brand'),
    mpn: t.exposeString('mpn'),
    name: t.exposeString('name'),
  }),
});

const DeviceMatchRef = builder.objectRef<DeviceMatch>('DeviceMatch').implement({
  description: 'How the lookup chain identified the device.',
  fields: (t) => ({
    status: t.expose('status', { type: MatchStatus }),
    chosen: t.expose('chosen', {
      type: MatchedDeviceRef,
      nullable: true,
      description: 'The catalogue device used (exact, variant); null for shared, family and none',
    }),
    candidates: t.expose('candidates', {
      type: [MatchedDeviceRef],
      description: 'The variants the model name fits (variant, shared) or the devices of the family (family); empty otherwise',
    }),
    basis: t.exposeString('basis', {
      nullable: true,
      description:
        "What decided, e.g. 'part number', 'model name', \"processor 'i5-1245u' in the model name\", 'closest to the supplied processor_tdp_w'",
    }),
    differing_specs: t.exposeStringList('differing_specs', {
      description:
        'Spec fields the variants or family devices differ in; for shared they come from the supplied specs or the category defaults, for family they are family medians',
    }),
  }),
});

export const StatedIntervalRef = builder.objectRef<StatedInterval>('UncertaintyInterval').implement({
  description:
    'The ~80% interval of a lifecycle total, kg CO2e: total / (1 + u) to total x (1 + u) with u = uncertainty_pct / 100. Multiplicative (lognormal), as the calibration errors are: it never goes below zero, and it is not total +/- u (docs/methodology.md section 8).',
  fields: (t) => ({
    low_kg: t.exposeFloat('low_kg', { description: 'total / (1 + u), kg CO2e, 2 decimals' }),
    high_kg: t.exposeFloat('high_kg', { description: 'total x (1 + u), kg CO2e, 2 decimals' }),
    method: t.exposeString('method', { description: 'The form of the interval, in words' }),
  }),
});

const AllocationMethod = builder.enumType('AllocationMethod', {
  values: {
    duration: { description: 'The figures cover duration_years: embodied phases x duration / lifetime, the use phase for the duration' },
    per_year: { description: 'The figures cover one year: embodied phases / lifetime, one year of use' },
  } as const,
});

const AllocationRef = builder.objectRef<Allocation>('Allocation').implement({
  description:
    "How the whole-life figures were allocated to a duration (docs/methodology.md, 'Allocation over a duration'): every figure of the answer is its whole-life value x share; uncertainty_pct and confidence are the whole-life ones.",
  fields: (t) => ({
    method: t.expose('method', { type: AllocationMethod }),
    duration_years: t.exposeFloat('duration_years', { description: 'Years the figures cover (1 for per_year)' }),
    lifetime_years: t.exposeFloat('lifetime_years', { description: "The device's lifetime the embodied phases are spread over" }),
    share: t.exposeFloat('share', {
      description:
        'duration_years / lifetime_years: the share of the embodied phases (and of the whole-life use phase, annual use x lifetime). Savings and refurbishment: the new device’s figures; their reuse figures are for duration_years of remaining_life_years',
    }),
  }),
});

const MethodologyRef = builder.objectRef<Methodology>('Methodology').implement({
  fields: (t) => ({
    standard: t.exposeString('standard'),
    data_sources: t.exposeStringList('data_sources', { description: 'Which catalogue or estimate, and which factor vintages, were used' }),
    confidence: t.expose('confidence', { type: Confidence }),
    uncertainty_pct: t.exposeFloat('uncertainty_pct', {
      description:
        'u of the ~80% interval of the lifecycle total, percent, from calibration residuals: total / (1 + u) to total x (1 + u) (see interval), not total +/- u',
    }),
    interval: t.expose('interval', {
      type: StatedIntervalRef,
      nullable: true,
      description:
        "The ~80% interval of total_kg_co2e (footprint answers). Null in savings and refurbishment answers: their results are differences of estimates (avoided minus added emissions) that can legitimately be negative, and no interval is stated for them; their uncertainty_pct is that of the device's lifecycle footprint",
    }),
    engine_version: t.exposeString('engine_version'),
    lifetime_years: t.exposeFloat('lifetime_years'),
    annual_kwh: t.exposeFloat('annual_kwh'),
    grid_factor_kg_per_kwh: t.exposeFloat('grid_factor_kg_per_kwh'),
    allocation: t.expose('allocation', {
      type: AllocationRef,
      nullable: true,
      description: 'How the figures were allocated when duration_years or per_year was given; null: whole-life figures',
    }),
    match: t.expose('match', {
      type: DeviceMatchRef,
      description: 'How the device was identified: one catalogue device, a variant of several, the specs several variants share, or none',
    }),
    warnings: t.exposeStringList('warnings', {
      description:
        "What the caller should know about how the request was read; today a conflict between the category given and the identified device's: a more specific category of the same kind (laptop → convertible) uses the device, another kind (laptop → smartphone) does not use it and estimates the category given (docs/catalogue.md). Empty when nothing conflicts",
    }),
  }),
});

const CALCULATION_ID = {
  nullable: true,
  description:
    'Id of the stored calculation record; cite it in POST /certificate. Derived from its content (organisation, inputs, engine version, factor vintages, answer): the same calculation asked again answers the same id and stores nothing. Null for anonymous calls and keys without organisation context: nothing is stored for them',
} as const;

const CALCULATED_AT = {
  type: 'DateTime',
  description: 'When this calculation was first made: a repeat of a stored calculation answers its time (see calculation_id)',
} as const;

export const FootprintResult = builder.objectRef<FootprintResponse>('FootprintResult').implement({
  fields: (t) => ({
    product: t.expose('product', { type: FootprintProductRef }),
    country: t.exposeString('country', { description: 'Region code used (ISO 3166-1 alpha-2 or ISO 3166-2)' }),
    total_kg_co2e: t.exposeFloat('total_kg_co2e'),
    breakdown: t.expose('breakdown', { type: Breakdown }),
    impacts: t.expose('impacts', {
      type: ImpactsRef,
      description:
        'GWP (the same figures as total_kg_co2e and breakdown), abiotic depletion of elements (ADPe, kg Sb eq) and primary energy (PE, MJ), each by phase with total, uncertainty, interval, confidence and sources (docs/methodology.md, "Impacts beyond carbon")',
    }),
    methodology: t.expose('methodology', { type: MethodologyRef }),
    calculated_at: t.expose('calculated_at', CALCULATED_AT),
    calculation_id: t.exposeID('calculation_id', CALCULATION_ID),
  }),
});

// Device specs are checked with the device's resolved category (deviceSpecs, in resolveDevice), every problem of the
// request in one answer and a batch item alone; OpenAPI states the bounds that hold in every category.
const POSITIVE = openApiBounds(SPEC_VALUES.weight_kg);
const NON_NEGATIVE = openApiBounds(SPEC_VALUES.nonNegative);
/** Checked in resolveDevice with the other device inputs (a batch item's problem stays that item's); OpenAPI states the lower bound. */
export const RELEASE_YEAR = {
  description:
    "The unit's release (model) year, 1990 to next year. Wins over the catalogue's year and a year read from the model number (methodology.data_sources says so): it sets the typical memory and storage of unstated fields, the calibrated year trend of the manufacturer's footprints and the energy model's year, and the interval is the one of a known year (docs/methodology.md section 3.4)",
  // the upper bound moves with the calendar: stated in words only
  ...bounds({ minimum: RELEASE_YEAR_MIN }),
};
/** Optional on every calculation (footprint, batch items, savings, refurbishment): the duration the figures are allocated to. */
const DURATION_YEARS = {
  description:
    "Allocate the figures to this many years instead of the whole life: embodied phases x duration / lifetime, the use phase for the duration (docs/methodology.md, 'Allocation over a duration'). Above 0 and at most the device's lifetime (methodology.lifetime_years; savings and refurbishment: also at most remaining_years); methodology.allocation states it",
  ...checkedBy(durationYears),
};
const PER_YEAR = {
  description:
    'true: annualised figures, embodied phases / lifetime + one year of use (methodology.allocation states it); not with duration_years',
};

const REMAINING_YEARS = {
  description: `Years of further use, ${REMAINING_YEARS_MIN}..${REMAINING_YEARS_MAX} (default 2)`,
  ...checkedBy(remainingYears),
};

const deviceArgs = builder.args((t) => ({
  brand: t.string({ required: true, description: 'Manufacturer name', ...maxChars(TEXT_LIMITS.brand) }),
  country: t.string({
    required: true,
    description: 'Country of use: ISO 3166-1 alpha-2 (DE) or ISO 3166-2 region (US-CA); case-insensitive',
    ...maxChars(TEXT_LIMITS.country),
  }),
  mpn: t.string({ description: 'Manufacturer part number (mpn or model is required)', ...maxChars(TEXT_LIMITS.mpn) }),
  model: t.string({
    description:
      'Model name, alternative to mpn. A name that fits several variants of one model (ThinkPad T14 Gen 3: Intel, AMD) is resolved by a processor in it (i5-1245U, Ryzen 5 PRO 6650U), else by the supplied specs, else to the specs the variants share; a model without its generation (ThinkPad E14) resolves to family-level specs; methodology.match says which',
    ...maxChars(TEXT_LIMITS.model),
  }),
  category: t.string({
    description:
      'Device category (default: the catalogue device\'s, else the kind the model name names, e.g. "… Monitor", else laptop); see /reference/categories. Against an identified device of another category: a more specific one of the same kind (laptop → convertible) uses the device, another kind (laptop → smartphone) keeps this category without the device; methodology.warnings says which',
    ...maxChars(TEXT_LIMITS.category),
  }),
  weight_kg: t.float({
    description:
      "kg. Refused (400) from 3x the heaviest real products of the category (methodology 11.1); between those, accepted with a 'check weight_kg' note in methodology.data_sources",
    ...POSITIVE,
  }),
  tdp: t.float({ description: 'Processor TDP, watts', ...NON_NEGATIVE }),
  ram_gb: t.float({ description: 'GB', ...NON_NEGATIVE }),
  battery_wh: t.float({ description: 'Wh', ...NON_NEGATIVE }),
  screen_size_inch: t.float({
    description:
      'inches. On a desktop, a screen size means a built-in screen: the device is estimated as an all_in_one (product.category says so). Categories without a screen accept up to 5 (a status panel); others up to 1.25x their largest real products',
    ...NON_NEGATIVE,
  }),
  screen_type: t.field({ type: ScreenType }),
  storage_gb: t.float({ description: 'GB', ...NON_NEGATIVE }),
  storage_type: t.field({ type: StorageType }),
  release_year: t.int(RELEASE_YEAR),
  duration_years: t.float(DURATION_YEARS),
  per_year: t.boolean(PER_YEAR),
}));

const BatchItemInput = builder.inputType('FootprintBatchItem', {
  description: 'One product of a batch. Validated per item: a bad item becomes an item error, the others are calculated.',
  fields: (t) => ({
    // Required, though nullable: a missing one is that item's error (src/footprint/device.ts, service.ts), not the request's.
    brand: t.string(openApi({ required: true }, maxChars(TEXT_LIMITS.brand))),
    country: t.string(openApi({ required: true }, maxChars(TEXT_LIMITS.country))),
    mpn: t.string(maxChars(TEXT_LIMITS.mpn)),
    model: t.string(maxChars(TEXT_LIMITS.model)),
    category: t.string(maxChars(TEXT_LIMITS.category)),
    weight_kg: t.float(POSITIVE),
    tdp: t.float(NON_NEGATIVE),
    ram_gb: t.float(NON_NEGATIVE),
    battery_wh: t.float(NON_NEGATIVE),
    screen_size_inch: t.float({ description: 'inches; on a desktop, estimated as an all_in_one (built-in screen)', ...NON_NEGATIVE }),
    screen_type: t.field({ type: ScreenType }),
    storage_gb: t.float(NON_NEGATIVE),
    storage_type: t.field({ type: StorageType }),
    release_year: t.int(RELEASE_YEAR),
    duration_years: t.float(DURATION_YEARS),
    per_year: t.boolean(PER_YEAR),
  }),
});

interface ItemError {
  error: string;
  index: number;
}
const BatchItemError = builder.objectRef<ItemError>('FootprintItemError').implement({
  fields: (t) => ({
    error: t.exposeString('error'),
    index: t.exposeInt('index', { description: 'Position in the submitted products array' }),
  }),
});
const BatchItem = builder.unionType('FootprintBatchEntry', {
  types: [FootprintResult, BatchItemError],
  resolveType: (value) => ('error' in value ? BatchItemError : FootprintResult),
});
const BatchResult = builder
  .objectRef<{ total: number; successful: number; results: (FootprintResponse | ItemError)[] }>('FootprintBatchResult')
  .implement({
    fields: (t) => ({
      total: t.exposeInt('total'),
      successful: t.exposeInt('successful'),
      results: t.expose('results', { type: [BatchItem] }),
    }),
  });

const Equivalents = builder.objectRef<SavingsResponse['equivalents']>('Equivalents').implement({
  fields: (t) => ({
    km_driving_avoided: t.exposeFloat('km_driving_avoided', { description: 'km of average passenger-car driving' }),
    trees_year_equivalent: t.exposeFloat('trees_year_equivalent', { description: 'tree-years of CO2 absorption' }),
  }),
});

const SavingsResult = builder.objectRef<SavingsResponse>('SavingsResult').implement({
  description: 'CO2 avoided by keeping a device in use for remaining_life_years instead of buying a new one.',
  fields: (t) => ({
    product: t.expose('product', { type: FootprintProductRef }),
    country: t.exposeString('country'),
    remaining_life_years: t.exposeFloat('remaining_life_years'),
    avoided_co2_kg: t.exposeFloat('avoided_co2_kg', { description: 'Net: avoided production and transport minus additional use phase' }),
    avoided_production_kg: t.exposeFloat('avoided_production_kg'),
    avoided_transport_kg: t.exposeFloat('avoided_transport_kg'),
    additional_use_phase_kg: t.exposeFloat('additional_use_phase_kg', {
      description: 'Extra use-phase emissions of the older device over the remaining life',
    }),
    equivalents: t.expose('equivalents', { type: Equivalents }),
    impacts: t.expose('impacts', {
      type: CriteriaRef,
      description:
        'Avoided GWP (the same figures as avoided_production_kg, avoided_transport_kg, -additional_use_phase_kg and avoided_co2_kg), ADPe (kg Sb eq) and PE (MJ), by phase',
    }),
    methodology: t.expose('methodology', { type: MethodologyRef }),
    calculated_at: t.expose('calculated_at', CALCULATED_AT),
    calculation_id: t.exposeID('calculation_id', CALCULATION_ID),
  }),
});

const Overhead = builder.objectRef<RefurbishmentResponse['overhead']>('RefurbishmentOverhead').implement({
  description: 'Emissions of the refurbishment process by grade, kg CO2e.',
  fields: (t) => ({
    total_kg: t.exposeFloat('total_kg'),
    cleaning_kg: t.exposeFloat('cleaning_kg'),
    testing_kg: t.exposeFloat('testing_kg'),
    parts_kg: t.exposeFloat('parts_kg'),
    packaging_kg: t.exposeFloat('packaging_kg'),
    logistics_kg: t.exposeFloat('logistics_kg'),
  }),
});

const SwapKind = builder.enumType('SwapKind', { values: SWAP_KINDS });
/** The engine's production components (a string in its results), a closed list the document states as an enum. */
const COMPONENT = { values: { name: 'ProductionComponent', values: PRODUCTION_COMPONENTS } };

const SwapCost = builder.objectRef<RefurbishmentSwapResult>('RefurbishmentSwap').implement({
  fields: (t) => ({
    kind: t.expose('kind', { type: SwapKind }),
    token: t.exposeString('token', { description: 'The swap, normalised, e.g. storage:512:nvme' }),
    component: t.exposeString('component', { description: 'Production component it replaces', ...openApi(COMPONENT) }),
    production_kg: t.exposeFloat('production_kg', { description: 'Production emissions of the new part' }),
  }),
});

const NewDevice = builder.objectRef<RefurbishmentResponse['new_device']>('NewDeviceEmbodied').implement({
  fields: (t) => ({
    production_kg: t.exposeFloat('production_kg'),
    transport_kg: t.exposeFloat('transport_kg'),
    embodied_kg: t.exposeFloat('embodied_kg'),
  }),
});

const AdjustedUse = builder.objectRef<RefurbishmentResponse['adjusted_use_phase']>('AdjustedUsePhase').implement({
  description: 'Use phase over the remaining life in the country of reuse.',
  fields: (t) => ({
    reuse_grid_factor_kg_per_kwh: t.exposeFloat('reuse_grid_factor_kg_per_kwh'),
    annual_kwh_new: t.exposeFloat('annual_kwh_new'),
    annual_kwh_refurbished: t.exposeFloat('annual_kwh_refurbished'),
    refurbished_use_phase_kg: t.exposeFloat('refurbished_use_phase_kg'),
    new_device_use_phase_kg: t.exposeFloat('new_device_use_phase_kg'),
    additional_use_phase_kg: t.exposeFloat('additional_use_phase_kg'),
  }),
});

const Heatmap = builder.objectRef<HeatmapEntry>('ProductionHeatmapEntry').implement({
  fields: (t) => ({
    component: t.exposeString('component', openApi(COMPONENT)),
    kg: t.exposeFloat('kg'),
    share_pct: t.exposeFloat('share_pct'),
    swapped: t.exposeBoolean('swapped', { description: 'True when a swap replaces this component' }),
  }),
});

const RefurbishmentResult = builder.objectRef<RefurbishmentResponse>('RefurbishmentResult').implement({
  description:
    'Refurbishing and reusing a device versus buying a new one: grade overhead, component swaps, adjusted use phase in the reuse country, net savings and break-even.',
  fields: (t) => ({
    product: t.expose('product', { type: FootprintProductRef }),
    country: t.exposeString('country'),
    reuse_country: t.exposeString('reuse_country'),
    grade: t.expose('grade', { type: Grade }),
    grade_label: t.exposeString('grade_label'),
    remaining_life_years: t.exposeFloat('remaining_life_years'),
    overhead: t.expose('overhead', { type: Overhead }),
    swaps: t.expose('swaps', { type: [SwapCost] }),
    swaps_total_kg: t.exposeFloat('swaps_total_kg'),
    refurbishment_total_kg: t.exposeFloat('refurbishment_total_kg', { description: 'Overhead plus swaps' }),
    new_device: t.expose('new_device', { type: NewDevice }),
    adjusted_use_phase: t.expose('adjusted_use_phase', { type: AdjustedUse }),
    gross_avoided_kg: t.exposeFloat('gross_avoided_kg', { description: 'Embodied emissions of the new device avoided' }),
    net_savings_kg: t.exposeFloat('net_savings_kg', { description: 'Gross avoided minus refurbishment and additional use phase' }),
    net_savings_pct: t.exposeFloat('net_savings_pct'),
    break_even_years: t.exposeFloat('break_even_years', {
      nullable: true,
      description: 'Years of reuse after which refurbishing stops paying off against a new, more efficient device; null when it never does',
    }),
    production_heatmap: t.expose('production_heatmap', { type: [Heatmap] }),
    equivalents: t.expose('equivalents', { type: Equivalents }),
    impacts: t.expose('impacts', {
      type: CriteriaRef,
      description:
        "Net savings in GWP (total = net_savings_kg), ADPe (kg Sb eq) and PE (MJ) by phase: production = the new device's production avoided minus cleaning, testing, parts, packaging and swaps; transport = its transport avoided minus the refurbishment logistics; use = the extra electricity in the country of reuse (negative); end of life 0",
    }),
    assumptions: t.exposeStringList('assumptions'),
    methodology: t.expose('methodology', { type: MethodologyRef }),
    calculated_at: t.expose('calculated_at', CALCULATED_AT),
    calculation_id: t.exposeID('calculation_id', CALCULATION_ID),
  }),
});

builder.queryFields((t) => ({
  footprint: t.field({
    type: FootprintResult,
    description: 'Lifecycle footprint of one device in a country of use. Cache-Control: public, max-age=86400.',
    authScopes: PUBLIC,
    extensions: {
      rest: {
        method: 'GET',
        path: '/footprint',
        summary: 'Lifecycle footprint of one product',
        tags: ['Footprint'],
        // The same inputs give the same calculation of one organisation (content-addressed).
        fastPath: 'per-organisation',
      },
    },
    args: deviceArgs,
    resolve: async (_root, args, { services, caller }) => {
      const at = new Date();
      const result = await services.footprint.footprint(args, caller);
      cacheCalculation();
      // Holds while the grid factor's vintage does, when its calculation was stored (or is not stored for this caller).
      const stored = result.calculation_id !== null || caller.kind !== 'key' || !caller.orgContext;
      rememberAnswer(args, { until: stored ? vintageChoiceHoldsUntil(at) : 0 });
      return result;
    },
  }),
  savings: t.field({
    type: SavingsResult,
    description: 'CO2 avoided by extending a device’s life by remaining_years (default 2).',
    authScopes: PUBLIC,
    extensions: { rest: { method: 'GET', path: '/savings', summary: 'Savings of extending the life of a device', tags: ['Footprint'] } },
    args: { ...deviceArgs, remaining_years: t.arg.float(REMAINING_YEARS) },
    resolve: async (_root, args, { services, caller }) => {
      const result = await services.footprint.savings(args, caller);
      cacheCalculation();
      return result;
    },
  }),
  refurbishment: t.field({
    type: RefurbishmentResult,
    description:
      'Refurbishment impact: grade A (Like New), B (Good) or C (Fair) overhead, component swaps ' +
      '(comma-separated tokens battery:<wh>, storage:<gb>:<type>, ram:<total GB>:<modules>, display:<inches>:<screen_type>, keyboard_trackpad), ' +
      'use phase in reuse_country, net savings, break-even and a production heatmap.',
    authScopes: PUBLIC,
    extensions: {
      rest: { method: 'GET', path: '/refurbishment', summary: 'Footprint of a refurbished device against a new one', tags: ['Footprint'] },
    },
    args: {
      ...deviceArgs,
      grade: t.arg({ type: Grade, required: true }),
      remaining_years: t.arg.float(REMAINING_YEARS),
      reuse_country: t.arg.string({ description: 'Country of reuse (default: country)', ...maxChars(TEXT_LIMITS.country) }),
      swaps: t.arg.string({ description: 'Comma-separated swap tokens', ...maxChars(TEXT_LIMITS.swaps) }),
    },
    resolve: async (_root, args, { services, caller }) => {
      const result = await services.footprint.refurbishment(args, caller);
      cacheCalculation();
      return result;
    },
  }),
}));

builder.mutationField('footprintBatch', (t) =>
  t.field({
    type: BatchResult,
    description: `Footprints of up to ${MAX_BATCH} products, each calculated independently; a failing item becomes {error, index}, over REST also an item with a wrongly typed, unknown or over-long field or that is no object. Counts as one request against quotas.`,
    authScopes: PUBLIC,
    extensions: {
      rest: {
        method: 'POST',
        path: '/footprint/batch',
        summary: 'Footprints of up to 100 products',
        tags: ['Footprint'],
        idempotent: true,
        perItemArgument: 'products',
      },
    },
    args: { products: t.arg({ type: [BatchItemInput], required: true, ...checkedBy(itemCount(1, MAX_BATCH)) }) },
    resolve: async (_root, { products }, { services, caller }) => {
      const refused = refusedItems();
      const results = await Promise.all(
        products.map(async (item, index) => {
          const problems = refused.get(index);
          if (problems !== undefined) return { error: describeProblems(problems), index };
          return services.footprint.footprint(item, caller).catch((error: unknown) => {
            if (!(error instanceof ApiError) || error.status !== 400) throw error;
            return { error: error.details, index };
          });
        }),
      );
      return { total: products.length, successful: results.filter((r) => !('error' in r)).length, results };
    },
  }),
);
