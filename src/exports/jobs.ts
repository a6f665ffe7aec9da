import { randomUUID } from 'node:crypto';
import type { Prisma, PrismaClient } from '../db/database.ts';
import { advisoryLockKey, isUniqueViolation } from '../db/database.ts';
import { ApiError, RateLimitError, invalidParameter, notFound } from '../errors/api-error.ts';
import type { KeyCaller } from '../auth/caller.ts';
import { EXPORT_INTERVAL_SECONDS } from '../auth/plan-rules.ts';
import { auditEntry } from '../audit/audit-log.ts';
import { REST_BASE } from '../kernel/paths.ts';
import { currentRequest } from '../observability/request-context.ts';
import { checkUuid } from '../validation/text.ts';
import type { ExportStorage } from './storage/types.ts';
import { EXPORT_TABLES, resolveExportScope } from './tables.ts';

// The organisation export's contract (spec 2.11, 3, 4.6, 8; docs/exports.md): submission with the
// two limits, listing, cancellation and download. The worker (worker.ts) moves jobs from pending to
// processing to completed or failed. Idempotency-Key is the one mechanism of every creating POST
// (src/idempotency/): a repeat is answered there, before submission runs.

export const EXPORT_TTL_MS = 72 * 3_600_000;
export const SIGNED_URL_TTL_SECONDS = 15 * 60;
const LIST_WINDOW_MS = 30 * 24 * 3_600_000;
export const EXPORT_LIST_MAX = 50;
/** A second export is refused while one is active; its client may look again after this long. */
const ACTIVE_RETRY_SECONDS = 60;

export const EXPORT_AUDIT_EVENTS = {
  submitted: 'org.export.job.submitted',
  cancelled: 'org.export.job.cancelled',
  downloaded: 'org.export.job.downloaded',
} as const;

export type ExportJobRow = Prisma.ExportJobGetPayload<object>;
export type ExportJobStatus = ExportJobRow['status'];
const ACTIVE: ExportJobStatus[] = ['pending', 'processing'];
/** Jobs that used the plan's export interval: a failed or cancelled export may be submitted again at once. */
const COUNTED: ExportJobStatus[] = ['pending', 'processing', 'completed', 'expired'];

/** The scope as stored and shown: include defaults to every table, exclude to none. */
export interface StoredScope {
  include: string[];
  exclude: string[];
}

export interface ExportRequest {
  scope?: { include?: readonly string[] | null; exclude?: readonly string[] | null } | null;
  format?: string | null;
  /** The Idempotency-Key the submission holds (src/idempotency/), kept on the job for the record. */
  idempotencyKey?: string | null;
}

export interface ExportContext {
  /** The caller's organisation-scoped client. */
  prisma: PrismaClient;
  caller: KeyCaller;
  storage: ExportStorage;
  now?: Date;
}

export const jobLinks = (id: string) => ({
  poll_url: `${REST_BASE}/org/export/jobs/${id}`,
  download_url: `${REST_BASE}/org/export/jobs/${id}/download`,
});

/** What a client sees: a completed job past its expiry is expired at once, before the sweeper records it and deletes the archive. */
export function visibleStatus(job: Pick<ExportJobRow, 'status' | 'expires_at'>, now = new Date()): ExportJobStatus {
  return job.status === 'completed' && job.expires_at !== null && job.expires_at <= now ? 'expired' : job.status;
}

const jobNotFound = (id: string) => notFound('Export job', `id: no export job ${id} in this organisation`);

/** 60 bits of a hash of the organisation id: the advisory lock that serialises one organisation's submissions. */
const submitLockKey = (orgId: string) => advisoryLockKey(`export-submit:${orgId}`);

function normaliseRequest(request: ExportRequest): { scope: StoredScope; tables: string[]; format: 'zip' } {
  if (request.format != null && request.format !== 'zip') throw invalidParameter('format', `must be "zip", got '${request.format}'`);
  const tables = resolveExportScope({
    include: request.scope?.include ? [...request.scope.include] : null,
    exclude: request.scope?.exclude ? [...request.scope.exclude] : null,
  });
  const scope: StoredScope = {
    include: request.scope?.include ? [...new Set(request.scope.include)] : [...EXPORT_TABLES],
    exclude: request.scope?.exclude ? [...new Set(request.scope.exclude)] : [],
  };
  return { scope, tables, format: 'zip' };
}

/** The export allowance's own headers on its 429: X-RateLimit-* stay the request quota's. */
const exportAllowanceHeaders = (reset: number) => ({ 'X-Export-Limit': '1', 'X-Export-Remaining': '0', 'X-Export-Reset': String(reset) });

