import { builder } from '../graphql/builder.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { ErasureItemStatus, ErasureSyncStatus } from '../generated/prisma/enums.ts';
import type { ErasureConnection, ErasureSyncRun } from '../generated/prisma/client.ts';
import { PLAN_RULES } from '../auth/plan-rules.ts';
import { keyCaller, type Access } from '../auth/access.ts';
import { invalidParameter } from '../errors/api-error.ts';
import { maxChars, TEXT_LIMITS } from '../validation/text.ts';
import { openApi } from '../rest/openapi-schemas.ts';
import { API_KEY_LENGTH, DEFAULT_COUNTRY, deleteConnection, saveConnection, showConnection, type ErasureContext } from './connection.ts';
import { SYNC_LIMIT_MAX, syncErasureReports, type SyncItem, type SyncResult } from './sync.ts';

// Erasure-report sync with the Blancco Management Portal (spec 2.9, 4.4; docs/erasure-sync.md): the
// connection (the key is stored encrypted and never shown), the sync and its run records.

const TAGS = ['Erasure-report integration'];
const RUN_PAGE = { default: 20, max: 100 } as const;
const URL_MAX = 500;
/** What a sync may meet at the portal, for the OpenAPI document (codes: docs/errors.md). */
const ERASURE_CONSOLE_ERRORS = {
  409: 'No usable connection: none configured, or its key no longer opens or is refused by the portal',
  502: 'The portal answered wrongly, not at all or not in time',
  503: 'The portal is unavailable or limits the rate of calls; retry after Retry-After seconds',
} as const;

const ERASURE_SYNC_MIN_PLAN = PLAN_RULES.erasureSync.minimum;
const READ: Access = { organisation: true, plan: 'erasureSync' };
const WRITE: Access = { ...READ, writes: true };

function erasureContext(ctx: GraphQLContext): ErasureContext {
  return { prisma: ctx.prisma, caller: keyCaller(ctx.caller), services: ctx.services };
}

const ErasureItemStatusEnum = builder.enumType('ErasureItemStatus', { values: Object.values(ErasureItemStatus) });
const ErasureSyncStatusEnum = builder.enumType('ErasureSyncStatus', { values: Object.values(ErasureSyncStatus) });

const ErasureConnectionRef = builder.objectRef<ErasureConnection>('ErasureConnection').implement({
  description:
    "Your organisation's Blancco Management Portal connection. The API key is stored encrypted and never returned; api_key_hint shows its last four characters.",
  fields: (t) => ({
    provider: t.exposeString('provider'),
    base_url: t.exposeString('base_url', { description: "The portal's regional API base, e.g. https://api.eu-west-1.blancco.cloud" }),
    api_key_hint: t.string({ description: 'Last four characters of the stored key', resolve: (c) => `…${c.api_key_hint}` }),
    default_country: t.exposeString('default_country', { description: 'Country of use for footprints when a sync names none' }),
    created_at: t.field({ type: 'DateTime', resolve: (c) => c.created_at }),
    updated_at: t.field({ type: 'DateTime', resolve: (c) => c.updated_at }),
    last_synced_at: t.field({ type: 'DateTime', nullable: true, resolve: (c) => c.last_synced_at }),
  }),
});

const ErasureSyncItemRef = builder.objectRef<SyncItem>('ErasureSyncItem').implement({
  description:
    'One erasure report of a sync: synced (asset created or updated with a footprint), skipped (already synced earlier) or error (with the reason).',
  fields: (t) => ({
    uuid: t.string({
      nullable: true,
      description: "The report's document id; null only for a report without one (an error)",
      resolve: (i) => i.uuid,
    }),
    status: t.field({ type: ErasureItemStatusEnum, resolve: (i) => i.status }),
    brand: t.string({ nullable: true, resolve: (i) => i.brand }),
    model: t.string({ nullable: true, resolve: (i) => i.model }),
    serial_number: t.string({ nullable: true, resolve: (i) => i.serial_number }),
    category: t.string({
      nullable: true,
      description: 'Service category from the chassis type (null: unknown, the engine default applies)',
      resolve: (i) => i.category,
    }),
    asset_id: t.string({ nullable: true, description: 'The asset created or updated (synced items)', resolve: (i) => i.asset_id }),
    calculation_id: t.string({
      nullable: true,
      description: 'Its new active calculation (synced items)',
      resolve: (i) => i.calculation_id,
    }),
    total_kg_co2e: t.float({ nullable: true, resolve: (i) => i.total_kg_co2e }),
    error: t.string({ nullable: true, description: 'Why the report could not be synced (error items)', resolve: (i) => i.error }),
  }),
});

