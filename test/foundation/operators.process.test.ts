import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/process.ts';
import { openTestDatabase, TEST_DATABASE_KIND } from '../support/database.ts';
import { TEST_ADMIN_TOKEN } from '../support/test-app.ts';

// The production commands as README.md and docs/operations.md give them, started the way a supervisor
// does (through npm), stopped the way it does (a signal to the process it started).

interface Started {
  child: ChildProcess;
  /** Every line written so far, stdout and stderr apart. */
  stdout: () => string[];
  stderr: () => string[];
  /** The first JSON log line whose msg is `msg`, once written. */
  line: (msg: string, timeoutMs?: number) => Promise<Record<string, unknown>>;
}

/** Runs `command` with npm's own launcher (npm start, npx lcf …) in a process group of its own. */
function launch(command: string, args: string[], env: Record<string, string>): Started {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'info', ...env }, detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const lines = (text: string) => text.split('\n').filter(Boolean);
  const line = async (msg: string, timeoutMs = 60_000) => {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      for (const text of lines(stdout)) {
        const entry = JSON.parse(text.startsWith('{') ? text : 'null') as Record<string, unknown> | null;
        if (entry?.msg === msg) return entry;
      }
    }
    throw new Error(`no "${msg}" line: ${stdout}${stderr}`);
  };
  return { child, stdout: () => lines(stdout), stderr: () => lines(stderr), line };
}

/** Ends what is left of a launched command's process group (npm, its shell, node). */
function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // The group has ended.
  }
}

const answers = (url: string) =>
  fetch(url).then(
    (r) => r.status,
    () => 0,
  );
const stopped = async (url: string) => {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100)))
    if ((await answers(url)) === 0) return true;
  return false;
};
// npm writes its own banner (`> lcf@1.0.0 start`) to stdout; the service's lines are the JSON ones.
const serviceLines = (all: string[]) => all.filter((l) => !l.startsWith('>') && l.trim() !== '');

describe('npm start, as a supervisor runs it', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-operators-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('logs the bound address and the public URL, writes only JSON, and stops with the node process on SIGTERM to npm', async () => {
    const server = launch('npm', ['start'], {
      DATA_DIR: path.join(dataDir, 'a'),
      PORT: '0',
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: 'https://lcf.example.com/',
    });
    try {
      const listening = await server.line('listening');
      expect(listening.address).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(listening.address).not.toBe('127.0.0.1:0');
      expect(listening.url).toBe('https://lcf.example.com/v1');
      const base = `http://${listening.address as string}`;
      expect(await answers(`${base}/healthz`)).toBe(200);

      process.kill(server.child.pid!, 'SIGTERM');
      expect(await stopped(`${base}/healthz`)).toBe(true);
      await server.line('stopped', 20_000);
      for (const text of serviceLines(server.stdout())) expect(() => JSON.parse(text), text).not.toThrow();
      expect(server.stderr()).toEqual([]);
    } finally {
      killGroup(server.child);
    }
  }, 120_000);

  it('stops when npm itself is killed (SIGKILL), instead of serving on as an orphan', async () => {
    const server = launch('npm', ['start'], { DATA_DIR: path.join(dataDir, 'b'), PORT: '0', HOST: '127.0.0.1' });
    try {
      const listening = await server.line('listening');
      expect(listening.url).toBe(`http://127.0.0.1:${(listening.address as string).split(':')[1]}/v1`);
      const base = `http://${listening.address as string}`;
      server.child.kill('SIGKILL');
      expect(await stopped(`${base}/healthz`)).toBe(true);
      expect((await server.line('shutting down: finishing in-flight requests')).reason).toBe('parent exited');
    } finally {
      killGroup(server.child);
    }
  }, 120_000);
});

describe.skipIf(TEST_DATABASE_KIND !== 'postgres')('npx lcf worker, as a supervisor runs it', () => {
  let pg: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeAll(async () => {
    pg = await openTestDatabase();
  }, 60_000);
  afterAll(async () => {
    await pg?.close();
  });

  it('answers health, readiness and metrics like a server, and stops on SIGTERM to npx', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-worker-'));
    const worker = launch('npx', ['lcf', 'worker'], {
      DATA_DIR: dataDir,
      DATABASE_URL: pg.url!,
      WORKER_PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    });
    try {
      const started = await worker.line('worker started');
      const base = `http://${started.address as string}`;
      expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
      expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'ready', database: 'postgres' });
      const refused = await fetch(`${base}/metrics`);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { code: string }).code).toBe('INVALID_ADMIN_TOKEN');
      const metrics = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
      expect(metrics.status).toBe(200);
      const text = await metrics.text();
      expect(text).toMatch(/^lcf_queue_depth\{queue="export_jobs",status="pending"\} \d+$/m);
      expect(text).toMatch(/^lcf_db_pool_connections \d+$/m);
      const wrongMethod = await fetch(`${base}/healthz`, { method: 'POST' });
      expect([wrongMethod.status, wrongMethod.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
      expect((await fetch(`${base}/nothing`)).status).toBe(404);

      process.kill(worker.child.pid!, 'SIGTERM');
      await worker.line('worker stopped', 20_000);
      expect(await stopped(`${base}/healthz`)).toBe(true);
      for (const text of serviceLines(worker.stdout())) expect(() => JSON.parse(text), text).not.toThrow();
      expect(worker.stderr()).toEqual([]);
    } finally {
      killGroup(worker.child);
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