function tooManyActive(activeId: string): RateLimitError {
  return new RateLimitError(
    'TOO_MANY_ACTIVE_EXPORTS',
    `Export ${activeId} of this organisation is still pending or processing; only one export may be active at a time.`,
    ACTIVE_RETRY_SECONDS,
    undefined,
    exportAllowanceHeaders(Math.ceil(Date.now() / 1000) + ACTIVE_RETRY_SECONDS),
  );
}

function tooFrequent(caller: KeyCaller, last: Date, now: Date): RateLimitError {
  const interval = EXPORT_INTERVAL_SECONDS[caller.plan];
  const allowedAt = last.getTime() + interval * 1000;
  const retryAfter = Math.max(1, Math.ceil((allowedAt - now.getTime()) / 1000));
  return new RateLimitError(
    'EXPORT_TOO_FREQUENT',
    `The ${caller.plan} plan allows one export every ${humanInterval(interval)}; the last one was submitted at ${last.toISOString()}. Next export possible in ${retryAfter} s.`,
    retryAfter,
    undefined,
    exportAllowanceHeaders(Math.ceil(allowedAt / 1000)),
  );
}

const humanInterval = (seconds: number) =>
  seconds >= 86_400 ? `${seconds / 86_400} day${seconds === 86_400 ? '' : 's'}` : `${seconds / 3_600} hour${seconds === 3_600 ? '' : 's'}`;

/**
 * Submits an export of the caller's organisation (202): one active export per organisation (429 TOO_MANY_ACTIVE_EXPORTS) and the plan's export interval
 * (429 EXPORT_TOO_FREQUENT). The checks and the insert run under a per-organisation advisory lock
 * in one transaction, and a partial unique index holds the one-active rule even without it.
 */
