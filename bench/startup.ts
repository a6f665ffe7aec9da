// npm run bench:startup — time from process start to the first 200 of GET /v1/reference/countries
// with the embedded database, on a fresh data directory (first start: migrations, reference data,
// sandbox) and again on the same directory (a restart).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, ROOT } from '../test/support/process.ts';

async function timeToFirstAnswer(dataDir: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' },
    stdio: 'inherit',
  });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/v1/reference/countries`).then((r) => r.status === 200, () => false);
      if (ok) return performance.now() - started;
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-startup-'));
try {
  const first = await timeToFirstAnswer(dataDir);
  const restart = await timeToFirstAnswer(dataDir);
  console.log(`first start (fresh data directory): ${(first / 1000).toFixed(2)} s`);
  console.log(`restart (same data directory):      ${(restart / 1000).toFixed(2)} s`);
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
