import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { ExportWorker, type ExportWorkerOptions } from '../../src/exports/worker.ts';
import type { ExportStorage } from '../../src/exports/storage/types.ts';
import { EXPORT_TABLES } from '../../src/exports/tables.ts';

// The worker's side of the state table: pending -> processing -> completed | failed, progress while
// it runs, cancellation and hand-back mid-job, lease expiry and the attempt limit, webhook events.

const JOBS = '/v1/org/export/jobs';

/** The app's storage, with every write of an upload delayed: a job then runs long enough to be watched. */
function slowStorage(storage: ExportStorage, delayMs: number, failWrites = false): ExportStorage {
  return {
    kind: storage.kind,
    delete: (key) => storage.delete(key),
    exists: (key) => storage.exists(key),
    signedUrl: (key, options) => storage.signedUrl(key, options),
    async open(key) {
      const upload = await storage.open(key);
      const stream = new Writable({
        write(chunk, _encoding, done) {
          if (failWrites) return done(new Error('disk full'));
          setTimeout(() => upload.stream.write(chunk, done), delayMs);
        },
        final(done) {
          upload.stream.end(done);
        },
        destroy(error, done) {
          // The archive reports the error; abort(), which the worker calls next, discards the upload.
          done(error);
        },
      });
      return { stream, commit: () => upload.commit(), abort: () => upload.abort() };
    },
  };
}