const ErasureSyncResultRef = builder.objectRef<SyncResult>('ErasureSyncResult').implement({
  description: `The outcome of one sync (spec 2.9). A sync handles at most ${SYNC_LIMIT_MAX} reports; when has_more is true, POST again with {"continuation": <continuation>} for the next batch.`,
  fields: (t) => ({
    synced: t.exposeInt('synced', { description: 'Reports processed into assets' }),
    skipped: t.exposeInt('skipped', { description: 'Reports already synced before' }),
    errors: t.exposeInt('errors', { description: 'Reports that failed (tried again by the next sync)' }),
    details: t.field({ type: [ErasureSyncItemRef], resolve: (r) => r.details }),
    has_more: t.exposeBoolean('has_more', { description: 'The portal has more reports for these filters than this sync took' }),
    continuation: t.string({
      nullable: true,
      description: 'Pass as `continuation` to take the next batch (null when has_more is false)',
      resolve: (r) => r.continuation,
    }),
    sync_run_id: t.exposeString('sync_run_id'),
  }),
});

const ErasureSyncRunRef = builder.objectRef<ErasureSyncRun>('ErasureSyncRun').implement({
  description: 'The record of one sync: when it ran, what it found, how it ended.',
  fields: (t) => ({
    id: t.exposeString('id'),
    status: t.field({ type: ErasureSyncStatusEnum, resolve: (r) => r.status }),
    params: t.field({
      type: 'JSON',
      description: 'onlySuccessful, sinceDate, country',
      resolve: (r) => r.params,
      // The run's SyncParams (src/erasure/sync.ts), stored with every field.
      ...openApi({
        schema: {
          type: 'object',
          required: ['onlySuccessful', 'sinceDate', 'country'],
          properties: {
            onlySuccessful: { type: 'boolean' },
            sinceDate: { type: 'string', format: 'date', nullable: true },
            country: { type: 'string' },
          },
        },
      }),
    }),
    synced: t.exposeInt('synced'),
    skipped: t.exposeInt('skipped'),
    errors: t.exposeInt('errors'),
    has_more: t.exposeBoolean('has_more'),
    continued_from: t.string({ nullable: true, resolve: (r) => r.continued_from }),
    error_code: t.string({ nullable: true, resolve: (r) => r.error_code }),
    error_message: t.string({ nullable: true, resolve: (r) => r.error_message }),
    started_at: t.field({ type: 'DateTime', resolve: (r) => r.started_at }),
    finished_at: t.field({ type: 'DateTime', nullable: true, resolve: (r) => r.finished_at }),
  }),
});

const ErasureSyncRunPageRef = builder
  .objectRef<{ total: number; limit: number; offset: number; runs: ErasureSyncRun[] }>('ErasureSyncRunPage')
  .implement({
    fields: (t) => ({
      total: t.exposeInt('total'),
      limit: t.exposeInt('limit'),
      offset: t.exposeInt('offset'),
      runs: t.field({ type: [ErasureSyncRunRef], resolve: (p) => p.runs }),
    }),
  });

builder.queryFields((t) => ({
  erasureConnection: t.field({
    type: ErasureConnectionRef,
    description: `Your organisation's Blancco connection (404 ERASURE_CONNECTION_NOT_FOUND when none). ${ERASURE_SYNC_MIN_PLAN} plan or higher.`,
    authScopes: READ,
    extensions: {
      rest: {
        method: 'GET',
        path: '/blancco/connection',
        summary: 'Get the erasure-report connection',
        tags: TAGS,
        errors: { 404: 'No connection is configured (ERASURE_CONNECTION_NOT_FOUND)' },
      },
    },
    resolve: (_root, _args, ctx) => showConnection(erasureContext(ctx).prisma),
  }),
  erasureSyncRuns: t.field({
    type: ErasureSyncRunPageRef,
    description: `Your organisation's syncs, most recent first (${RUN_PAGE.default} per page by default, at most ${RUN_PAGE.max}).`,
    authScopes: READ,
    extensions: {
      rest: { method: 'GET', path: '/blancco/sync/runs', summary: 'List erasure-report sync runs', tags: TAGS },
      pageSize: RUN_PAGE,
    },
    args: {
      limit: t.arg.int({ description: `1 to ${RUN_PAGE.max} (default ${RUN_PAGE.default})` }),
      offset: t.arg.int({ description: 'At least 0 (default 0)' }),
    },
    resolve: async (_root, args, ctx) => {
      const { prisma } = erasureContext(ctx);
      const limit = args.limit ?? RUN_PAGE.default;
      const offset = args.offset ?? 0;
      if (!Number.isInteger(limit) || limit < 1 || limit > RUN_PAGE.max)
        throw invalidParameter('limit', `must be an integer from 1 to ${RUN_PAGE.max}, got ${limit}`);
      if (!Number.isInteger(offset) || offset < 0) throw invalidParameter('offset', `must be an integer of at least 0, got ${offset}`);
      const [total, runs] = await Promise.all([
        prisma.erasureSyncRun.count(),
        prisma.erasureSyncRun.findMany({ orderBy: [{ started_at: 'desc' }, { id: 'desc' }], take: limit, skip: offset }),
      ]);
      return { total, limit, offset, runs };
    },
  }),
}));

