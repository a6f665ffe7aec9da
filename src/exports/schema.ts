import { builder } from '../graphql/builder.ts';
import { ExportJobStatus } from '../generated/prisma/enums.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { keyCaller } from '../auth/access.ts';
import { maxChars, TEXT_LIMITS } from '../validation/text.ts';
import { EXPORT_TABLES } from './tables.ts';
import { heldIdempotencyKey } from '../idempotency/plugin.ts';
import type { ArchiveProgress, ExportManifest } from './archive.ts';
import { EXPORT_FAILURE_CODES } from './failures.ts';
import { openApi } from '../rest/openapi-schemas.ts';
import {
  EXPORT_LIST_MAX,
  cancelExportJob,
  findExportJob,
  jobLinks,
  listExportJobs,
  submitExportJob,
  visibleStatus,
  type ExportJobRow,
  type StoredScope,
} from './jobs.ts';

// Organisation exports (spec 2.11, 4.6; docs/exports.md): submit, list, read and cancel here
// (GraphQL and, through SOFA, REST); the download (302 or JSON) is a hand-written route (routes.ts).

// The database's enumeration: one list of states for storage and interface.
// Spec 2.11: relative paths. They start with /v1, so they resolve against the API's origin, not the server URL /v1.
const RELATIVE_TO_ORIGIN =
  "A path on the API's origin (starts with /v1): resolve it against the origin (https://host + path), not against the server URL /v1, which would give /v1/v1.";
const POLL_URL_DESCRIPTION = `The job (GET). ${RELATIVE_TO_ORIGIN}`;
const DOWNLOAD_URL_DESCRIPTION = `Its download (GET: 302 to a signed URL, or JSON with Accept: application/json). ${RELATIVE_TO_ORIGIN}`;

const ExportJobStatusEnum = builder.enumType('ExportJobStatus', { values: Object.values(ExportJobStatus) });

const ExportFormatEnum = builder.enumType('ExportFormat', { values: ['zip'] as const });

/** The tables of the archive, a closed list the document states as the ExportTable enum. */
const TABLE = { values: { name: 'ExportTable', values: EXPORT_TABLES, description: 'A table of the export archive' } };

const ExportScopeRef = builder.objectRef<StoredScope>('ExportScope').implement({
  description:
    'Tables in the archive: include (whitelist, default all organisation-owned tables), then exclude (blacklist applied after include).',
  fields: (t) => ({
    include: t.stringList({ resolve: (s) => s.include, ...openApi(TABLE) }),
    exclude: t.stringList({ resolve: (s) => s.exclude, ...openApi(TABLE) }),
  }),
});

const ExportManifestRef = builder.objectRef<ExportManifest>('ExportManifest').implement({
  description: 'manifest.json of the archive.',
  fields: (t) => ({
    schema_version: t.exposeString('schema_version', { description: 'Always "1.0"' }),
    generated_at: t.field({ type: 'DateTime', resolve: (m) => m.generated_at }),
    org_id: t.exposeString('org_id'),
    software_version: t.exposeString('software_version'),
    record_counts: t.field({
      type: 'JSON',
      description: 'Table name -> rows in its file',
      resolve: (m) => m.record_counts,
      ...openApi({ schema: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } } }),
    }),
    file_hashes: t.field({
      type: 'JSON',
      description: 'File name -> hex SHA-256 of its content',
      resolve: (m) => m.file_hashes,
      ...openApi({ schema: { type: 'object', additionalProperties: { type: 'string', pattern: '^[0-9a-f]{64}$' } } }),
    }),
    notes: t.exposeStringList('notes'),
  }),
});

const ExportProgressRef = builder.objectRef<ArchiveProgress>('ExportProgress').implement({
  description: 'How far a running export has got (updated about every second).',
  fields: (t) => ({
    tables_done: t.exposeInt('tables_done'),
    total_tables: t.exposeInt('total_tables'),
    rows_written: t.field({ type: 'Long', resolve: (p) => p.rows_written }),
    current_table: t.exposeString('current_table', { nullable: true, ...openApi(TABLE) }),
  }),
});

