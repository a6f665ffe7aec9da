import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, ROOT, startServerProcess } from '../support/process.ts';
import { openTestDatabase, TEST_DATABASE_KIND } from '../support/database.ts';
import { TEST_ADMIN_TOKEN, UNLIMITED } from '../support/test-app.ts';
import { ADMIN_BASE } from '../../src/admin/routes.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { prepareDatabase } from '../../src/reference/prepare-database.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { seedDemo } from '../../src/assets/seed-demo.ts';
import { unzipEntries } from './zip.ts';

// Kill the process writing an export (SIGKILL, no shutdown) in the middle of a large archive: after
// a restart the job completes (claimed again) and no partial ZIP is ever downloadable. On PGlite the
// server runs the worker; on PostgreSQL a separate `lcf worker` process does, with a short lease.

// PostgreSQL reads an organisation with COPY in about a second per 80 000 rows: a larger estate keeps it writing long enough.
const ASSETS = TEST_DATABASE_KIND === 'postgres' ? 60_000 : 12_000;
const LEASE_SECONDS = 3;
const JOBS = '/v1/org/export/jobs';

describe(`an export survives its killed worker on ${TEST_DATABASE_KIND}`, () => {
  let dataDir: string;
  let pg: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
  let server: Awaited<ReturnType<typeof startServerProcess>> | undefined;
  const workers: ChildProcess[] = [];
  let orgId: string;

  const env = () => ({
    DATA_DIR: dataDir,
    DATABASE_URL: pg?.url ?? '',
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    QUOTA_LIMITS: UNLIMITED,
    LOG_LEVEL: 'warn',
    EXPORT_LEASE_SECONDS: String(LEASE_SECONDS),
    // On PostgreSQL the servers leave exports to `lcf worker` processes.
    EXPORT_WORKER: pg ? 'off' : 'inline',
    // Each worker's health endpoint on a free port.
    WORKER_PORT: '0',
  });
  const startWorker = () => {
    const child = spawn(process.execPath, ['bin/lcf.js', 'worker'], { cwd: ROOT, env: { ...process.env, ...env() }, stdio: 'ignore' });
    workers.push(child);
    return child;
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-export-crash-'));
    // The estate is written before the server opens the database (the embedded one allows one process).
    let db: Database;
    if (TEST_DATABASE_KIND === 'postgres') db = pg = await openTestDatabase();
    else db = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'pglite') });
    await prepareDatabase(db, createLogger('silent'));
    orgId = randomUUID();
    await db.prisma.organization.create({ data: { id: orgId, name: 'Crash Export Org', plan: 'enterprise' } });
    await seedDemo(db.prisma, orgId, ASSETS, () => {}, { seed: 7 });
    if (!pg) await db.close();
  }, 180_000);
  afterAll(async () => {
    for (const child of [server?.child, ...workers]) if (child && child.exitCode === null) child.kill('SIGKILL');
    await pg?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('completes after the kill, with an archive whose hashes hold; nothing partial is downloadable meanwhile', async () => {
    server = await startServerProcess(env());
    const keyAnswer = await fetch(`${server.url}${ADMIN_BASE}/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ org_id: orgId }),
    });
    const { key } = (await keyAnswer.json()) as { key: string };
    const call = (p: string, init: RequestInit = {}) =>
      fetch(`${server!.url}${p}`, { ...init, headers: { authorization: `Bearer ${key}`, accept: 'application/json', ...init.headers } });
    const jobOf = async (id: string) => (await (await call(`${JOBS}/${id}`)).json()) as Record<string, any>;

    let worker = pg ? startWorker() : server.child;
    const submitted = await call(JOBS, { method: 'POST' });
    expect(submitted.status).toBe(202);
    const { job_id: id } = (await submitted.json()) as { job_id: string };

    // Kill once the archive is being written (claimed, then a moment later).
    for (let job = await jobOf(id); job.status !== 'processing'; job = await jobOf(id)) {
      expect(job.status).not.toBe('completed');
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 300));
    worker.kill('SIGKILL');
    await exitOf(worker);

    if (pg) {
      const stuck = await jobOf(id);
      expect(stuck.status, 'the export finished before the kill: make the estate larger').toBe('processing');
      expect((await call(`${JOBS}/${id}/download`)).status).toBe(409);
      worker = startWorker();
    } else {
      server = await startServerProcess(env());
    }

    // Until it completes again, the download refuses (409); once it answers, the job is completed.
    let job: Record<string, any>;
    const deadline = Date.now() + 90_000;
    for (;;) {
      // The status is read first: a job not yet completed when the download answered was not completed before it either.
      job = await jobOf(id);
      const download = await call(`${JOBS}/${id}/download`);
      if (download.status === 200) job = await jobOf(id);
      if (download.status === 200 || Date.now() > deadline) break;
      expect(download.status).toBe(409);
      expect(['processing', 'pending']).toContain(job.status);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(job.status).toBe('completed');
    expect(job.total_rows).toBeGreaterThan(ASSETS * 2);

    const link = (await (await call(`${JOBS}/${id}/download`)).json()) as { signed_url: string; sha256: string; bytes: number };
    const url = new URL(link.signed_url);
    const zip = Buffer.from(await (await fetch(`${server.url}${url.pathname}${url.search}`)).arrayBuffer());
    expect(zip.length).toBe(job.bytes);
    expect(createHash('sha256').update(zip).digest('hex')).toBe(job.sha256);
    const files = await unzipEntries(zip);
    const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8'));
    for (const [name, hash] of Object.entries(manifest.file_hashes as Record<string, string>)) {
      expect(createHash('sha256').update(files.get(name)!).digest('hex'), name).toBe(hash);
    }
    expect(manifest.record_counts.assets).toBe(ASSETS);
    // Only the finished archive is left in storage: the killed attempt's partial upload is gone.
    expect(await readdir(path.join(dataDir, 'exports', orgId))).toEqual([`${id}.zip`]);
  }, 240_000);
});
