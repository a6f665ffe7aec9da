import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { Database } from '../../src/db/database.ts';
import type { OrganizationScopes } from '../../src/auth/org-scope.ts';
import { createExportStorage, type ExportStorage } from '../../src/exports/storage/index.ts';
import { ExportWorker, type ExportWorkerOptions } from '../../src/exports/worker.ts';
import { startS3rver, type TestS3Server } from './s3-server.ts';

// Fault injection: every way an export attempt can fail (the store failing on open, write or commit,
// a store without ListMultipartUploads, the database failing, the worker dying) ends the job in
// `failed` with the failed stage's error_code after its bounded attempts, with its lease ended, the
// organisation's slot free and nothing left in storage; DELETE never answers 500, and a download
// of a job that will never complete says so. On both stores, and on the database the suite runs on.

const JOBS = '/v1/org/export/jobs';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Fault = 'open' | 'write' | 'commit' | 'delete';

/** `storage` failing as a broken disk or bucket would at one stage; `hang` makes writes never return (a frozen worker). */
function faulty(storage: ExportStorage, fault: Fault | 'hang'): ExportStorage & { release(): void } {
  const hung: (() => void)[] = [];
  return {
    kind: storage.kind,
    release() {
      for (const fail of hung.splice(0)) fail();
    },
    delete: (key) => (fault === 'delete' ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9000')) : storage.delete(key)),
    exists: (key) => storage.exists(key),
    signedUrl: (key, options) => storage.signedUrl(key, options),
    async open(key) {
      if (fault === 'open') throw Object.assign(new Error(`EACCES: permission denied, open '${key}'`), { code: 'EACCES' });
      const upload = await storage.open(key);
      let chunks = 0;
      const stream = new Writable({
        write(chunk, _encoding, done) {
          // The first chunk reaches the store, so there is a partial object to clean up.
          if (fault === 'write' && chunks++ > 0)
            return done(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
          if (fault === 'hang') return void hung.push(() => done(new Error('worker gone')));
          upload.stream.write(chunk, done);
        },
        final(done) {
          upload.stream.end();
          finished(upload.stream).then(() => done(), done);
        },
        destroy(error, done) {
          done(error);
        },
      });
      return {
        stream,
        async commit() {
          // The store made the object final, but its answer was lost.
          await upload.commit();
          if (fault === 'commit') throw new Error('socket hang up');
        },
        abort: () => upload.abort(),
      };
    },
  };
}

interface Store {
  storage: ExportStorage;
  /** Partial uploads of `key` the store still holds (partial files, multipart uploads in progress). */
  partials(key: string): Promise<string[]>;
}

describe(`export failures on ${TEST_DATABASE_KIND}`, () => {
  let t: TestApp;
  let s3: TestS3Server;
  let s3WithoutListing: TestS3Server;
  let s3DataDir: string;
  const stores = {} as Record<'filesystem' | 's3', Store>;
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });
  const db = () => t.app.services.db.prisma;
  const job = (id: string) => db().exportJob.findUniqueOrThrow({ where: { id } });
  const makeWorker = (storage: ExportStorage, options: ExportWorkerOptions & { db?: Database; scopes?: OrganizationScopes } = {}) => {
    const s = t.app.services;
    return new ExportWorker(
      { db: options.db ?? s.db, scopes: options.scopes ?? s.scopes, storage, log: s.log, softwareVersion: '1.0.0' },
      { heartbeatMs: 20, retryDelayMs: 0, ...options },
    );
  };
  const submit = (key: string) =>
    t.json(JOBS, { method: 'POST', headers: { ...auth(key), 'content-type': 'application/json' }, body: '{}' });
  async function submitted() {
    const org = await t.createOrg('enterprise', `Faults ${randomUUID().slice(0, 6)}`);
    const { key } = await t.createKey(org.id);
    const answer = await submit(key);
    expect(answer.status).toBe(202);
    const id = answer.body.job_id as string;
    return { org, key, id, storageKey: `${org.id}/${id}.zip` };
  }
  /** Runs `worker` until job `id` has ended (failed or completed); the number of attempts it took. */
  async function runToEnd(worker: ExportWorker, id: string) {
    for (let round = 0; round < 50; round++) {
      await worker.runOnce();
      const row = await job(id);
      if (row.status !== 'pending' && row.status !== 'processing') return row;
      // A failed attempt's lease runs out at now() + 0 s: a moment later the job is claimable again.
      await sleep(10);
    }
    throw new Error(`job ${id} did not end`);
  }
  /** What a user sees after a job failed at a stage: the state, the code, the lease, the slot, the storage, the download, DELETE. */
  async function expectFailedCleanly(
    worker: ExportWorker,
    store: Store,
    ctx: Awaited<ReturnType<typeof submitted>>,
    code: string,
    attempts: number,
  ) {
    const failed = await job(ctx.id);
    expect(failed).toMatchObject({
      status: 'failed',
      error_code: code,
      attempts,
      worker_id: null,
      lease_expires_at: null,
      bytes: null,
      sha256: null,
    });
    expect(failed.error_message).toContain(attempts === 1 ? 'Tried once' : `Tried ${attempts} times`);
    // The lease is not renewed any more.
    const renewals = vi.spyOn(worker, 'renew');
    await sleep(100);
    expect(renewals).not.toHaveBeenCalled();
    expect((await job(ctx.id)).lease_expires_at).toBeNull();
    // Nothing left in storage: no partial upload, no object.
    expect(await store.partials(ctx.storageKey)).toEqual([]);
    expect(await store.storage.exists(ctx.storageKey)).toBe(false);
    // A download says it will never complete; DELETE is a 409, not a 500.
    const download = await t.json(`${JOBS}/${ctx.id}/download`, { headers: { ...auth(ctx.key), accept: 'application/json' } });
    expect(download.status).toBe(409);
    expect(download.body).toMatchObject({ code: 'EXPORT_FAILED' });
    expect(download.body.details).toContain('never complete');
    expect((await t.json(`${JOBS}/${ctx.id}`, { method: 'DELETE', headers: auth(ctx.key) })).body.code).toBe('EXPORT_NOT_CANCELLABLE');
    // The organisation's slot is free, and a failed export does not use the plan's interval.
    const again = await submit(ctx.key);
    expect(again.status).toBe(202);
    await t.json(`${JOBS}/${again.body.job_id}`, { method: 'DELETE', headers: auth(ctx.key) });
  }

  beforeAll(async () => {
    [t, s3, s3WithoutListing] = await Promise.all([createTestApp(), startS3rver(), startS3rver({ listMultipartUploads: false })]);
    s3DataDir = await mkdtemp(path.join(tmpdir(), 'lcf-export-faults-'));
    const filesystem = t.app.services.exportStorage;
    stores.filesystem = {
      storage: filesystem,
      async partials(key) {
        const [folder, name] = key.split('/') as [string, string];
        const names = await readdir(path.join(t.dataDir, 'exports', folder)).catch(() => [] as string[]);
        return names.filter((n) => n.startsWith(`${name}.partial-`));
      },
    };
    stores.s3 = {
      storage: await createExportStorage(loadConfig({ DATA_DIR: s3DataDir, LOG_LEVEL: 'silent', ...s3.env })),
      partials: (key) => s3.uploadsOf(key),
    };
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([s3?.close(), s3WithoutListing?.close(), rm(s3DataDir, { recursive: true, force: true })]);
  });

  describe.each(['filesystem', 's3'] as const)('with the %s store', (kind) => {
    const cases: [Fault, string][] = [
      ['delete', 'EXPORT_STORAGE_UNAVAILABLE'],
      ['open', 'EXPORT_STORAGE_UNAVAILABLE'],
      ['write', 'EXPORT_STORAGE_WRITE_FAILED'],
      ['commit', 'EXPORT_STORAGE_COMMIT_FAILED'],
    ];
    it.each(cases)(
      'a store failing on %s: 3 attempts, then failed with %s, lease ended, slot free, nothing stored',
      async (fault, code) => {
        const store = stores[kind];
        const ctx = await submitted();
        const worker = makeWorker(faulty(store.storage, fault));
        const failed = await runToEnd(worker, ctx.id);
        expect(failed.status).toBe('failed');
        await expectFailedCleanly(worker, store, ctx, code, 3);
      },
    );
  });

  it.each(['open', 'write'] as const)(
    'a store that stops answering on %s: the worker fails the attempt itself (EXPORT_STALLED), ends its lease, stores nothing',
    async (where) => {
      const ctx = await submitted();
      const store = stores.filesystem;
      const hanging = faulty(store.storage, 'hang');
      // A store whose open never answers, or whose writes never do (the heartbeat itself keeps running).
      const storage: ExportStorage = where === 'open' ? { ...hanging, open: () => new Promise(() => {}) } : hanging;
      const worker = makeWorker(storage, { leaseMs: 150, stallMs: 300, maxAttempts: 1 });
      const started = Date.now();
      expect(await worker.runOnce()).toBe(ctx.id);
      expect(Date.now() - started).toBeLessThan(5_000);
      await expectFailedCleanly(worker, store, ctx, 'EXPORT_STALLED', 1);
      hanging.release();
    },
  );

  it('between attempts the job waits, held by no worker and cancellable, with its partial upload gone', async () => {
    const ctx = await submitted();
    const worker = makeWorker(faulty(stores.filesystem.storage, 'write'), { retryDelayMs: 60_000 });
    expect(await worker.runOnce()).toBe(ctx.id);
    const waiting = await job(ctx.id);
    expect(waiting).toMatchObject({ status: 'processing', attempts: 1, worker_id: null, error_code: null });
    expect(waiting.lease_expires_at!.getTime() - Date.now()).toBeGreaterThan(50_000);
    expect(await stores.filesystem.partials(ctx.storageKey)).toEqual([]);
    // Not claimable before the pause is over; another export of the organisation still waits for it.
    expect(await makeWorker(stores.filesystem.storage).runOnce()).toBeNull();
    expect((await submit(ctx.key)).body.code).toBe('TOO_MANY_ACTIVE_EXPORTS');
    const cancelled = await t.json(`${JOBS}/${ctx.id}`, { method: 'DELETE', headers: auth(ctx.key) });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const download = await t.json(`${JOBS}/${ctx.id}/download`, { headers: { ...auth(ctx.key), accept: 'application/json' } });
    expect(download.status).toBe(409);
    expect(download.body).toMatchObject({ code: 'EXPORT_CANCELLED' });
    expect(download.body.details).toContain('never complete');
  });

  it('a store without ListMultipartUploads fails the job at its first attempt (EXPORT_STORAGE_UNSUPPORTED), and DELETE still works', async () => {
    const storage = await createExportStorage(loadConfig({ DATA_DIR: s3DataDir, LOG_LEVEL: 'silent', ...s3WithoutListing.env }));
    const store: Store = { storage, partials: (key) => s3WithoutListing.uploadsOf(key) };
    const ctx = await submitted();
    const worker = makeWorker(storage);
    expect(await worker.runOnce()).toBe(ctx.id);
    await expectFailedCleanly(worker, store, ctx, 'EXPORT_STORAGE_UNSUPPORTED', 1);
    // Nothing was stored, so the sweep has nothing to delete for it.
    expect((await job(ctx.id)).storage_path).toBeNull();

    // Cancelling a job through the service that uses such a store: 200, not the store's error.
    const services = t.app.services;
    const pending = await submitted();
    services.exportStorage = storage;
    try {
      const cancelled = await t.json(`${JOBS}/${pending.id}`, { method: 'DELETE', headers: auth(pending.key) });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.status).toBe('cancelled');
    } finally {
      services.exportStorage = stores.filesystem.storage;
    }
  });

  it('a database failing while the rows are read: 3 attempts, then failed with EXPORT_DATABASE_ERROR', async () => {
    const real = t.app.services.db;
    const failing: Database = {
      ...real,
      async session() {
        const session = await real.session();
        const refused = () => Promise.reject(new Error('terminating connection due to administrator command'));
        return { ...session, query: refused, exec: refused };
      },
    };
    const ctx = await submitted();
    const worker = makeWorker(stores.filesystem.storage, { db: failing });
    await runToEnd(worker, ctx.id);
    await expectFailedCleanly(worker, stores.filesystem, ctx, 'EXPORT_DATABASE_ERROR', 3);
  });

  it('a database failing when the completed export is recorded: the committed archive is deleted each time, then EXPORT_DATABASE_ERROR', async () => {
    const real = t.app.services.scopes;
    // The first three transactions (recording each attempt's completion) fail; the fourth records the failure.
    let refusals = 3;
    const scopes = {
      for(orgId: string | null, readOnly?: boolean) {
        const client = real.for(orgId, readOnly);
        return new Proxy(client, {
          get(target, property, receiver) {
            if (property === '$transaction' && refusals > 0) {
              refusals--;
              return () => Promise.reject(new Error('Connection terminated unexpectedly'));
            }
            return Reflect.get(target, property, receiver);
          },
        });
      },
    } as unknown as OrganizationScopes;
    const ctx = await submitted();
    const worker = makeWorker(stores.filesystem.storage, { scopes });
    await runToEnd(worker, ctx.id);
    expect(refusals).toBe(0);
    await expectFailedCleanly(worker, stores.filesystem, ctx, 'EXPORT_DATABASE_ERROR', 3);
  });

  it('DELETE of a job in any state never answers 500, even while the store cannot delete; the sweep deletes later', async () => {
    const services = t.app.services;
    const org = await t.createOrg('enterprise', `Faults ${randomUUID().slice(0, 6)}`);
    const { key } = await t.createKey(org.id);
    const ids: Record<string, string> = {};
    for (const status of ['completed', 'failed', 'cancelled', 'expired', 'processing'] as const) {
      const id = randomUUID();
      await db().exportJob.create({
        data: { id, org_id: org.id, scope: { include: ['assets'], exclude: [] }, storage_path: `${org.id}/${id}.zip`, status },
      });
      ids[status] = id;
    }
    // A partial upload of the processing job, as a worker elsewhere would be writing it.
    const partial = await stores.filesystem.storage.open(`${org.id}/${ids.processing}.zip`);
    await new Promise<void>((resolve, reject) => partial.stream.write(Buffer.alloc(1024), (error) => (error ? reject(error) : resolve())));

    services.exportStorage = faulty(stores.filesystem.storage, 'delete');
    try {
      for (const [status, id] of Object.entries(ids)) {
        const answer = await t.json(`${JOBS}/${id}`, { method: 'DELETE', headers: auth(key) });
        expect(answer.status, status).toBe(status === 'processing' ? 200 : 409);
        if (status !== 'processing') expect(answer.body.code).toBe('EXPORT_NOT_CANCELLABLE');
        // Again: the same answer, nothing changes.
        expect((await t.json(`${JOBS}/${id}`, { method: 'DELETE', headers: auth(key) })).status).toBe(409);
      }
    } finally {
      services.exportStorage = stores.filesystem.storage;
    }
    expect(await stores.filesystem.partials(`${org.id}/${ids.processing}.zip`)).toHaveLength(1);
    // The store works again: the sweep deletes what the cancel could not, and clears storage_path.
    await makeWorker(stores.filesystem.storage).sweep();
    expect(await stores.filesystem.partials(`${org.id}/${ids.processing}.zip`)).toEqual([]);
    expect((await job(ids.processing!)).storage_path).toBeNull();
    expect((await job(ids.completed!)).storage_path).not.toBeNull();
    await partial.abort();
  });

  it('a worker that dies mid-job: its lease runs out, another worker takes the job over and completes it; only the archive is left', async () => {
    const ctx = await submitted();
    const hanging = faulty(stores.filesystem.storage, 'hang');
    const dead = makeWorker(hanging, { leaseMs: 300 });
    // Frozen: it renews nothing any more.
    vi.spyOn(dead, 'renew').mockResolvedValue(true);
    const deadRun = dead.runOnce();
    await vi.waitFor(async () => expect(await stores.filesystem.partials(ctx.storageKey)).toHaveLength(1), { timeout: 10_000 });
    await sleep(400);
    const survivor = makeWorker(stores.filesystem.storage);
    expect(await survivor.runOnce()).toBe(ctx.id);
    expect(await job(ctx.id)).toMatchObject({ status: 'completed', attempts: 2 });
    expect(await stores.filesystem.partials(ctx.storageKey)).toEqual([]);
    expect(await stores.filesystem.storage.exists(ctx.storageKey)).toBe(true);
    // The dead worker comes back to a job that is not its own: it changes nothing.
    hanging.release();
    await deadRun;
    expect(await job(ctx.id)).toMatchObject({ status: 'completed', attempts: 2 });
    expect(await stores.filesystem.storage.exists(ctx.storageKey)).toBe(true);
  });

  it('a worker that dies on the last attempt: the sweep fails the job (EXPORT_INTERRUPTED), deletes its partial upload, frees the slot', async () => {
    const ctx = await submitted();
    const hanging = faulty(stores.filesystem.storage, 'hang');
    const dead = makeWorker(hanging, { leaseMs: 300, maxAttempts: 1 });
    vi.spyOn(dead, 'renew').mockResolvedValue(true);
    const deadRun = dead.runOnce();
    await vi.waitFor(async () => expect(await stores.filesystem.partials(ctx.storageKey)).toHaveLength(1), { timeout: 10_000 });
    await sleep(400);
    const sweeper = makeWorker(stores.filesystem.storage, { maxAttempts: 1 });
    expect(await sweeper.runOnce()).toBeNull();
    expect(await sweeper.sweep()).toMatchObject({ failed: 1 });
    await expectFailedCleanly(sweeper, stores.filesystem, ctx, 'EXPORT_INTERRUPTED', 1);
    hanging.release();
    await deadRun;
    expect(await job(ctx.id)).toMatchObject({ status: 'failed', error_code: 'EXPORT_INTERRUPTED' });
  });
});