const ExportJobRef = builder.objectRef<ExportJobRow>('ExportJob').implement({
  description:
    'An organisation export (spec 2.11). States: pending -> processing -> completed | failed | cancelled; completed -> expired 72 hours after completion.',
  fields: (t) => ({
    id: t.id({ resolve: (j) => j.id }),
    job_id: t.id({ description: 'Same as id', resolve: (j) => j.id }),
    status: t.field({ type: ExportJobStatusEnum, resolve: (j) => visibleStatus(j) }),
    scope: t.field({ type: ExportScopeRef, resolve: (j) => j.scope as unknown as StoredScope }),
    format: t.field({ type: ExportFormatEnum, resolve: () => 'zip' as const }),
    total_tables: t.int({ nullable: true, resolve: (j) => j.total_tables }),
    total_rows: t.field({
      type: 'Long',
      nullable: true,
      description: 'Rows in the archive; null until completed',
      resolve: (j) => j.total_rows,
    }),
    bytes: t.field({ type: 'Long', nullable: true, description: 'Size of the ZIP; null until completed', resolve: (j) => j.bytes }),
    sha256: t.string({ nullable: true, description: 'Hex SHA-256 of the whole ZIP', resolve: (j) => j.sha256 }),
    manifest: t.field({ type: ExportManifestRef, nullable: true, resolve: (j) => j.manifest as unknown as ExportManifest | null }),
    progress: t.field({
      type: ExportProgressRef,
      nullable: true,
      description: 'While processing, and the final counts once completed',
      resolve: (j) => j.progress as unknown as ArchiveProgress | null,
    }),
    error_code: t.string({
      nullable: true,
      description: `When failed, the stage that failed: ${EXPORT_FAILURE_CODES.join(', ')}`,
      resolve: (j) => j.error_code,
      // EXPORT_FAILED: jobs that failed before the stages had codes of their own (docs/errors.md).
      ...openApi({ values: { name: 'ExportFailureCode', values: [...EXPORT_FAILURE_CODES, 'EXPORT_FAILED'] } }),
    }),
    error_message: t.string({ nullable: true, resolve: (j) => j.error_message }),
    created_at: t.field({ type: 'DateTime', resolve: (j) => j.created_at }),
    started_at: t.field({ type: 'DateTime', nullable: true, resolve: (j) => j.started_at }),
    completed_at: t.field({ type: 'DateTime', nullable: true, resolve: (j) => j.completed_at }),
    expires_at: t.field({ type: 'DateTime', nullable: true, description: '72 hours after completion', resolve: (j) => j.expires_at }),
    poll_url: t.string({ description: POLL_URL_DESCRIPTION, resolve: (j) => jobLinks(j.id).poll_url }),
    download_url: t.string({ description: DOWNLOAD_URL_DESCRIPTION, resolve: (j) => jobLinks(j.id).download_url }),
  }),
});

const ExportSubmissionRef = builder.objectRef<ExportJobRow>('ExportSubmission').implement({
  description: 'The 202 answer to a submission: poll poll_url until completed, then follow download_url.',
  fields: (t) => ({
    job_id: t.id({ resolve: (j) => j.id }),
    status: t.field({ type: ExportJobStatusEnum, resolve: (j) => visibleStatus(j) }),
    created_at: t.field({ type: 'DateTime', resolve: (j) => j.created_at }),
    poll_url: t.string({ description: POLL_URL_DESCRIPTION, resolve: (j) => jobLinks(j.id).poll_url }),
    download_url: t.string({ description: DOWNLOAD_URL_DESCRIPTION, resolve: (j) => jobLinks(j.id).download_url }),
  }),
});

const ExportJobListRef = builder.objectRef<Awaited<ReturnType<typeof listExportJobs>>>('ExportJobList').implement({
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Jobs of the last 30 days' }),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
    jobs: t.field({ type: [ExportJobRef], resolve: (l) => l.jobs }),
  }),
});