builder.mutationFields((t) => ({
  configureErasureConnection: t.field({
    type: ErasureConnectionRef,
    description:
      'Creates or replaces the Blancco Management Portal connection: the regional API base URL (https, public address) and an API key from the portal, ' +
      `stored AES-256-GCM encrypted and never returned. ${ERASURE_SYNC_MIN_PLAN} plan or higher.`,
    authScopes: WRITE,
    extensions: { rest: { method: 'PUT', path: '/blancco/connection', summary: 'Configure the erasure-report connection', tags: TAGS } },
    args: {
      base_url: t.arg.string({ required: true, description: 'e.g. https://api.eu-west-1.blancco.cloud', ...maxChars(URL_MAX) }),
      api_key: t.arg.string({
        required: true,
        description: `The portal API key (${API_KEY_LENGTH.min} to ${API_KEY_LENGTH.max} characters)`,
        ...maxChars(API_KEY_LENGTH.max),
      }),
      default_country: t.arg.string({
        description: `Country of use for footprints when a sync names none (default ${DEFAULT_COUNTRY})`,
        ...maxChars(TEXT_LIMITS.country),
      }),
    },
    resolve: (_root, args, ctx) => saveConnection(erasureContext(ctx), args),
  }),
  deleteErasureConnection: t.field({
    type: ErasureConnectionRef,
    description: 'Removes the connection and its stored key. Synced reports and assets stay.',
    authScopes: WRITE,
    extensions: {
      rest: {
        method: 'DELETE',
        path: '/blancco/connection',
        summary: 'Delete the erasure-report connection',
        tags: TAGS,
        errors: { 404: 'No connection is configured (ERASURE_CONNECTION_NOT_FOUND)' },
      },
    },
    resolve: (_root, _args, ctx) => deleteConnection(erasureContext(ctx)),
  }),
  syncErasureReports: t.field({
    type: ErasureSyncResultRef,
    description:
      'Fetches new erasure reports from the Blancco portal, parses the hardware of each wiped device, calculates its footprint and creates or updates the asset ' +
      `(matched by serial number). Reports already synced are skipped; one that cannot be used is an error item. At most ${SYNC_LIMIT_MAX} reports per call ` +
      '(has_more and continuation for the rest); one sync at a time per organisation (429 ERASURE_SYNC_IN_PROGRESS).',
    authScopes: WRITE,
    extensions: {
      rest: {
        method: 'POST',
        path: '/blancco/sync',
        summary: 'Sync erasure reports',
        tags: TAGS,
        idempotent: true,
        errors: ERASURE_CONSOLE_ERRORS,
      },
      pageSize: { default: SYNC_LIMIT_MAX, max: SYNC_LIMIT_MAX },
    },
    args: {
      onlySuccessful: t.arg.boolean({ description: 'Only reports whose erasure succeeded (default false)' }),
      sinceDate: t.arg.string({ description: 'Only reports dated on or after this day (YYYY-MM-DD)', ...maxChars(32) }),
      country: t.arg.string({
        description: `Country of use for the footprints (default ${DEFAULT_COUNTRY})`,
        ...maxChars(TEXT_LIMITS.country),
      }),
      limit: t.arg.int({
        description: `Most reports to take from the portal in this call, 1 to ${SYNC_LIMIT_MAX} (default ${SYNC_LIMIT_MAX})`,
      }),
      continuation: t.arg.string({
        description: 'The continuation of an earlier sync with has_more: takes its next batch with its filters',
        ...maxChars(TEXT_LIMITS.id),
      }),
    },
    resolve: (_root, args, ctx) => syncErasureReports(erasureContext(ctx), args),
  }),
}));
