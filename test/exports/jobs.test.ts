import { createHash, randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { ExportWorker } from '../../src/exports/worker.ts';
import { EXPORT_TABLES } from '../../src/exports/tables.ts';
import { EXPORT_INTERVAL_SECONDS } from '../../src/auth/plan-rules.ts';
import { unzipEntries } from './zip.ts';

// The export job contract (spec 2.11, 3, 4.6, 7, 8): submission, idempotency, both limits under
// concurrency, every transition of the state table, download (JSON and 302) and ownership.

const DAY = 86_400_000;
const JOBS = '/v1/org/export/jobs';

describe(`organisation export jobs on ${TEST_DATABASE_KIND}`, () => {
  let t: TestApp;
  let worker: ExportWorker;
  const auth = (key: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...extra });
  const submit = (key: string, body?: unknown, headers: Record<string, string> = {}) =>
    t.json(JOBS, {
      method: 'POST',
      headers: auth(key, { 'content-type': 'application/json', ...headers }),
      body: JSON.stringify(body ?? {}),
    });
  const getJob = (key: string, id: string) => t.json(`${JOBS}/${id}`, { headers: auth(key) });
  const cancel = (key: string, id: string) => t.json(`${JOBS}/${id}`, { method: 'DELETE', headers: auth(key) });
  const download = (key: string, id: string, accept = 'application/json') =>
    t.request(`${JOBS}/${id}/download`, { headers: auth(key, { accept }) });
  const db = () => t.app.services.db.prisma;
  /** A fresh organisation with a live key: each test its own, so the limits of one do not touch another. */
  async function newOrg(plan = 'enterprise') {
    const org = await t.createOrg(plan, `Export ${plan} ${randomUUID().slice(0, 6)}`);
    const { key } = await t.createKey(org.id);
    return { org, key };
  }
  /** A job row written directly (states and times a test needs), shaped as submissions write them. */
  function insertJob(
    orgId: string,
    data: { status: 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled' | 'expired'; created_at?: Date; error_code?: string },
  ) {
    const id = randomUUID();
    return db().exportJob.create({
      data: { id, org_id: orgId, scope: { include: [...EXPORT_TABLES], exclude: [] }, storage_path: `${orgId}/${id}.zip`, ...data },
    });
  }
  /** Runs the worker until it has run job `id` (jobs other tests left pending are run on the way, oldest first). */
  async function runUntil(id: string) {
    for (let ran = await worker.runOnce(); ran !== id; ran = await worker.runOnce()) {
      if (ran === null) throw new Error(`job ${id} was never claimed`);
    }
  }
  async function completedJob(plan = 'enterprise') {
    const { org, key } = await newOrg(plan);
    const submitted = await submit(key);
    expect(submitted.status).toBe(202);
    await runUntil(submitted.body.job_id);
    return { org, key, id: submitted.body.job_id as string };
  }

  beforeAll(async () => {
    t = await createTestApp();
    const s = t.app.services;
    worker = new ExportWorker({ db: s.db, scopes: s.scopes, storage: s.exportStorage, log: s.log, softwareVersion: '1.0.0' });
  });
  afterAll(() => t.close());

  it("submit answers 202 with the submit response; the job starts pending with the default scope of all 23 tables (the spec's 22 and contractual_instruments)", async () => {
    const { org, key } = await newOrg();
    const { status, body } = await submit(key);
    expect(status).toBe(202);
    expect(Object.keys(body).sort()).toEqual(['created_at', 'download_url', 'job_id', 'poll_url', 'status']);
    expect(body).toMatchObject({ status: 'pending', poll_url: `${JOBS}/${body.job_id}`, download_url: `${JOBS}/${body.job_id}/download` });
    expect(Math.abs(Date.parse(body.created_at) - Date.now())).toBeLessThan(60_000);

    const job = await getJob(key, body.job_id);
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({
      id: body.job_id,
      job_id: body.job_id,
      status: 'pending',
      format: 'zip',
      scope: { include: [...EXPORT_TABLES], exclude: [] },
      total_tables: 23,
      total_rows: null,
      bytes: null,
      sha256: null,
      manifest: null,
      error_code: null,
      error_message: null,
      started_at: null,
      completed_at: null,
      expires_at: null,
    });
    const audit = await db().auditLog.findMany({ where: { org_id: org.id, event: 'org.export.job.submitted' } });
    expect(audit).toHaveLength(1);
  });

  it('scope: include then exclude; an unknown table is 400 naming it; format other than zip is 400', async () => {
    const { key } = await newOrg();
    const bad = await submit(key, { scope: { include: ['assets', 'invoices'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_PARAMETER');
    expect(bad.body.details).toContain('scope.include[1]');
    expect(bad.body.details).toContain('invoices');
    const badExclude = await submit(key, { scope: { exclude: ['nope'] } });
    expect(badExclude.status).toBe(400);
    expect(badExclude.body.details).toContain('scope.exclude[0]');
    expect((await submit(key, { format: 'tar' })).status).toBe(400);

    const ok = await submit(key, { scope: { include: ['assets', 'calculations', 'audit_log'], exclude: ['audit_log'] } });
    expect(ok.status).toBe(202);
    const job = await getJob(key, ok.body.job_id);
    expect(job.body.scope).toEqual({ include: ['assets', 'calculations', 'audit_log'], exclude: ['audit_log'] });
    expect(job.body.total_tables).toBe(2);
  });

  it('10 parallel submissions make exactly one job; the other 9 are 429 TOO_MANY_ACTIVE_EXPORTS with the rate-limit body', async () => {
    const { org, key } = await newOrg();
    const answers = await Promise.all(Array.from({ length: 10 }, () => submit(key)));
    expect(answers.filter((a) => a.status === 202)).toHaveLength(1);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(9);
    for (const r of refused) {
      expect(Object.keys(r.body).sort()).toEqual(['code', 'error', 'message', 'retry_after_seconds']);
      expect(r.body.code).toBe('TOO_MANY_ACTIVE_EXPORTS');
      expect(r.headers.get('retry-after')).toBe(String(r.body.retry_after_seconds));
      // The export allowance's own headers; X-RateLimit-* stay the request quota's.
      expect(r.headers.get('x-export-limit')).toBe('1');
      expect(r.headers.get('x-export-remaining')).toBe('0');
      expect(Number(r.headers.get('x-export-reset')) - Date.now() / 1000).toBeGreaterThan(0);
      expect(Number(r.headers.get('x-ratelimit-reset')) % 86_400).toBe(0);
      expect(r.body.message).toContain('only one export may be active');
    }
    expect(await db().exportJob.count({ where: { org_id: org.id } })).toBe(1);
  });

  it('the one-active rule is held by the database itself (partial unique index), not only by the service', async () => {
    const { org } = await newOrg();
    await insertJob(org.id, { status: 'processing' });
    await expect(insertJob(org.id, { status: 'pending' })).rejects.toMatchObject({ code: 'P2002' });
    // Finished jobs are not active: any number may exist.
    for (const status of ['completed', 'completed', 'failed', 'cancelled', 'expired'] as const) await insertJob(org.id, { status });
    await db().exportJob.deleteMany({ where: { org_id: org.id } });
  });

  it('Idempotency-Key: 10 parallel repeats return one job; a repeat replays the submission, never 429; another scope under the key is 422', async () => {
    const { org, key } = await newOrg();
    const idem = { 'idempotency-key': `nightly-${randomUUID()}` };
    const answers = await Promise.all(Array.from({ length: 10 }, () => submit(key, {}, idem)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
    expect(new Set(answers.map((a) => a.body.job_id)).size).toBe(1);
    expect(await db().exportJob.count({ where: { org_id: org.id } })).toBe(1);
    expect((await db().exportJob.findFirstOrThrow({ where: { org_id: org.id } })).idempotency_key).toBe(idem['idempotency-key']);

    // Completed and inside the plan interval: the repeat still answers the submission (src/idempotency/), not
    // EXPORT_TOO_FREQUENT; its poll_url tells the job's state now.
    await runUntil(answers[0]!.body.job_id);
    const repeat = await submit(key, {}, idem);
    expect(repeat.status).toBe(202);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.body).toEqual(answers[0]!.body);
    expect((await t.json(repeat.body.poll_url, { headers: auth(key) })).body.status).toBe('completed');
    const other = await submit(key, { scope: { include: ['assets'] } }, idem);
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    // Without the key the interval applies.
    expect((await submit(key)).status).toBe(429);
  });

  it('an Idempotency-Key lasts 24 hours from its first use (spec 8): a repeat after that makes a new job', async () => {
    const { key } = await newOrg('enterprise');
    const idem = { 'idempotency-key': 'weekly-export' };
    const first = await submit(key, {}, idem);
    await runUntil(first.body.job_id);
    await db().exportJob.update({ where: { id: first.body.job_id }, data: { created_at: new Date(Date.now() - DAY) } });
    await db().$executeRawUnsafe(
      `UPDATE idempotency_records SET created_at = created_at - interval '24 hours', expires_at = expires_at - interval '24 hours' WHERE key = 'weekly-export'`,
    );
    const next = await submit(key, {}, idem);
    expect(next.status).toBe(202);
    expect(next.body.job_id).not.toBe(first.body.job_id);
    const long = await submit(key, {}, { 'idempotency-key': 'k'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body.details).toContain('Idempotency-Key');
  });

  it.each(['free', 'pro', 'business', 'enterprise'] as const)(
    'export frequency of the %s plan: 429 EXPORT_TOO_FREQUENT with Retry-After inside the interval, 202 after it',
    async (plan) => {
      const { org, key } = await newOrg(plan);
      const interval = EXPORT_INTERVAL_SECONDS[plan] * 1000;
      const job = await insertJob(org.id, { status: 'completed', created_at: new Date(Date.now() - interval + 120_000) });
      const refused = await submit(key);
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('EXPORT_TOO_FREQUENT');
      expect(refused.body.retry_after_seconds).toBeGreaterThan(100);
      expect(refused.body.retry_after_seconds).toBeLessThanOrEqual(120);
      expect(refused.body.message).toContain(plan);
      expect(Number(refused.headers.get('retry-after'))).toBe(refused.body.retry_after_seconds);
      await db().exportJob.update({ where: { id: job.id }, data: { created_at: new Date(Date.now() - interval - 1_000) } });
      expect((await submit(key)).status).toBe(202);
    },
  );

  it('failed and cancelled exports do not use the interval', async () => {
    const { org, key } = await newOrg('free');
    await insertJob(org.id, { status: 'failed' });
    await insertJob(org.id, { status: 'cancelled' });
    expect((await submit(key)).status).toBe(202);
  });

  it('pending -> cancelled (200, audit event); cancelling again is 409 and changes nothing', async () => {
    const { org, key } = await newOrg();
    const { body } = await submit(key);
    const cancelled = await cancel(key, body.job_id);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: body.job_id, status: 'cancelled' });
    const again = await cancel(key, body.job_id);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'EXPORT_NOT_CANCELLABLE' });
    expect(again.body.details).toContain('cancelled');
    expect(await db().auditLog.count({ where: { org_id: org.id, event: 'org.export.job.cancelled' } })).toBe(1);
    expect((await download(key, body.job_id)).status).toBe(409);
    // A cancelled job frees the slot and does not use the interval.
    expect((await submit(key)).status).toBe(202);
  });

  it('processing -> cancelled deletes the partial object', async () => {
    const { org, key } = await newOrg();
    const { body } = await submit(key);
    const job = await db().exportJob.update({
      where: { id: body.job_id },
      data: { status: 'processing', worker_id: 'elsewhere', lease_expires_at: new Date(Date.now() + 60_000) },
    });
    const upload = await t.app.services.exportStorage.open(job.storage_path!);
    await new Promise<void>((resolve, reject) =>
      upload.stream.write(Buffer.alloc(64 * 1024, 1), (error) => (error ? reject(error) : resolve())),
    );
    const orgDir = path.join(t.dataDir, 'exports', org.id);
    expect((await readdir(orgDir)).length).toBeGreaterThan(0);

    const cancelled = await cancel(key, body.job_id);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(await readdir(orgDir)).toEqual([]);
    await upload.abort();
  });

  it('completed: download with Accept: application/json answers the signed URL; otherwise 302; each writes org.export.job.downloaded', async () => {
    const { org, key, id } = await completedJob();
    const job = (await getJob(key, id)).body;
    expect(job.status).toBe('completed');
    expect(Date.parse(job.expires_at) - Date.parse(job.completed_at)).toBe(72 * 3_600_000);

    const json = await download(key, id);
    expect(json.status).toBe(200);
    expect(json.headers.get('cache-control')).toBe('no-store');
    const body = await json.json();
    expect(Object.keys(body).sort()).toEqual(['bytes', 'expires_at', 'sha256', 'signed_url']);
    expect(body).toMatchObject({ bytes: job.bytes, sha256: job.sha256 });
    expect(Math.abs(Date.parse(body.expires_at) - (Date.now() + 15 * 60_000))).toBeLessThan(60_000);

    const redirect = await download(key, id, '*/*');
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toMatch(/^http:\/\/localhost\/files\/exports\//);
    // JSON when Accept names it and not text/html: a browser that lists both gets the redirect.
    expect((await download(key, id, 'text/html, application/json')).status).toBe(302);
    expect((await download(key, id, 'application/json; charset=utf-8')).status).toBe(200);
    expect(await db().auditLog.count({ where: { org_id: org.id, event: 'org.export.job.downloaded', subject_id: id } })).toBe(4);
    expect((await cancel(key, id)).status).toBe(409);
  });

  it('the signed URL serves the archive: its bytes hash to the job sha256 and the manifest hashes match the unzipped files', async () => {
    const { key, id, org } = await completedJob();
    const base = await t.listen();
    const job = (await getJob(key, id)).body;
    const signed = await (await t.request(`${JOBS}/${id}/download`, { headers: auth(key, { accept: 'application/json' }) })).json();
    const url = new URL(signed.signed_url);
    const zip = Buffer.from(await (await fetch(`${base}${url.pathname}${url.search}`)).arrayBuffer());
    expect(zip.length).toBe(job.bytes);
    expect(createHash('sha256').update(zip).digest('hex')).toBe(job.sha256);
    const files = await unzipEntries(zip);
    const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8'));
    expect(manifest).toEqual(job.manifest);
    expect(manifest).toMatchObject({ schema_version: '1.0', org_id: org.id });
    for (const [name, hash] of Object.entries(manifest.file_hashes as Record<string, string>)) {
      expect(createHash('sha256').update(files.get(name)!).digest('hex'), name).toBe(hash);
    }
    expect(Object.values(manifest.record_counts as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(job.total_rows);
  });

  it('completed -> expired after 72 hours: shown expired at once, download 410, the sweep stores it and deletes the archive', async () => {
    const { key, id, org } = await completedJob();
    const row = await db().exportJob.update({ where: { id }, data: { expires_at: new Date(Date.now() - 1_000) } });
    expect(await t.app.services.exportStorage.exists(row.storage_path!)).toBe(true);
    expect((await getJob(key, id)).body.status).toBe('expired');
    const gone = await download(key, id);
    expect(gone.status).toBe(410);
    expect((await gone.json()).code).toBe('EXPORT_EXPIRED');
    expect((await cancel(key, id)).status).toBe(409);
    const swept = await worker.sweep();
    expect(swept.expired).toBeGreaterThanOrEqual(1);
    expect((await db().exportJob.findUniqueOrThrow({ where: { id } })).status).toBe('expired');
    expect(await t.app.services.exportStorage.exists(row.storage_path!)).toBe(false);
    expect(await db().auditLog.count({ where: { org_id: org.id, event: 'org.export.job.downloaded' } })).toBe(0);
  });

  it('pending, processing and failed jobs cannot be downloaded (409 EXPORT_NOT_COMPLETED, EXPORT_FAILED once failed)', async () => {
    const { org, key } = await newOrg();
    const { body } = await submit(key);
    expect((await download(key, body.job_id)).status).toBe(409);
    await db().exportJob.update({ where: { id: body.job_id }, data: { status: 'processing' } });
    const processing = await download(key, body.job_id);
    expect(processing.status).toBe(409);
    expect(await processing.json()).toMatchObject({ code: 'EXPORT_NOT_COMPLETED' });
    await db().exportJob.update({ where: { id: body.job_id }, data: { status: 'failed', error_code: 'EXPORT_STORAGE_WRITE_FAILED' } });
    const failed = await download(key, body.job_id);
    expect(failed.status).toBe(409);
    expect(await failed.json()).toMatchObject({ code: 'EXPORT_FAILED' });
    expect((await cancel(key, body.job_id)).status).toBe(409);
    expect(await db().auditLog.count({ where: { org_id: org.id, event: 'org.export.job.downloaded' } })).toBe(0);
  });

  it("another organisation's job answers exactly like a missing one (404) on read, cancel and download", async () => {
    const { id } = await completedJob();
    const { key: strangerKey } = await newOrg();
    const unknown = randomUUID();
    for (const call of [getJob, cancel] as const) {
      const foreign = await call(strangerKey, id);
      const missing = await call(strangerKey, unknown);
      expect(foreign.status).toBe(404);
      expect(missing.status).toBe(404);
      expect(JSON.stringify(foreign.body).replaceAll(id, 'ID')).toBe(JSON.stringify(missing.body).replaceAll(unknown, 'ID'));
    }
    const foreign = await download(strangerKey, id);
    const missing = await download(strangerKey, unknown);
    expect(foreign.status).toBe(404);
    expect((await foreign.text()).replaceAll(id, 'ID')).toBe((await missing.text()).replaceAll(unknown, 'ID'));
    expect((await getJob(strangerKey, 'not-a-uuid')).status).toBe(400);
  });

  it('the list holds the last 30 days of the organisation, most recent first, with total, limit and offset', async () => {
    const { org, key } = await newOrg();
    const now = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const job = await insertJob(org.id, { status: 'completed', created_at: new Date(now - (i + 1) * DAY) });
      ids.push(job.id);
    }
    await insertJob(org.id, { status: 'expired', created_at: new Date(now - 31 * DAY) });
    const page = await t.json(`${JOBS}?limit=2&offset=1`, { headers: auth(key) });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(page.body.jobs.map((j: { id: string }) => j.id)).toEqual(ids.slice(1, 3));
    const all = await t.json(JOBS, { headers: auth(key) });
    expect(all.body).toMatchObject({ total: 4, limit: 50, offset: 0 });
    for (const query of ['limit=0', 'limit=51', 'offset=-1', 'limit=abc']) {
      const bad = await t.json(`${JOBS}?${query}`, { headers: auth(key) });
      expect(bad.status, query).toBe(400);
    }
  });

  it('keys: 401 without one; test keys export their sandbox, never the organisation; the demo sandbox cannot export', async () => {
    expect((await t.json(JOBS)).status).toBe(401);
    expect((await t.json(JOBS, { method: 'POST' })).status).toBe(401);
    const { org, key } = await newOrg();
    const { key: testKey } = await t.createKey(org.id, { environment: 'test' });
    const live = await submit(key);
    const sandbox = await submit(testKey);
    expect(sandbox.status).toBe(202);
    expect((await getJob(testKey, live.body.job_id)).status).toBe(404);
    expect((await getJob(key, sandbox.body.job_id)).status).toBe(404);
    const sandboxJob = await db().exportJob.findUniqueOrThrow({ where: { id: sandbox.body.job_id } });
    expect(sandboxJob.org_id).not.toBe(org.id);
    const { key: demoKey } = await t.createKey(org.id, { environment: 'test', org_context: false });
    const demo = await submit(demoKey);
    expect(demo.status).toBe(403);
  });

  it('GraphQL submits, reads and cancels the same jobs', async () => {
    const { key } = await newOrg();
    const submitted = await t.graphql(
      'mutation { submitExportJob(scope: { include: ["assets"] }) { job_id status poll_url } }',
      undefined,
      key,
    );
    expect(submitted.body.errors).toBeUndefined();
    const id = submitted.body.data.submitExportJob.job_id;
    const read = await t.graphql(
      'query($id: ID!) { exportJob(id: $id) { id status scope { include exclude } total_tables } }',
      { id },
      key,
    );
    expect(read.body.data.exportJob).toEqual({ id, status: 'pending', scope: { include: ['assets'], exclude: [] }, total_tables: 1 });
    const cancelled = await t.graphql('mutation($id: ID!) { cancelExportJob(id: $id) { status } }', { id }, key);
    expect(cancelled.body.data.cancelExportJob.status).toBe('cancelled');
  });
});