const until = async <T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe(`export worker on ${TEST_DATABASE_KIND}`, () => {
  let t: TestApp;
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });
  const db = () => t.app.services.db.prisma;
  const makeWorker = (options: ExportWorkerOptions & { storage?: ExportStorage } = {}) => {
    const s = t.app.services;
    return new ExportWorker(
      { db: s.db, scopes: s.scopes, storage: options.storage ?? s.exportStorage, log: s.log, softwareVersion: '1.0.0' },
      { heartbeatMs: 30, ...options },
    );
  };
  async function submitted(plan = 'enterprise') {
    const org = await t.createOrg(plan, `Worker ${randomUUID().slice(0, 6)}`);
    const { key } = await t.createKey(org.id);
    const answer = await t.json(JOBS, { method: 'POST', headers: { ...auth(key), 'content-type': 'application/json' }, body: '{}' });
    expect(answer.status).toBe(202);
    return { org, key, id: answer.body.job_id as string };
  }
  const job = (id: string) => db().exportJob.findUniqueOrThrow({ where: { id } });
  const filesOf = async (orgId: string) => readdir(path.join(t.dataDir, 'exports', orgId)).catch(() => [] as string[]);
  async function endpointFor(key: string) {
    const created = await t.json('/v1/webhooks/endpoints', {
      method: 'POST',
      headers: { ...auth(key), 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks' }),
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  beforeAll(async () => {
    t = await createTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  });
  afterAll(() => t.close());

  it('pending -> processing -> completed: counts, hashes, 72-hour expiry, and the completed webhook in the same transaction', async () => {
    const { org, key, id } = await submitted();
    const endpoint = await endpointFor(key);
    expect(await makeWorker().runOnce()).toBe(id);
    const done = await job(id);
    expect(done).toMatchObject({ status: 'completed', attempts: 1, total_tables: 23, error_code: null, lease_expires_at: null });
    expect(done.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Number(done.bytes)).toBeGreaterThan(1_000);
    expect(done.started_at!.getTime()).toBeLessThanOrEqual(done.completed_at!.getTime());
    expect(done.expires_at!.getTime() - done.completed_at!.getTime()).toBe(72 * 3_600_000);
    const manifest = done.manifest as { record_counts: Record<string, number> };
    expect(Object.keys(manifest.record_counts).sort()).toEqual([...EXPORT_TABLES].sort());
    expect(Number(done.total_rows)).toBe(Object.values(manifest.record_counts).reduce((a, b) => a + b, 0));
    expect(manifest.record_counts.organizations).toBe(1);
    expect(manifest.record_counts.webhook_endpoints).toBe(1);
    expect(done.progress).toEqual({ tables_done: 23, total_tables: 23, rows_written: Number(done.total_rows), current_table: null });

    const deliveries = await db().webhookDelivery.findMany({ where: { org_id: org.id } });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ endpoint_id: endpoint, event: 'org.export.job.completed', attempt: 1, status: 'pending' });
    expect((deliveries[0]!.payload as { data: Record<string, unknown> }).data).toMatchObject({
      job_id: id,
      status: 'completed',
      sha256: done.sha256,
      bytes: Number(done.bytes),
      download_url: `${JOBS}/${id}/download`,
    });
  });

  it('progress (tables done, rows written) is visible on the job while it runs', async () => {
    const { key, id } = await submitted();
    const running = makeWorker({ storage: slowStorage(t.app.services.exportStorage, 40) }).runOnce();
    const seen = await until(async () => {
      const { body } = await t.json(`${JOBS}/${id}`, { headers: auth(key) });
      return body.status === 'processing' && body.progress && body.progress.tables_done > 0 && body.progress.tables_done < 23
        ? body
        : undefined;
    });
    expect(seen.progress.total_tables).toBe(23);
    expect(seen.progress.rows_written).toBeGreaterThan(0);
    expect(seen.started_at).not.toBeNull();
    expect(await running).toBe(id);
    expect((await job(id)).status).toBe('completed');
  });

  it('cancel while processing: the worker stops, nothing is left in storage, no completed event', async () => {
    const { org, key, id } = await submitted();
    await endpointFor(key);
    const running = makeWorker({ storage: slowStorage(t.app.services.exportStorage, 40) }).runOnce();
    await until(async () => ((await job(id)).status === 'processing' ? true : undefined));
    const cancelled = await t.json(`${JOBS}/${id}`, { method: 'DELETE', headers: auth(key) });
    expect(cancelled.status).toBe(200);
    expect(await running).toBe(id);
    expect((await job(id)).status).toBe('cancelled');
    expect(await filesOf(org.id)).toEqual([]);
    expect(await db().webhookDelivery.count({ where: { org_id: org.id } })).toBe(0);
  });

  it('a stopping worker hands its job back (pending, attempt not counted, partial discarded)', async () => {
    const { org, id } = await submitted();
    const worker = makeWorker({ storage: slowStorage(t.app.services.exportStorage, 40), pollIntervalMs: 10 });
    worker.start();
    await until(async () => ((await job(id)).status === 'processing' ? true : undefined));
    await worker.stop();
    expect(await job(id)).toMatchObject({ status: 'pending', attempts: 0, worker_id: null, lease_expires_at: null });
    expect(await filesOf(org.id)).toEqual([]);
    expect(await makeWorker().runOnce()).toBe(id);
    expect(await job(id)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('a job whose worker died is claimed again once its lease has run out', async () => {
    const { id } = await submitted();
    await db().exportJob.update({
      where: { id },
      data: { status: 'processing', attempts: 1, worker_id: 'dead-worker', lease_expires_at: new Date(Date.now() + 60_000) },
    });
    // Still leased: nobody takes it.
    expect(await makeWorker().runOnce()).toBeNull();
    await db().exportJob.update({ where: { id }, data: { lease_expires_at: new Date(Date.now() - 1) } });
    expect(await makeWorker().runOnce()).toBe(id);
    expect(await job(id)).toMatchObject({ status: 'completed', attempts: 2 });
  });

  it('after the last attempt the sweep fails the job (EXPORT_INTERRUPTED), deletes its partial upload and sends the failed event', async () => {
    const { org, key, id } = await submitted();
    await endpointFor(key);
    const row = await db().exportJob.update({
      where: { id },
      data: { status: 'processing', attempts: 3, worker_id: 'dead-worker', lease_expires_at: new Date(Date.now() - 1) },
    });
    const partial = await t.app.services.exportStorage.open(row.storage_path!);
    await new Promise<void>((resolve, reject) => partial.stream.write(Buffer.alloc(1024), (error) => (error ? reject(error) : resolve())));
    expect((await filesOf(org.id)).length).toBeGreaterThan(0);

    const worker = makeWorker();
    expect(await worker.runOnce()).toBeNull();
    expect(await worker.sweep()).toMatchObject({ failed: 1 });
    const failed = await job(id);
    expect(failed).toMatchObject({ status: 'failed', error_code: 'EXPORT_INTERRUPTED', lease_expires_at: null });
    expect(failed.failed_at).not.toBeNull();
    expect(await filesOf(org.id)).toEqual([]);
    const [event] = await db().webhookDelivery.findMany({ where: { org_id: org.id } });
    expect(event).toMatchObject({ event: 'org.export.job.failed' });
    expect((event!.payload as { data: Record<string, unknown> }).data).toMatchObject({
      job_id: id,
      status: 'failed',
      error_code: 'EXPORT_INTERRUPTED',
    });
    // A failed export does not use the plan's interval.
    const again = await t.json(JOBS, { method: 'POST', headers: auth(key) });
    expect(again.status).toBe(202);
    await makeWorker().runOnce();
    await partial.abort();
  });

  it('a write failure on the last attempt fails the job with EXPORT_STORAGE_WRITE_FAILED and leaves nothing behind', async () => {
    const { org, id } = await submitted();
    expect(await makeWorker({ storage: slowStorage(t.app.services.exportStorage, 0, true), maxAttempts: 1 }).runOnce()).toBe(id);
    expect(await job(id)).toMatchObject({ status: 'failed', error_code: 'EXPORT_STORAGE_WRITE_FAILED', bytes: null, sha256: null });
    expect(await filesOf(org.id)).toEqual([]);
  });

  it('two workers claim two jobs, never the same one', async () => {
    const a = await submitted();
    const b = await submitted();
    const ran = await Promise.all([makeWorker().runOnce(), makeWorker().runOnce()]);
    expect(ran.sort()).toEqual([a.id, b.id].sort());
    expect((await job(a.id)).attempts).toBe(1);
    expect((await job(b.id)).attempts).toBe(1);
  });
});
