// npm run bench:startup — the compiled server as `npm start` runs it (with the node arguments of the
// start script; run `npm run build` first): time from process start to the first 200 of GET /v1/reference/countries
// and the process's RSS once it answers, on the embedded database (a fresh data directory: first
// start; the same directory again: restart) and on PostgreSQL (a new database, then a restart);
// and the time `lcf --help` takes, run by node and as the README runs it (`npx lcf`). Each figure is the median of RUNS (default 3) runs.
// IDLE_SECONDS=90 adds the RSS of one restart of each after that long without requests: V8 gives back
// the young generation and start-up garbage only once a server has been idle for a while.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, ROOT, START_ARGS } from '../test/support/process.ts';
import { freshPostgres, percentile } from './support.ts';

const RUNS = Number(process.env.RUNS ?? 3);
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 0);
type Sample = { ms: number; rss: number };
const SERVER = path.join(ROOT, 'dist/main.js');
if (!existsSync(SERVER)) {
  console.error('bench:startup measures the build: run `npm run build` first');
  process.exit(1);
}

/** Resident set of a process in MB, from /proc (Linux). */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

async function start(env: Record<string, string>, idleSeconds = 0): Promise<Sample> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, START_ARGS, {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: 'inherit',
  });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/v1/reference/countries`).then((r) => r.status === 200, () => false);
      if (ok) {
        const ms = performance.now() - started;
        await new Promise((r) => setTimeout(r, idleSeconds * 1000));
        return { ms, rss: await rssMb(child.pid!) };
      }
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

async function commandMs(command: string, args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: ROOT, stdio: 'ignore' });
  const code = await new Promise((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}`);
  return performance.now() - started;
}

const samples: Record<string, Sample[]> = {};
const add = (name: string, sample: Sample) => (samples[name] ??= []).push(sample);

for (let run = 0; run < RUNS; run++) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-startup-'));
  const env = { DATA_DIR: dataDir, DATABASE_URL: '' };
  try {
    add('PGlite, first start (fresh data directory)', await start(env));
    add('PGlite, restart (same data directory)', await start(env));
    const db = await freshPostgres();
    try {
      add('PostgreSQL, first start (new database)', await start({ ...env, DATABASE_URL: db.url }));
      add('PostgreSQL, restart', await start({ ...env, DATABASE_URL: db.url }));
      if (IDLE_SECONDS && run === 0) {
        add(`PGlite, restart, RSS after ${IDLE_SECONDS} s idle`, await start(env, IDLE_SECONDS));
        add(`PostgreSQL, restart, RSS after ${IDLE_SECONDS} s idle`, await start({ ...env, DATABASE_URL: db.url }, IDLE_SECONDS));
      }
    } finally {
      await db.drop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  add('node bin/lcf.js --help', { ms: await commandMs(process.execPath, [path.join(ROOT, 'bin/lcf.js'), '--help']), rss: 0 });
  add('npx lcf --help', { ms: await commandMs('npx', ['lcf', '--help']), rss: 0 });
}

for (const [name, list] of Object.entries(samples)) {
  const seconds = (percentile(list.map((s) => s.ms), 50) / 1000).toFixed(2);
  const rss = list[0]!.rss ? `, RSS ${Math.round(percentile(list.map((s) => s.rss), 50))} MB` : '';
  console.log(`${name.padEnd(44)} ${seconds} s${rss}`);
}