export async function submitExportJob(ctx: ExportContext, request: ExportRequest): Promise<ExportJobRow> {
  const { prisma, caller } = ctx;
  const now = ctx.now ?? new Date();
  const { scope, tables, format } = normaliseRequest(request);
  const idempotencyKey = request.idempotencyKey ?? null;
  try {
    return await prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${submitLockKey(caller.orgId)}::bigint)`;
      const active = await tx.exportJob.findFirst({ where: { status: { in: ACTIVE } }, select: { id: true } });
      if (active) throw tooManyActive(active.id);
      const since = new Date(now.getTime() - EXPORT_INTERVAL_SECONDS[caller.plan] * 1000);
      const recent = await tx.exportJob.findFirst({
        where: { status: { in: COUNTED }, created_at: { gt: since } },
        orderBy: { created_at: 'desc' },
        select: { created_at: true },
      });
      if (recent) throw tooFrequent(caller, recent.created_at, now);
      const id = randomUUID();
      const job = await tx.exportJob.create({
        data: {
          id,
          org_id: caller.orgId,
          scope: scope as unknown as Prisma.InputJsonValue,
          format,
          total_tables: tables.length,
          idempotency_key: idempotencyKey,
          storage_path: `${caller.orgId}/${id}.zip`,
          requested_by_key: caller.keyId,
          created_at: now,
        },
      });
      await tx.auditLog.create({
        data: auditEntry(
          caller,
          EXPORT_AUDIT_EVENTS.submitted,
          { type: 'export_job', id },
          { scope: job.scope as Prisma.InputJsonValue, idempotency_key: idempotencyKey },
        ),
      });
      return job;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // Only a writer that bypassed the lock gets here: the active one won.
    const active = await prisma.exportJob.findFirst({ where: { status: { in: ACTIVE } }, select: { id: true } });
    throw tooManyActive(active?.id ?? 'another export');
  }
}

export async function listExportJobs(prisma: PrismaClient, page: { limit: number; offset: number }, now = new Date()) {
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > EXPORT_LIST_MAX)
    throw invalidParameter('limit', `must be an integer from 1 to ${EXPORT_LIST_MAX}, got ${page.limit}`);
  if (!Number.isInteger(page.offset) || page.offset < 0)
    throw invalidParameter('offset', `must be an integer of at least 0, got ${page.offset}`);
  const where = { created_at: { gte: new Date(now.getTime() - LIST_WINDOW_MS) } };
  const [total, jobs] = await Promise.all([
    prisma.exportJob.count({ where }),
    prisma.exportJob.findMany({ where, orderBy: [{ created_at: 'desc' }, { id: 'desc' }], take: page.limit, skip: page.offset }),
  ]);
  return { total, limit: page.limit, offset: page.offset, jobs };
}

/** A job of the caller's organisation; another organisation's id answers exactly like an unknown one. */
export async function findExportJob(prisma: PrismaClient, id: string): Promise<ExportJobRow> {
  checkUuid('id', id);
  const job = await prisma.exportJob.findUnique({ where: { id } });
  if (!job) throw jobNotFound(id);
  return job;
}

/**
 * pending or processing -> cancelled, deleting a partial archive; any other state is 409 and stays as
 * it is. A store that fails the delete does not fail the cancel: the worker's sweep deletes it later.
 */
export async function cancelExportJob(ctx: ExportContext, id: string): Promise<ExportJobRow> {
  const { prisma, caller, storage } = ctx;
  checkUuid('id', id);
  const cancelled = await prisma.$transaction(async (tx) => {
    const [job] = await tx.exportJob.updateManyAndReturn({
      where: { id, status: { in: ACTIVE } },
      data: { status: 'cancelled', cancelled_at: ctx.now ?? new Date(), lease_expires_at: null, worker_id: null },
    });
    if (job)
      await tx.auditLog.create({
        data: auditEntry(caller, EXPORT_AUDIT_EVENTS.cancelled, { type: 'export_job', id }, { previous_status: 'active' }),
      });
    return job;
  });
  if (!cancelled) {
    const job = await findExportJob(prisma, id);
    throw new ApiError(
      409,
      'EXPORT_NOT_CANCELLABLE',
      'Export job cannot be cancelled',
      `status: the job is ${visibleStatus(job, ctx.now)}; only pending or processing jobs can be cancelled`,
    );
  }
  // A worker still writing notices the cancellation at its next heartbeat and discards its upload as well.
  if (cancelled.storage_path) {
    await storage
      .delete(cancelled.storage_path)
      .catch((error: unknown) =>
        currentRequest()?.log.warn(
          { err: error, job_id: id },
          "deleting a cancelled export's partial archive failed; the export sweep tries again",
        ),
      );
  }
  return cancelled;
}

export interface ExportDownload {
  signed_url: string;
  expires_at: Date;
  bytes: number;
  sha256: string;
}

/**
 * A signed URL of a completed job's archive, valid 15 minutes; each request writes the audit event
 * org.export.job.downloaded. 409 until completed (EXPORT_NOT_COMPLETED), or for good once failed
 * (EXPORT_FAILED) or cancelled (EXPORT_CANCELLED); 410 once the 72-hour retention has passed.
 */
export async function exportDownload(ctx: ExportContext & { base: string }, id: string): Promise<ExportDownload> {
  const { prisma, caller, storage } = ctx;
  const now = ctx.now ?? new Date();
  const job = await findExportJob(prisma, id);
  const status = visibleStatus(job, now);
  if (status === 'expired') {
    throw new ApiError(
      410,
      'EXPORT_EXPIRED',
      'Export expired',
      `id: export ${id} expired at ${job.expires_at?.toISOString() ?? 'an earlier time'} (archives are kept 72 hours after completion); submit a new export`,
    );
  }
  if (status === 'failed') {
    throw new ApiError(
      409,
      'EXPORT_FAILED',
      'Export failed',
      `status: the job failed (${job.error_code ?? 'no error code'}) and will never complete; see its error_message and submit a new export`,
    );
  }
  if (status === 'cancelled') {
    throw new ApiError(
      409,
      'EXPORT_CANCELLED',
      'Export cancelled',
      'status: the job was cancelled and will never complete; submit a new export',
    );
  }
  if (status !== 'completed' || !job.storage_path || job.sha256 === null || job.bytes === null) {
    throw new ApiError(
      409,
      'EXPORT_NOT_COMPLETED',
      'Export not completed',
      `status: the job is ${status}; the archive can be downloaded once it is completed`,
    );
  }
  const filename = `lcf-export-${job.completed_at!.toISOString().slice(0, 10)}-${job.id.slice(0, 8)}.zip`;
  const signed = await storage.signedUrl(job.storage_path, { base: ctx.base, filename, ttlSeconds: SIGNED_URL_TTL_SECONDS });
  await prisma.auditLog.create({
    data: auditEntry(
      caller,
      EXPORT_AUDIT_EVENTS.downloaded,
      { type: 'export_job', id },
      { bytes: Number(job.bytes), sha256: job.sha256, url_expires_at: signed.expiresAt.toISOString() },
    ),
  });
  return { signed_url: signed.url, expires_at: signed.expiresAt, bytes: Number(job.bytes), sha256: job.sha256 };
}
