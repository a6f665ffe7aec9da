import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Database, Prisma } from '../db/database.ts';
import type { OrganizationScopes } from '../auth/org-scope.ts';
import type { Logger } from '../observability/logger.ts';
import { enqueueWebhookEvent } from '../webhooks/events.ts';
import type { ExportStorage, ObjectUpload } from './storage/types.ts';
import { resolveExportScope } from './tables.ts';
import { writeExportArchive, type ArchiveProgress } from './archive.ts';
import { EXPORT_TTL_MS, jobLinks, type StoredScope } from './jobs.ts';
import { asFailure, failureMessage, storageOutput, type ExportFailureCode, ExportJobFailure } from './failures.ts';

// The export worker: claims pending jobs with row locks (FOR UPDATE SKIP LOCKED), holds each with a
// lease it renews while it writes, and finishes it as completed or failed. Plain SQL on the
// export_jobs table rather than a job-queue library: pg-boss and graphile-worker need PostgreSQL
// server features (LISTEN/NOTIFY, several connections) that the embedded PGlite database lacks,
// and the job row already is the queue. Every claim counts an attempt in the row. A failed attempt
// is tried again after a pause (the job keeps its lease, held by no worker, until then), at most
// `maxAttempts` times, then the job fails with the failed stage's code (failures.ts). A worker that
// dies leaves a lease that runs out; the job is then claimed again, and after `maxAttempts` claims
// failed with EXPORT_INTERRUPTED (sweep()). Storage of finished jobs is deleted by the sweep too.

export interface ExportWorkerOptions {
  /** How long a claim holds without renewal (default 60 s). */
  leaseMs?: number;
  /** How often an idle worker looks for work (default 2 s). */
  pollIntervalMs?: number;
  /** Claims of one job before it is failed (default EXPORT_MAX_ATTEMPTS). */
  maxAttempts?: number;
  /** The pause after a failed attempt, times the attempts so far (default 30 s: 30 s, then 60 s). */
  retryDelayMs?: number;
  /** How often expired archives and abandoned jobs are swept (default 60 s). */
  sweepIntervalMs?: number;
  /** How often a running job's progress and lease are written (default 1 s, at most a third of the lease). */
  heartbeatMs?: number;
  /**
   * How long an attempt may go without progress (a storage or database call that never answers)
   * before it fails with EXPORT_STALLED (default 5 minutes, at least two leases).
   */
  stallMs?: number;
}

/** Attempts of one job (claims, counted in export_jobs.attempts) before it fails. */
export const EXPORT_MAX_ATTEMPTS = 3;

/** Finished jobs whose stored objects one sweep deletes at most. */
const CLEANUP_BATCH = 100;

interface ClaimedJob {
  id: string;
  org_id: string;
  scope: StoredScope;
  storage_path: string;
  attempts: number;
}

/** The job is no longer this worker's: cancelled, its lease taken over, or the worker is stopping. */
class JobReleased extends Error {
  constructor(readonly reason: 'cancelled-or-lost' | 'stopping') {
    super(`export job released: ${reason}`);
  }
}

export class ExportWorker {
  readonly id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly leaseMs: number;
  private readonly pollIntervalMs: number;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private readonly sweepIntervalMs: number;
  private readonly heartbeatMs: number;
  private readonly stallMs: number;
  private running: Promise<void> | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;
  private lastSweep = 0;

  constructor(
    private readonly deps: { db: Database; scopes: OrganizationScopes; storage: ExportStorage; log: Logger; softwareVersion: string },
    options: ExportWorkerOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 60_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 2_000;
    this.maxAttempts = options.maxAttempts ?? EXPORT_MAX_ATTEMPTS;
    this.retryDelayMs = options.retryDelayMs ?? 30_000;
    this.sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    this.heartbeatMs = Math.min(options.heartbeatMs ?? 1_000, this.leaseMs / 3);
    this.stallMs = Math.max(options.stallMs ?? 300_000, 2 * this.leaseMs);
  }

