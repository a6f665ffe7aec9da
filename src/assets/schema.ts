import { decodeBase64, decodeCursorChunk, type ArgBuilder } from '@pothos/core';
import { formatPrismaCursor, queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../graphql/builder.ts';
import { maxChars, TEXT_LIMITS } from '../validation/text.ts';
import { ApiError, invalidFields, invalidParameter, type FieldProblem } from '../errors/api-error.ts';
import { keyCaller } from '../auth/access.ts';
import { closestRegionCodes, normaliseRegionCode } from '../reference/grid-data.ts';
import { rankClosest } from '../reference/suggest.ts';
import { CATEGORIES, getCategory } from '../footprint/engine/categories.ts';
import { RELEASE_YEAR_MIN } from '../footprint/engine/brand.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import type { Prisma } from '../db/database.ts';
import { FactorType } from '../factors/schema.ts';
import { StatedIntervalRef } from '../footprint/schema.ts';
import { CriteriaRef } from '../footprint/impacts-schema.ts';
import { ASSET_STATUSES, type AssetStatus as AssetStatusValue } from './status.ts';
import { assumptionsOf, boundaryOf, impactsOf, methodologyCard, type MethodologyCard } from './provenance.ts';
import { checkRowCount, parseAssetCsv, MAX_IMPORT_ROWS, NUMERIC_SPEC_COLUMNS, TEXT_SPEC_COLUMNS } from './import-rows.ts';
import { bounds } from '../rest/openapi.ts';
import { openApi } from '../rest/openapi-schemas.ts';
import { refusedItems } from '../rest/item-refusals.ts';
import { importAssets, type ImportedAsset, type ImportOutcome, type ImportRowError } from './import.ts';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const AssetStatus = builder.enumType('AssetStatus', {
  description: 'Lifecycle status of an asset in the inventory (docs/assets.md).',
  values: Object.fromEntries(Object.entries(ASSET_STATUSES).map(([value, description]) => [value, { description }])) as {
    [K in AssetStatusValue]: { description: string };
  },
});

const CalculationKind = builder.enumType('CalculationKind', {
  values: {
    footprint: { description: 'Lifecycle footprint of a device' },
    savings: { description: 'Reuse savings' },
    refurbishment: { description: 'Refurbishment impact' },
  } as const,
});

builder.prismaObject('Product', {
  description: 'A device of the catalogue (built-in, or learnt from the external catalogue) that assets and calculations are matched to.',
  fields: (t) => ({
    id: t.exposeID('id'),
    brand: t.exposeString('brand'),
    mpn: t.exposeString('mpn', { description: 'Manufacturer part number' }),
    name: t.exposeString('name'),
    category: t.exposeString('category'),
    release_year: t.exposeInt('release_year', { nullable: true }),
  }),
});

const MethodologyCardRef = builder.objectRef<MethodologyCard>('MethodologyCard').implement({
  description: 'How a stored calculation was made, as recorded with it. Parts the record does not carry are null.',
  fields: (t) => ({
    standard: t.exposeString('standard', { nullable: true }),
    engine_version: t.exposeString('engine_version'),
    confidence: t.exposeString('confidence', {
      description: 'manufacturer_verified, estimated_high, estimated_medium or estimated_low',
      ...openApi({ values: 'Confidence' }),
    }),
    uncertainty_pct: t.exposeFloat('uncertainty_pct', {
      nullable: true,
      description:
        'u of the ~80% interval of the lifecycle total, percent: total / (1 + u) to total x (1 + u) (see interval), not total +/- u',
    }),
    interval: t.expose('interval', {
      type: StatedIntervalRef,
      nullable: true,
      description:
        "The ~80% interval of the calculation's total_kg_co2e (the device's lifecycle total, whatever the kind), from the recorded uncertainty_pct; null when the record has none",
    }),
    data_sources: t.exposeStringList('data_sources', {
      nullable: true,
      description: 'Catalogue or estimate, and the factor vintages used',
    }),
    lifetime_years: t.exposeFloat('lifetime_years', { nullable: true }),
    annual_kwh: t.exposeFloat('annual_kwh', { nullable: true }),
    grid_factor_kg_per_kwh: t.exposeFloat('grid_factor_kg_per_kwh', { nullable: true }),
  }),
});

const RESULT = { select: { result: true, engine_version: true, confidence: true, country: true, total_kg_co2e: true } } as const;

builder.prismaObject('Calculation', {
  description:
    'A stored calculation: its inputs were matched and calculated by the engine version shown; its figures do not change afterwards.',
  fields: (t) => ({
    id: t.exposeID('id'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    kind: t.expose('kind', { type: CalculationKind }),
    engine_version: t.exposeString('engine_version'),
    country: t.exposeString('country', { description: 'Region of use (grid)' }),
    category: t.exposeString('category'),
    confidence: t.exposeString('confidence', {
      description: 'manufacturer_verified, estimated_high, estimated_medium or estimated_low',
      ...openApi({ values: 'Confidence' }),
    }),
    total_kg_co2e: t.exposeFloat('total_kg_co2e', { description: 'Lifecycle total, kg CO2e' }),
    production_kg: t.exposeFloat('production_kg'),
    transport_kg: t.exposeFloat('transport_kg'),
    use_phase_kg: t.exposeFloat('use_phase_kg'),
    end_of_life_kg: t.exposeFloat('end_of_life_kg'),
    product: t.relation('product', { nullable: true }),
    emission_factor: t.relation('grid_factor', {
      nullable: true,
      description:
        'The emission factor this calculation used, by type: GRID is the grid factor of the country of use (the vintage stored with the calculation). Null when the record has none.',
      args: { type: t.arg({ type: FactorType, required: true, defaultValue: 'GRID' }) },
    }),
    methodology_card: t.field({
      type: MethodologyCardRef,
      nullable: true,
      ...RESULT,
      resolve: (calc) => methodologyCard(calc),
    }),
    boundary: t.stringList({
      nullable: true,
      description: 'Life-cycle stages the total covers (cradle to grave for a footprint); null when the record does not say',
      ...RESULT,
      resolve: (calc) => boundaryOf(calc),
    }),
    assumptions: t.stringList({
      nullable: true,
      description: 'Assumptions the engine reported with this result; null when the record does not carry them',
      ...RESULT,
      resolve: (calc) => assumptionsOf(calc),
    }),
    impacts: t.field({
      type: CriteriaRef,
      nullable: true,
      description:
        'GWP (kg CO2e), ADPe (kg Sb eq) and PE (MJ) by phase with their uncertainty and sources, as stored with the calculation ' +
        '(a footprint: its lifecycle figures; savings and refurbishment: the avoided amounts). Null for a calculation stored before ADPe and PE were.',
      ...RESULT,
      resolve: (calc) => impactsOf(calc),
    }),
  }),
});

const AssetRef = builder.prismaObject('Asset', {
  description:
    "An item of the organisation's hardware inventory. total_kg_co2e, production_kg and use_phase_kg are the figures of its active (current) calculation.",
  fields: (t) => ({
    id: t.exposeID('id'),
    brand: t.exposeString('brand'),
    mpn: t.exposeString('mpn', { nullable: true, description: 'Manufacturer part number as imported' }),
    model: t.exposeString('model', { nullable: true, description: 'Model name as imported' }),
    serial_number: t.exposeString('serial_number', { nullable: true }),
    category: t.exposeString('category'),
    status: t.expose('status', { type: AssetStatus }),
    purchase_date: t.expose('purchase_date', { type: 'Date', nullable: true }),
    country: t.exposeString('country', { description: 'Region of use (ISO 3166-1 alpha-2 or ISO 3166-2)' }),
    specs: t.expose('specs', {
      type: 'JSON',
      description: 'Spec fields supplied for this asset (spec 2.1 names), overriding catalogue values, and the release_year stated for it',
      // The columns an import takes (AssetSpecs), each only where supplied.
      ...openApi({
        schema: {
          type: 'object',
          properties: Object.fromEntries([
            ...NUMERIC_SPEC_COLUMNS.map((column) => [column, { type: 'number' }]),
            ...TEXT_SPEC_COLUMNS.map((column) => [column, { type: 'string' }]),
          ]),
        },
      }),
    }),
    total_kg_co2e: t.exposeFloat('total_kg_co2e', { nullable: true, description: 'Current lifecycle total, kg CO2e (active calculation)' }),
    production_kg: t.exposeFloat('production_kg', { nullable: true }),
    use_phase_kg: t.exposeFloat('use_phase_kg', { nullable: true }),
    adpe_kg_sb_eq: t.exposeFloat('adpe_kg_sb_eq', {
      nullable: true,
      description:
        'Current whole-life abiotic depletion of elements (ADPe), kg Sb eq, of the active calculation; null when it was stored before ADPe and PE (its impacts has them by phase)',
    }),
    pe_mj: t.exposeFloat('pe_mj', {
      nullable: true,
      description: 'Current whole-life primary energy (PE), MJ, of the active calculation; null when it was stored before ADPe and PE',
    }),
    source: t.exposeString('source', { description: 'How the asset came in: import:json, import:csv, seed-demo, api, …' }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
    product: t.relation('product', {
      nullable: true,
      description: 'The catalogue product the asset was matched to; null for an estimate without a catalogue match',
    }),
    active_calculation: t.relation('active_calculation', { nullable: true, description: 'The calculation behind the current figures' }),
  }),
});

const TAGS = ['Assets'];

builder.queryField('asset', (t) =>
  t.prismaField({
    type: 'Asset',
    nullable: true,
    description:
      "An asset of the caller's organisation by id, with its product and active calculation; null when there is none (assets of other organisations are not visible). " +
      "Over REST (GET /v1/assets/{id}) none is 404 NOT_FOUND, the same for an unknown id and for another organisation's.",
    authScopes: { organisation: true },
    extensions: {
      rest: { method: 'GET', path: '/assets/:id', summary: 'An asset with its active calculation', tags: TAGS, nullIsNotFound: 'Asset' },
    },
    args: { id: t.arg.id({ required: true, description: 'The asset id (UUID)', ...maxChars(TEXT_LIMITS.id) }) },
    resolve: (query, _root, { id }, { prisma }) => {
      if (!UUID.test(String(id))) throw invalidParameter('id', `must be an asset id (UUID), got '${id}'`);
      return prisma.asset.findUnique({ ...query, where: { id: String(id) } });
    },
  }),
);

export function pageSize(args: { first?: number | null; last?: number | null }): number {
  for (const name of ['first', 'last'] as const) {
    const n = args[name];
    if (n != null && n > MAX_PAGE_SIZE) {
      throw new ApiError(
        400,
        'PAGE_SIZE_TOO_LARGE',
        `Invalid parameter '${name}'`,
        `${name}: at most ${MAX_PAGE_SIZE} assets per page, got ${n}; page on with the after cursor`,
      );
    }
    // An empty page would have no cursor to page on from, yet more assets after it: refused rather than answered inconsistently.
    if (n != null && n < 1)
      throw invalidParameter(name, `must be between 1 and ${MAX_PAGE_SIZE}, got ${n} (totalCount is answered with any page)`);
  }
  return MAX_PAGE_SIZE;
}

type CursorArgs = { after?: string | null; before?: string | null };

/** Longer than any cursor handed out (an asset id encodes to 56 characters). */
const MAX_CURSOR_LENGTH = 100;

/**
 * Foreign, unknown and malformed cursors all get this one answer, naming the argument and where its
 * cursors come from: a cursor never tells whether an asset exists.
 */
const invalidCursor = (name: string, source: string) =>
  new ApiError(400, 'INVALID_CURSOR', `Invalid parameter '${name}'`, `${name}: not a cursor of this ${source}`);

const connectionCursor = (args: CursorArgs) => {
  const name = args.before != null ? 'before' : 'after';
  return { cursor: args[name], refusal: () => invalidCursor(name, 'connection (use pageInfo.endCursor or edges.cursor)') };
};

/**
 * The asset id a cursor stands for (Pothos Prisma's cursor of the id, the same for the connection and
 * assetPage), checked in form before anything else decodes it: Pothos's own error would be a 500 echoing the input.
 */
function cursorAssetId(cursor: string, refusal: () => ApiError): string {
  let id: unknown;
  try {
    const decoded = cursor.length <= MAX_CURSOR_LENGTH ? decodeBase64(cursor) : '';
    if (decoded.startsWith('GPC:')) id = decodeCursorChunk(decoded.slice(4));
  } catch {
    // not base64 or not a cursor chunk: refused below
  }
  if (typeof id !== 'string' || !UUID.test(id)) throw refusal();
  return id;
}

export interface AssetFilter {
  status?: readonly AssetStatusValue[] | null;
  category?: string | null;
  country?: string | null;
  purchase_date_from?: Date | null;
  purchase_date_to?: Date | null;
}

/**
 * Prisma filter of the inventory's pages (organisation scoping is added by ctx.prisma). A category or
 * region the service does not know can match no asset: it is refused, naming the closest, as the
 * footprint routes refuse it.
 */
export function assetWhere(filter: AssetFilter): Prisma.AssetWhereInput {
  const where: Prisma.AssetWhereInput = {};
  const problems: FieldProblem[] = [];
  if (filter.status?.length) where.status = { in: [...filter.status] };
  const category = filter.category?.trim();
  if (category && getCategory(category.toLowerCase())) where.category = category.toLowerCase();
  else if (category) {
    const closest = rankClosest(
      category,
      CATEGORIES.map((c) => c.id),
      3,
    );
    problems.push({
      field: 'category',
      reason: `unknown category '${category}'; closest: ${closest.join(', ')} (GET /v1/reference/categories lists all)`,
    });
  }
  const country = filter.country?.trim();
  const region = country && normaliseRegionCode(country);
  if (region) where.country = region;
  else if (country)
    problems.push({
      field: 'country',
      reason: `unknown region code '${country}'; closest valid codes: ${closestRegionCodes(country, 3).join(', ')}`,
    });
  const { purchase_date_from: from, purchase_date_to: to } = filter;
  if (from && to && from > to) problems.push({ field: 'purchase_date_from', reason: 'must not be after purchase_date_to' });
  if (problems.length) throw invalidFields(problems);
  if (from || to) where.purchase_date = { ...(from ? { gte: from } : {}), ...(to ? { lte: to } : {}) };
  return where;
}

/**
 * The inventory's one read of a page, for the connection and assetPage alike: the caller's assets in id
 * order, positioned by `page` (Prisma's cursor, take and skip, with the selection). Prisma positions a
 * cursor by its row wherever it is: only a row of the caller's own scope may be one.
 */
async function findAssets<Page extends { cursor?: { id: string } }>(
  prisma: GraphQLContext['prisma'],
  page: Page,
  where: Prisma.AssetWhereInput,
  refusal: () => ApiError,
) {
  if (page.cursor && !(await prisma.asset.findUnique({ where: { id: page.cursor.id }, select: { id: true } }))) throw refusal();
  return prisma.asset.findMany({ ...(page as Omit<Prisma.AssetFindManyArgs, 'where' | 'orderBy'>), where, orderBy: { id: 'asc' } });
}

/** The filters the connection and assetPage share (status differs: a list in GraphQL, one value over REST). */
const filterArgs = (arg: ArgBuilder<typeof builder.$inferSchemaTypes>) => ({
  category: arg.string({ description: 'Device category, e.g. laptop (GET /v1/reference/categories)', ...maxChars(TEXT_LIMITS.category) }),
  country: arg.string({ description: 'Region of use, e.g. DE or US-CA (any case)', ...maxChars(TEXT_LIMITS.country) }),
  purchase_date_from: arg({ type: 'Date', description: 'Purchased on or after this date' }),
  purchase_date_to: arg({ type: 'Date', description: 'Purchased on or before this date' }),
});

const PAGE_SIZE = { default: DEFAULT_PAGE_SIZE, max: MAX_PAGE_SIZE };

builder.queryField('assets', (t) =>
  t.prismaConnection(
    {
      type: 'Asset',
      cursor: 'id',
      defaultSize: DEFAULT_PAGE_SIZE,
      extensions: { pageSize: PAGE_SIZE },
      // Pothos calls maxSize before it decodes the cursor: the one hook that sees the raw cursor first.
      maxSize: (args: CursorArgs & { first?: number | null; last?: number | null }) => {
        const { cursor, refusal } = connectionCursor(args);
        if (cursor != null) cursorAssetId(cursor, refusal);
        return pageSize(args);
      },
      description:
        `Assets of the caller's organisation, ${DEFAULT_PAGE_SIZE} per page by default and at most ${MAX_PAGE_SIZE} ` +
        '(a larger first is a PAGE_SIZE_TOO_LARGE error, first or last below 1 an INVALID_PARAMETER error), in a stable order (by id). Page on with after = pageInfo.endCursor; cursors are opaque. ' +
        'Filters combine with AND; purchase dates are inclusive. REST clients read the same pages as assetPage (GET /v1/assets).',
      args: {
        status: t.arg({ type: [AssetStatus], description: 'Any of these statuses' }),
        ...filterArgs(t.arg),
      },
      authScopes: { organisation: true },
      totalCount: (_parent, args, { prisma }) => prisma.asset.count({ where: assetWhere(args) }),
      resolve: (query, _root, args, { prisma }) =>
        findAssets(prisma, query as { cursor?: { id: string } }, assetWhere(args), connectionCursor(args).refusal),
    },
    { name: 'AssetConnection', description: 'A page of assets.' },
    { name: 'AssetEdge' },
  ),
);

interface AssetPageShape {
  total: number;
  limit: number;
  next_cursor: string | null;
  assets: Prisma.AssetGetPayload<object>[];
}

const AssetPageRef = builder.objectRef<AssetPageShape>('AssetPage').implement({
  description: 'A page of assets in a stable order (by id). Page on with cursor = next_cursor until it is null.',
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Assets matching the filters (on every page)' }),
    limit: t.exposeInt('limit', { description: 'The page size asked for' }),
    next_cursor: t.exposeString('next_cursor', {
      nullable: true,
      description: 'Opaque: the cursor of the next page, null on the last page',
    }),
    assets: t.field({ type: [AssetRef], description: 'The assets of this page', resolve: (page) => page.assets }),
  }),
});

builder.queryField('assetPage', (t) =>
  t.field({
    type: AssetPageRef,
    description:
      `Assets of the caller's organisation, a page at a time: ${DEFAULT_PAGE_SIZE} per page by default and at most ${MAX_PAGE_SIZE}, ` +
      'each with its product and active calculation, in a stable order (by id); the same pages as the assets connection. ' +
      'Page on with cursor = next_cursor (opaque) until it is null. Filters combine with AND; purchase dates are inclusive.',
    authScopes: { organisation: true },
    extensions: { rest: { method: 'GET', path: '/assets', summary: 'List your inventory', tags: TAGS }, pageSize: PAGE_SIZE },
    args: {
      status: t.arg({ type: AssetStatus, description: 'Only assets with this status' }),
      ...filterArgs(t.arg),
      limit: t.arg.int({ description: `Page size, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})` }),
      cursor: t.arg.string({ description: 'next_cursor of the previous page; none for the first page', ...maxChars(MAX_CURSOR_LENGTH) }),
    },
    resolve: async (_root, { status, cursor, limit: given, ...filter }, context, info) => {
      const limit = given ?? DEFAULT_PAGE_SIZE;
      if (limit < 1 || limit > MAX_PAGE_SIZE)
        throw invalidParameter('limit', `must be an integer from 1 to ${MAX_PAGE_SIZE}, got ${limit}`);
      const refusal = () => invalidCursor('cursor', 'list (use next_cursor)');
      const after = cursor == null ? undefined : cursorAssetId(cursor, refusal);
      const where = assetWhere({ ...filter, status: status == null ? null : [status] });
      // One more row than the page tells whether another page follows; the selection loads products and calculations with the rows.
      const page = {
        ...queryFromInfo({ context, info, path: ['assets'] }),
        take: limit + 1,
        ...(after ? { cursor: { id: after }, skip: 1 } : {}),
      };
      // The count in the resolver, not in a field of its own: the answer keeps the fields in their declared order.
      const [rows, total] = await Promise.all([findAssets(context.prisma, page, where, refusal), context.prisma.asset.count({ where })]);
      const assets = rows.slice(0, limit);
      const last = assets.at(-1);
      return { total, limit, next_cursor: rows.length > limit && last ? formatPrismaCursor(last, 'id') : null, assets };
    },
  }),
);

// ------------------------------------------------------------------------------------- import

const AssetInput = builder.inputType('AssetInput', {
  description:
    'One asset to import. Fields are checked per item: a bad item is reported with its index and the others are imported. ' +
    'status is one of in_stock, in_use (default), in_repair, refurbished, resold, recycled, disposed.',
  fields: (t) => ({
    // Required, though nullable: a missing one is that item's error (src/assets/import-rows.ts, import.ts), not the request's.
    brand: t.string({ description: 'Manufacturer (required)', ...openApi({ required: true }, maxChars(TEXT_LIMITS.brand)) }),
    mpn: t.string({ description: 'Manufacturer part number (mpn or model is required)', ...maxChars(TEXT_LIMITS.mpn) }),
    model: t.string({ description: 'Model name, alternative to mpn', ...maxChars(TEXT_LIMITS.model) }),
    serial_number: t.string({
      description: 'Required; a re-import of the same serial number updates the asset',
      ...openApi({ required: true }, maxChars(TEXT_LIMITS.serialNumber)),
    }),
    category: t.string({
      description: 'Device category (default: the catalogue category, else laptop)',
      ...maxChars(TEXT_LIMITS.category),
    }),
    purchase_date: t.string({
      description:
        "YYYY-MM-DD. Without a release_year, the catalogue's or a model number's, its year is the estimated release year (methodology.data_sources says so; the interval stays the one measured without a year)",
      ...maxChars(TEXT_LIMITS.shortCode),
    }),
    country: t.string({
      description: 'Region of use (required): ISO 3166-1 alpha-2 or ISO 3166-2',
      ...openApi({ required: true }, maxChars(TEXT_LIMITS.country)),
    }),
    // Closed lists, taken in any case (the document states their values): checked per item, so no GraphQL enum.
    status: t.string({
      description: 'Asset status (default in_use)',
      ...openApi({ values: 'AssetStatus' }, maxChars(TEXT_LIMITS.shortCode)),
    }),
    weight_kg: t.float(),
    tdp: t.float({ description: 'Processor TDP, watts' }),
    ram_gb: t.float(),
    battery_wh: t.float(),
    screen_size_inch: t.float(),
    screen_type: t.string({
      description: 'lcd, oled, ips, tn, va or mini_led',
      ...openApi({ values: 'ScreenType' }, maxChars(TEXT_LIMITS.shortCode)),
    }),
    storage_gb: t.float(),
    storage_type: t.string({
      description: 'ssd, hdd, emmc or nvme',
      ...openApi({ values: 'StorageType' }, maxChars(TEXT_LIMITS.shortCode)),
    }),
    release_year: t.int({
      description:
        "The unit's release (model) year, 1990 to next year; wins over the catalogue's. Without it, a purchase_date gives an estimated year when nothing else dates the model (docs/methodology.md section 3.4). Kept in specs",
      ...bounds({ minimum: RELEASE_YEAR_MIN }),
    }),
  }),
});

const ImportErrorRef = builder.objectRef<ImportRowError>('AssetImportError').implement({
  description: 'A problem with one field of one imported item; the item was not imported.',
  fields: (t) => ({
    index: t.exposeInt('index', { nullable: true, description: 'JSON imports: 0-based position in the assets array' }),
    row: t.exposeInt('row', {
      nullable: true,
      description: 'CSV imports: 1-based data row (the header is not counted; empty lines are skipped)',
    }),
    serial_number: t.exposeString('serial_number', { nullable: true }),
    field: t.exposeString('field'),
    reason: t.exposeString('reason'),
  }),
});

const ImportAction = builder.enumType('AssetImportAction', { values: ['created', 'updated'] as const });

const ImportedAssetRef = builder.objectRef<ImportedAsset>('ImportedAsset').implement({
  fields: (t) => ({
    index: t.exposeInt('index', { nullable: true }),
    row: t.exposeInt('row', { nullable: true }),
    id: t.exposeID('id'),
    serial_number: t.exposeString('serial_number'),
    action: t.expose('action', { type: ImportAction }),
    calculation_id: t.exposeID('calculation_id', { description: 'The new active calculation of the asset' }),
    total_kg_co2e: t.exposeFloat('total_kg_co2e'),
  }),
});

const ImportResult = builder.objectRef<ImportOutcome>('AssetImportResult').implement({
  description: 'Outcome of an import: good items are imported, bad ones reported. Recorded as an asset_imports row (import_id).',
  fields: (t) => ({
    import_id: t.exposeID('import_id'),
    source: t.exposeString('source', { description: 'json or csv' }),
    total_rows: t.exposeInt('total_rows'),
    created: t.exposeInt('created'),
    updated: t.exposeInt('updated', { description: 'Existing assets (same serial number) updated' }),
    failed: t.exposeInt('failed', { description: 'Items not imported; see errors' }),
    errors: t.expose('errors', { type: [ImportErrorRef] }),
    assets: t.expose('assets', { type: [ImportedAssetRef] }),
  }),
});

builder.mutationFields((t) => ({
  importAssets: t.field({
    type: ImportResult,
    description:
      `Imports up to ${MAX_IMPORT_ROWS} assets: each is matched to a product and calculated through the lookup chain, and the calculation ` +
      'becomes its active calculation. A serial number already in the inventory updates that asset. Bad items are reported with their index; good ones are kept ' +
      '(over REST also an item with a wrongly typed, unknown or over-long field or that is no object).',
    authScopes: { organisation: true, writes: true },
    extensions: {
      rest: { method: 'POST', path: '/assets', summary: 'Import assets', tags: TAGS, perItemArgument: 'assets', idempotent: true },
    },
    args: { assets: t.arg({ type: [AssetInput], required: true, ...bounds({ minItems: 1, maxItems: MAX_IMPORT_ROWS }) }) },
    resolve: async (_root, { assets }, { prisma, services, caller }) => {
      const key = keyCaller(caller);
      checkRowCount(assets.length, 'assets');
      return importAssets({ prisma, services, caller: key }, assets, 'json', refusedItems());
    },
  }),
  importAssetsCsv: t.field({
    type: ImportResult,
    description:
      `Imports assets from CSV text (header row, then up to ${MAX_IMPORT_ROWS} rows): columns brand, mpn and/or model, serial_number, country, ` +
      'optional category, purchase_date, status, release_year and the specs weight_kg, tdp, ram_gb, battery_wh, screen_size_inch, screen_type, storage_gb, storage_type. ' +
      'Same semantics as importAssets; errors name the 1-based data row.',
    authScopes: { organisation: true, writes: true },
    extensions: { rest: { method: 'POST', path: '/assets/csv', summary: 'Import assets from CSV', tags: TAGS, idempotent: true } },
    args: {
      csv: t.arg.string({ required: true, description: 'The CSV file content (UTF-8)', ...maxChars(TEXT_LIMITS.csv, { multiline: true }) }),
    },
    resolve: async (_root, { csv }, { prisma, services, caller }) => {
      const key = keyCaller(caller);
      return importAssets({ prisma, services, caller: key }, parseAssetCsv(csv), 'csv');
    },
  }),
}));