const ExportScopeInput = builder.inputType('ExportScopeInput', {
  fields: (t) => ({
    include: t.stringList({
      description: `Tables to export (default all): ${EXPORT_TABLES.join(', ')}`,
      ...openApi(TABLE, maxChars(TEXT_LIMITS.tableName)),
    }),
    exclude: t.stringList({ description: 'Tables left out, applied after include', ...openApi(TABLE, maxChars(TEXT_LIMITS.tableName)) }),
  }),
});

const exportContext = (ctx: GraphQLContext) => ({
  prisma: ctx.prisma,
  caller: keyCaller(ctx.caller),
  storage: ctx.services.exportStorage,
});

const TAGS = ['Organisation export'];

builder.queryFields((t) => ({
  exportJobs: t.field({
    type: ExportJobListRef,
    description: 'Export jobs of your organisation from the last 30 days, most recent first.',
    authScopes: { organisation: true },
    extensions: {
      rest: { method: 'GET', path: '/org/export/jobs', summary: 'List export jobs', tags: TAGS },
      pageSize: { default: EXPORT_LIST_MAX, max: EXPORT_LIST_MAX },
    },
    args: {
      limit: t.arg.int({ defaultValue: EXPORT_LIST_MAX, description: `1 to ${EXPORT_LIST_MAX}` }),
      offset: t.arg.int({ defaultValue: 0, description: 'At least 0' }),
    },
    resolve: (_root, { limit, offset }, ctx) =>
      listExportJobs(exportContext(ctx).prisma, { limit: limit ?? EXPORT_LIST_MAX, offset: offset ?? 0 }),
  }),
  exportJob: t.field({
    type: ExportJobRef,
    description: "One export job of your organisation (404 for an unknown id or another organisation's).",
    authScopes: { organisation: true },
    extensions: { rest: { method: 'GET', path: '/org/export/jobs/:id', summary: 'Get an export job', tags: TAGS } },
    args: { id: t.arg.id({ required: true, ...maxChars(TEXT_LIMITS.id) }) },
    resolve: (_root, { id }, ctx) => findExportJob(exportContext(ctx).prisma, String(id)),
  }),
}));

builder.mutationFields((t) => ({
  submitExportJob: t.field({
    type: ExportSubmissionRef,
    description:
      "Starts an export of all your organisation's data as a ZIP (202). Header Idempotency-Key: the same key and body again within 24 hours answers that job's submission again. " +
      'One active export per organisation (429 TOO_MANY_ACTIVE_EXPORTS); one export per plan interval: free 30 days, pro 7 days, business 24 hours, enterprise 1 hour (429 EXPORT_TOO_FREQUENT).',
    authScopes: { organisation: true, writes: true },
    extensions: {
      rest: {
        method: 'POST',
        path: '/org/export/jobs',
        summary: 'Start an organisation export',
        responseStatus: 202,
        tags: TAGS,
        idempotent: true,
      },
    },
    args: {
      scope: t.arg({ type: ExportScopeInput, required: false }),
      format: t.arg({ type: ExportFormatEnum, required: false, defaultValue: 'zip' }),
    },
    resolve: async (_root, { scope, format }, ctx) => {
      const job = await submitExportJob(exportContext(ctx), { scope, format, idempotencyKey: heldIdempotencyKey() });
      ctx.services.exportWorker?.poke();
      return job;
    },
  }),
  cancelExportJob: t.field({
    type: ExportJobRef,
    description: 'Cancels a pending or processing export and deletes its partial archive; any other state is 409 EXPORT_NOT_CANCELLABLE.',
    authScopes: { organisation: true, writes: true },
    extensions: {
      rest: {
        method: 'DELETE',
        path: '/org/export/jobs/:id',
        summary: 'Cancel an export job',
        tags: TAGS,
        errors: { 409: 'The job is no longer pending or processing (EXPORT_NOT_CANCELLABLE)' },
      },
    },
    args: { id: t.arg.id({ required: true, ...maxChars(TEXT_LIMITS.id) }) },
    resolve: (_root, { id }, ctx) => cancelExportJob(exportContext(ctx), String(id)),
  }),
}));