  /** Runs jobs until stop(): claims while there is work, sweeps now and then, sleeps when idle. */
  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.running = (async () => {
      // The embedded database belongs to this process alone: a job processing at start was this process's before it died.
      if (this.deps.db.kind === 'pglite')
        await this.expireLeases().catch((error: unknown) => this.deps.log.error({ err: error }, 'export job recovery failed'));
      while (!this.stopping) {
        try {
          if (Date.now() - this.lastSweep >= this.sweepIntervalMs) await this.sweep();
          if (await this.runOnce()) continue;
        } catch (error) {
          this.deps.log.error({ err: error, worker: this.id }, 'export worker loop failed');
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.pollIntervalMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    })();
  }

  private async expireLeases(): Promise<void> {
    const recovered = await this.deps.db.prisma
      .$executeRaw`UPDATE export_jobs SET lease_expires_at = now() - interval '1 millisecond' WHERE status = 'processing'`;
    if (recovered) this.deps.log.warn({ jobs: recovered }, 'export jobs interrupted by the last stop taken up again');
  }

  /** Looks for work now instead of at the next poll (after a submission on this instance). */
  poke(): void {
    this.wake?.();
  }

  /** Stops claiming; a job being written is handed back (pending again, its attempt not counted) for another worker. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.running;
    this.running = undefined;
  }

  /** Claims one job and runs it to its end; the job id, or null when there was nothing to do. */
  async runOnce(): Promise<string | null> {
    const job = await this.claim();
    if (!job) return null;
    await this.run(job);
    return job.id;
  }

  private async claim(): Promise<ClaimedJob | null> {
    const leaseSeconds = this.leaseMs / 1000;
    // A processing job whose lease ran out lost its worker: claimed again while it has attempts left.
    const [job] = await this.deps.db.prisma.$queryRaw<ClaimedJob[]>`
      UPDATE export_jobs SET status = 'processing', attempts = attempts + 1, worker_id = ${this.id},
        lease_expires_at = now() + make_interval(secs => ${leaseSeconds}), started_at = COALESCE(started_at, now()),
        progress = NULL
      WHERE id = (
        SELECT id FROM export_jobs
        WHERE (status = 'pending' OR (status = 'processing' AND lease_expires_at < now())) AND attempts < ${this.maxAttempts}
        ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING id, org_id, scope, storage_path, attempts`;
    return job ?? null;
  }

  private async run(job: ClaimedJob): Promise<void> {
    const { storage, log } = this.deps;
    const started = performance.now();
    let upload: ObjectUpload | undefined;
    // From the commit on an archive may exist (a commit whose answer was lost may have happened).
    let archiveMayExist = false;
    // The error_code of a failure in the stage running now (the archive's output tags its own: failures.ts).
    let stage: ExportFailureCode = 'EXPORT_STORAGE_UNAVAILABLE';
    // Nothing between here and the try: every way out of the attempt stops the lease's renewal.
    const heartbeat = new Heartbeat(this, job, this.heartbeatMs, this.stallMs);
    try {
      // Leftovers of an earlier attempt of this job (a partial upload of a worker that died).
      await heartbeat.watch(storage.delete(job.storage_path));
      upload = await heartbeat.watch(storage.open(job.storage_path));
      stage = 'EXPORT_DATABASE_ERROR';
      const tables = resolveExportScope(job.scope);
      const result = await heartbeat.watch(
        writeExportArchive({
          db: this.deps.db,
          orgId: job.org_id,
          tables,
          output: storageOutput(upload.stream),
          softwareVersion: this.deps.softwareVersion,
          generatedAt: new Date(),
          onProgress: async (progress) => heartbeat.report(progress),
        }),
      );
      heartbeat.check();
      stage = 'EXPORT_STORAGE_COMMIT_FAILED';
      archiveMayExist = true;
      await heartbeat.watch(upload.commit());
      stage = 'EXPORT_DATABASE_ERROR';
      const completed = await this.complete(job, { ...result, totalTables: tables.length });
      // Cancelled between the last heartbeat and now: the archive must not stay (the sweep retries a failed delete).
      if (!completed) await this.discard(job, 'deleting the archive of a cancelled export failed');
      log.info(
        {
          job_id: job.id,
          org_id: job.org_id,
          rows: result.totalRows,
          bytes: result.bytes,
          ms: Math.round(performance.now() - started),
          completed,
        },
        'export job finished',
      );
    } catch (error) {
      // No renewal may follow once the job is handed on (to a next attempt, back to pending, or failed).
      await heartbeat.stop();
      // A store that stalled may not answer the abort either: the sweep deletes what stays.
      await Promise.race([upload?.abort(), abortGiveUp()]).catch((abortError: unknown) =>
        log.warn({ err: abortError, job_id: job.id }, 'discarding a partial export failed'),
      );
      // The archive of an export that is not completed must not stay.
      if (archiveMayExist) await this.discard(job, 'deleting the archive of an unrecorded export failed');
      if (error instanceof JobReleased) {
        if (error.reason === 'stopping') await this.handBack(job);
        log.info({ job_id: job.id, reason: error.reason }, 'export job released');
        return;
      }
      await this.attemptFailed(job, asFailure(error, stage), upload !== undefined);
    } finally {
      await heartbeat.stop();
    }
  }

  /** Deletes a job's stored object now; when that fails the sweep deletes it later (its storage_path stays set). */
  private async discard(job: ClaimedJob, problem: string): Promise<void> {
    await this.deps.storage.delete(job.storage_path).catch((error: unknown) => this.deps.log.warn({ err: error, job_id: job.id }, problem));
  }

  /** Another attempt after a pause while attempts are left and one may succeed; otherwise failed with the stage's code. */
  private async attemptFailed(job: ClaimedJob, failure: ExportJobFailure, opened: boolean): Promise<void> {
    const { log } = this.deps;
    const context = { err: failure.cause, job_id: job.id, org_id: job.org_id, error_code: failure.code, attempt: job.attempts };
    if (failure.retryable && job.attempts < this.maxAttempts) {
      const delaySeconds = (this.retryDelayMs * job.attempts) / 1000;
      // Its lease, held by no worker, runs out after the pause: then any worker claims it (claim()).
      await this.deps.db.prisma.$executeRaw`
        UPDATE export_jobs SET worker_id = NULL, progress = NULL, lease_expires_at = now() + make_interval(secs => ${delaySeconds})
        WHERE id = ${job.id}::uuid AND status = 'processing' AND worker_id = ${this.id}`;
      log.warn({ ...context, retry_in_s: delaySeconds }, 'export attempt failed; trying again');
      return;
    }
    log.error(context, 'export job failed');
    // The first attempt failed before it opened an upload: there is nothing in storage for the sweep to delete.
    await this.fail(job, failure.code, failureMessage(failure.code, job.attempts), { nothingStored: !opened && job.attempts === 1 });
  }

  /** Writes progress and renews the lease while the job is still this worker's; false when it no longer is. */
  async renew(job: ClaimedJob, progress: ArchiveProgress | undefined): Promise<boolean> {
    const progressJson = progress ? JSON.stringify(progress) : null;
    const updated = await this.deps.db.prisma.$executeRaw`
      UPDATE export_jobs SET lease_expires_at = now() + make_interval(secs => ${this.leaseMs / 1000}),
        progress = COALESCE(${progressJson}::jsonb, progress)
      WHERE id = ${job.id}::uuid AND status = 'processing' AND worker_id = ${this.id}`;
    return updated === 1 && !this.stopping;
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** processing -> completed, with the webhook event in the same transaction (outbox); false when the job was no longer ours. */
  private async complete(
    job: ClaimedJob,
    result: Awaited<ReturnType<typeof writeExportArchive>> & { totalTables: number },
  ): Promise<boolean> {
    const completedAt = new Date();
    const expiresAt = new Date(completedAt.getTime() + EXPORT_TTL_MS);
    const prisma = this.deps.scopes.for(job.org_id);
    return prisma.$transaction(async (tx) => {
      const { count } = await tx.exportJob.updateMany({
        where: { id: job.id, status: 'processing', worker_id: this.id },
        data: {
          status: 'completed',
          completed_at: completedAt,
          expires_at: expiresAt,
          total_tables: result.totalTables,
          total_rows: result.totalRows,
          bytes: result.bytes,
          sha256: result.sha256,
          manifest: result.manifest as unknown as Prisma.InputJsonValue,
          progress: {
            tables_done: result.totalTables,
            total_tables: result.totalTables,
            rows_written: result.totalRows,
            current_table: null,
          },
          lease_expires_at: null,
        },
      });
      if (count === 0) return false;
      await enqueueWebhookEvent(tx, job.org_id, 'org.export.job.completed', {
        job_id: job.id,
        status: 'completed',
        bytes: result.bytes,
        sha256: result.sha256,
        total_rows: result.totalRows,
        completed_at: completedAt.toISOString(),
        expires_at: expiresAt.toISOString(),
        ...jobLinks(job.id),
      });
      return true;
    });
  }

  /**
   * -> failed with the webhook event in the same transaction, when the job is still active: its lease
   * ends and the organisation's slot is free. Its stored objects go at the next sweep.
   */
  private async fail(
    job: Pick<ClaimedJob, 'id' | 'org_id'>,
    code: ExportFailureCode,
    message: string,
    { onlyIfLeaseExpired = false, nothingStored = false } = {},
  ): Promise<boolean> {
    const prisma = this.deps.scopes.for(job.org_id);
    return prisma.$transaction(async (tx) => {
      const { count } = await tx.exportJob.updateMany({
        where: onlyIfLeaseExpired
          ? { id: job.id, status: 'processing', lease_expires_at: { lt: new Date() } }
          : { id: job.id, status: 'processing', worker_id: this.id },
        data: {
          status: 'failed',
          error_code: code,
          error_message: message,
          failed_at: new Date(),
          lease_expires_at: null,
          worker_id: null,
          ...(nothingStored && { storage_path: null }),
        },
      });
      if (count === 0) return false;
      await enqueueWebhookEvent(tx, job.org_id, 'org.export.job.failed', {
        job_id: job.id,
        status: 'failed',
        error_code: code,
        error_message: message,
        ...jobLinks(job.id),
      });
      return true;
    });
  }

  /** A stopping worker gives its job back at once instead of letting the lease run out; the attempt is not counted. */
  private async handBack(job: ClaimedJob): Promise<void> {
    await this.deps.db.prisma.$executeRaw`
      UPDATE export_jobs SET status = 'pending', worker_id = NULL, lease_expires_at = NULL, attempts = attempts - 1, progress = NULL
      WHERE id = ${job.id}::uuid AND status = 'processing' AND worker_id = ${this.id}`;
  }

  /**
   * completed jobs past their 72 hours -> expired; processing jobs whose lease ran out with no attempts
   * left -> failed (EXPORT_INTERRUPTED); then the stored objects (archive or partial upload) of
   * expired, failed and cancelled jobs are deleted, and their storage_path cleared once that worked.
   */
  async sweep(): Promise<{ expired: number; failed: number; cleaned: number }> {
    this.lastSweep = Date.now();
    const { db, storage, log } = this.deps;
    const expired = await db.prisma
      .$executeRaw`UPDATE export_jobs SET status = 'expired' WHERE status = 'completed' AND expires_at <= now()`;
    const abandoned = await db.prisma.$queryRaw<{ id: string; org_id: string }[]>`
      SELECT id, org_id FROM export_jobs
      WHERE status = 'processing' AND lease_expires_at < now() AND attempts >= ${this.maxAttempts}`;
    let failed = 0;
    for (const job of abandoned) {
      if (await this.fail(job, 'EXPORT_INTERRUPTED', failureMessage('EXPORT_INTERRUPTED', this.maxAttempts), { onlyIfLeaseExpired: true }))
        failed++;
    }
    const finished = await db.prisma.$queryRaw<{ id: string; storage_path: string }[]>`
      SELECT id, storage_path FROM export_jobs
      WHERE status IN ('expired', 'failed', 'cancelled') AND storage_path IS NOT NULL
      ORDER BY created_at LIMIT ${CLEANUP_BATCH}`;
    let cleaned = 0;
    for (const job of finished) {
      try {
        await storage.delete(job.storage_path);
      } catch (error) {
        log.warn({ err: error, job_id: job.id }, 'deleting an export archive failed; the next sweep tries again');
        continue;
      }
      cleaned += await db.prisma.$executeRaw`
        UPDATE export_jobs SET storage_path = NULL WHERE id = ${job.id}::uuid AND status IN ('expired', 'failed', 'cancelled')`;
    }
    if (expired || failed || cleaned) log.info({ expired, failed, cleaned }, 'export sweep');
    return { expired, failed, cleaned };
  }
}

/** How long a failed attempt waits for its upload's abort before leaving the rest to the sweep. */
const ABORT_WAIT_MS = 10_000;
const abortGiveUp = () => new Promise<void>((resolve) => setTimeout(resolve, ABORT_WAIT_MS).unref());

/**
 * Renews a running job's lease and records its progress every `intervalMs`; report()/check() throw
 * once the job is not ours. An attempt that reports no progress for `stallMs` (a store or database
 * call that never answers) is failed: watch() rejects with EXPORT_STALLED, so the lease it would
 * otherwise renew for ever ends.
 */
class Heartbeat {
  private progress: ArchiveProgress | undefined;
  private released: JobReleased | undefined;
  private readonly timer: NodeJS.Timeout;
  private beat: Promise<void> = Promise.resolve();
  private lastProgress = Date.now();
  private readonly stalled: Promise<never>;
  private stall!: (failure: ExportJobFailure) => void;

  constructor(
    private readonly worker: ExportWorker,
    private readonly job: ClaimedJob,
    intervalMs: number,
    private readonly stallMs: number,
  ) {
    this.stalled = new Promise<never>((_, reject) => {
      this.stall = reject;
    });
    // Rejected only while a watch() races it.
    this.stalled.catch(() => {});
    this.timer = setInterval(() => {
      if (Date.now() - this.lastProgress > this.stallMs) {
        this.stall(new ExportJobFailure('EXPORT_STALLED', new Error(`no progress for ${Math.round(this.stallMs / 1000)} s`)));
        return;
      }
      this.beat = this.beat.then(() => this.renew());
    }, intervalMs);
  }

  /** `operation`, or EXPORT_STALLED once the attempt has made no progress for stallMs; its start counts as progress. */
  watch<T>(operation: Promise<T>): Promise<T> {
    this.lastProgress = Date.now();
    return Promise.race([operation, this.stalled]).finally(() => {
      this.lastProgress = Date.now();
    });
  }

  private async renew(): Promise<void> {
    if (this.released) return;
    try {
      if (!(await this.worker.renew(this.job, this.progress)))
        this.released = new JobReleased(this.worker.isStopping ? 'stopping' : 'cancelled-or-lost');
    } catch {
      // A failed renewal is retried at the next beat; the lease is three beats long.
    }
  }

  report(progress: ArchiveProgress): void {
    this.progress = progress;
    this.lastProgress = Date.now();
    this.check();
  }

  check(): void {
    if (this.worker.isStopping) this.released ??= new JobReleased('stopping');
    if (this.released) throw this.released;
  }

  /** No renewal after this resolves: the job can be handed on without this worker's lease coming back. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.beat;
  }
}
