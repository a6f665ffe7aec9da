import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * How `npm start` of the checkout at `root` starts its build, without npm: its scripts/start.sh, which picks the
 * flags of the database DATABASE_URL names; in an older checkout without one (bench:startup's COMPARE), the node
 * command line of its start script. `nodeArgs` come after the start flags (a later flag wins); `entry` replaces
 * dist/main.js (the benches' runs of the sources).
 */
export function startCommandOf(
  root: string,
  { nodeArgs = [], entry }: { nodeArgs?: string[]; entry?: string } = {},
): { command: string; args: string[]; env: Record<string, string> } {
  if (existsSync(path.join(root, 'scripts/start.sh'))) {
    return {
      command: 'sh',
      args: ['scripts/start.sh'],
      // The node the tests run, as npm puts its own first on PATH.
      env: {
        PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
        LCF_NODE_ARGS: nodeArgs.join(' '),
        ...(entry ? { LCF_ENTRY: entry } : {}),
      },
    };
  }
  const script = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const args = script
    .replace(/^exec\s+/, '')
    .split(/\s+/)
    .slice(1);
  return { command: process.execPath, args: [...args.filter((a) => a.startsWith('--')), ...nodeArgs, entry ?? 'dist/main.js'], env: {} };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs the `lcf` command from the sources under test (bin/lcf.js runs the compiled dist/), returning its exit code and output. */
export function runCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/**
 * Starts the server from the sources under test (`npm run dev`), or with `compiled` from their build
 * in dist/ (`npm start`), and waits until it answers on /healthz.
 */
export async function startServerProcess(
  env: Record<string, string>,
  { compiled = false } = {},
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const port = await freePort();
  const start = compiled ? startCommandOf(ROOT) : { command: process.execPath, args: ['--import', 'tsx', 'src/main.ts'], env: {} };
  const child = spawn(start.command, start.args, {
    cwd: ROOT,
    env: { ...process.env, ...start.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${output}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { child, url, output: () => output };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start: ${output}`);
}

export function exitOf(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
