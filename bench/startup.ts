// npm run bench:startup — the compiled server as `npm start` runs it (with the node arguments of the
// start script; run `npm run build` first): time from process start to the first 200 of GET /v1/reference/countries
// and the process's RSS once it answers, on the embedded database (a fresh data directory: first
// start; the same directory again: restart) and on PostgreSQL (a new database, then a restart);
// and the time `lcf --help` takes, run by node and as the README runs it (`npx lcf`). Each figure is the median of RUNS (default 3) runs,
// with the fastest and slowest run in brackets.
// IDLE_SECONDS=90 adds the RSS of one restart of each after that long without requests: V8 gives back
// the young generation and start-up garbage only once a server has been idle for a while.
// COMPARE=<another checkout, built> measures that build too, in the same runs, one after the other: on a
// shared machine the same build's figures move by 10-30 % within an hour, so builds are compared this way.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, ROOT, startCommandOf } from '../test/support/process.ts';
import { freshPostgres, percentile } from './support.ts';

const RUNS = Number(process.env.RUNS ?? 3);
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 0);
type Sample = { ms: number; rss: number };
const BUILDS = [ROOT, ...(process.env.COMPARE ? [path.resolve(process.env.COMPARE)] : [])];
/** Each build's `npm start` command, read once, outside the timed starts. */
const startCommands = new Map(BUILDS.map((root) => [root, startCommandOf(root)]));
for (const root of BUILDS) {
  if (!existsSync(path.join(root, 'dist/main.js'))) {
    console.error(`bench:startup measures the build: run \`npm run build\` in ${root} first`);
    process.exit(1);
  }
}

/** Resident set of a process in MB, from /proc (Linux). */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

async function start(root: string, env: Record<string, string>, idleSeconds = 0): Promise<Sample> {
  const port = await freePort();
  const started = performance.now();
  const start = startCommands.get(root)!;
  const child = spawn(start.command, start.args, {
    cwd: root,
    env: { ...process.env, ...start.env, PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: 'inherit',
  });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/v1/reference/countries`).then(
        (r) => r.status === 200,
        () => false,
      );
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

async function commandMs(root: string, command: string, args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: root, stdio: 'ignore' });
  const code = await new Promise((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}`);
  return performance.now() - started;
}

const samples: Record<string, Sample[][]> = {};
const add = (build: number, name: string, sample: Sample) => (samples[name] ??= BUILDS.map(() => []))[build]!.push(sample);

for (let run = 0; run < RUNS; run++) {
  for (const [build, root] of BUILDS.entries()) {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-startup-'));
    const env = { DATA_DIR: dataDir, DATABASE_URL: '' };
    try {
      add(build, 'PGlite, first start (fresh data directory)', await start(root, env));
      add(build, 'PGlite, restart (same data directory)', await start(root, env));
      const db = await freshPostgres();
      try {
        add(build, 'PostgreSQL, first start (new database)', await start(root, { ...env, DATABASE_URL: db.url }));
        add(build, 'PostgreSQL, restart', await start(root, { ...env, DATABASE_URL: db.url }));
        if (IDLE_SECONDS && run === 0) {
          add(build, `PGlite, restart, RSS after ${IDLE_SECONDS} s idle`, await start(root, env, IDLE_SECONDS));
          add(
            build,
            `PostgreSQL, restart, RSS after ${IDLE_SECONDS} s idle`,
            await start(root, { ...env, DATABASE_URL: db.url }, IDLE_SECONDS),
          );
        }
      } finally {
        await db.drop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
    add(build, 'node bin/lcf.js --help', {
      ms: await commandMs(root, process.execPath, [path.join(root, 'bin/lcf.js'), '--help']),
      rss: 0,
    });
    add(build, 'npx lcf --help', { ms: await commandMs(root, 'npx', ['lcf', '--help']), rss: 0 });
  }
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);
/** Median, then the range of the runs: a target is met when the slowest run meets it, not the median alone. */
const figure = (list: Sample[]) => {
  const ms = list.map((s) => s.ms);
  const range = list.length > 1 ? ` (${seconds(Math.min(...ms))}-${seconds(Math.max(...ms))})` : '';
  return `${seconds(percentile(ms, 50))} s${range}${
    list[0]!.rss
      ? `, RSS ${Math.round(
          percentile(
            list.map((s) => s.rss),
            50,
          ),
        )} MB`
      : ''
  }`;
};
if (BUILDS.length > 1) console.log(`${''.padEnd(44)} ${BUILDS.map((root) => root.padEnd(34)).join(' ')}`);
for (const [name, lists] of Object.entries(samples))
  console.log(`${name.padEnd(44)} ${lists.map((list) => figure(list).padEnd(34)).join(' ')}`.trimEnd());
