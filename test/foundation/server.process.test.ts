import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, runCli, startServerProcess, ROOT } from '../support/process.ts';
import { openTestDatabase, TEST_DATABASE_KIND } from '../support/database.ts';
import { spawn } from 'node:child_process';
import { request } from 'node:http';

// The service as a user runs it: `npm start`, the `lcf` CLI against it, and SIGTERM.
const SHUTDOWN_TIMEOUT_MS = 30_000;

describe(`server process and lcf CLI on ${TEST_DATABASE_KIND}`, () => {
  let dataDir: string;
  let server: Awaited<ReturnType<typeof startServerProcess>>;
  let db: Awaited<ReturnType<typeof openTestDatabase>> | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-proc-'));
    if (TEST_DATABASE_KIND === 'postgres') db = await openTestDatabase();
    server = await startServerProcess({
      DATA_DIR: dataDir,
      ...(db?.url ? { DATABASE_URL: db.url } : { DATABASE_URL: '' }),
      ADMIN_TOKEN: '',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    });
  });
  afterAll(async () => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await db?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const cli = (...args: string[]) => runCli(args, { LCF_URL: server.url, DATA_DIR: dataDir, ADMIN_TOKEN: '' });

  it('serves the reference lists and writes a private admin token', async () => {
    const res = await fetch(`${server.url}/v1/reference/countries`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { total: number }).total).toBeGreaterThanOrEqual(266);
    const tokenFile = path.join(dataDir, 'admin-token');
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    expect((await readFile(tokenFile, 'utf8')).trim()).toMatch(/^[\w-]{43}$/);
  });

  it('creates an organisation and keys, and revokes a key, through `lcf admin`', async () => {
    const org = await cli('admin', 'org', 'create', '--name', 'Acme ITAD', '--plan', 'business', '--json');
    expect(org.code, org.stderr).toBe(0);
    const orgJson = JSON.parse(org.stdout);
    expect(Object.keys(orgJson)).toEqual(['id', 'name', 'plan']);
    expect(orgJson).toMatchObject({ name: 'Acme ITAD', plan: 'business' });

    const key = await cli('admin', 'key', 'create', '--org', orgJson.id, '--test', '--bi', '--json');
    expect(key.code, key.stderr).toBe(0);
    const keyJson = JSON.parse(key.stdout);
    expect(Object.keys(keyJson)).toEqual(['id', 'key', 'prefix']);
    expect(keyJson.key).toMatch(/^svc_test_/);

    const graphql = (k: string) =>
      fetch(`${server.url}/v1/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${k}` },
        body: JSON.stringify({ query: '{ organization { name plan } }' }),
      });
    expect((await graphql(keyJson.key)).status).toBe(200);

    const revoke = await cli('admin', 'key', 'revoke', keyJson.id);
    expect(revoke.code, revoke.stderr).toBe(0);
    const after = await graphql(keyJson.key);
    expect(after.status).toBe(401);
  });

  it('rejects bad CLI arguments with one line and exit code 2', async () => {
    for (const args of [
      ['admin', 'org', 'create', '--plan', 'pro'],
      ['admin', 'org', 'create', '--name', 'X', '--plan', 'gold'],
      ['admin', 'key', 'create', '--org', 'not-a-uuid'],
      ['admin', 'key', 'revoke'],
      ['admin', 'frobnicate'],
      ['admin', 'org', 'create', '--bogus'],
    ]) {
      const result = await cli(...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });

  it('reports an unknown organisation from the server with exit code 1', async () => {
    const result = await cli('admin', 'key', 'create', '--org', '00000000-0000-4000-8000-000000000000');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/404/);
  });

  it('finishes in-flight requests on SIGTERM, also those whose clients went away, and exits 0 without waiting for the timeout', async () => {
    const org = JSON.parse((await cli('admin', 'org', 'create', '--name', 'Shutdown', '--plan', 'enterprise', '--json')).stdout);
    const { key } = JSON.parse((await cli('admin', 'key', 'create', '--org', org.id, '--json')).stdout);
    // Batches of 100 that store their calculations, each on its own connection, which its client
    // closes once the server is busy with them (the first has been answered).
    const body = JSON.stringify({
      products: Array.from({ length: 100 }, (_, i) => ({
        category: 'laptop',
        brand: 'Dell',
        model: `Latitude 54${i % 50}`,
        country: 'DE',
      })),
    });
    const batches = Array.from({ length: 10 }, () => {
      const req = request(`${server.url}/v1/footprint/batch`, {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${key}` },
      });
      req.on('error', () => {});
      req.end(body);
      return req;
    });
    const answered = () =>
      server
        .output()
        .split('\n')
        .filter((line) => line.includes('"path":"/v1/footprint/batch"')).length;
    while (answered() === 0) await new Promise((r) => setTimeout(r, 5));
    const inFlight = fetch(`${server.url}/v1/reference/countries`);
    batches.forEach((req) => req.destroy());
    const signalled = performance.now();
    server.child.kill('SIGTERM');
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await exitOf(server.child)).toBe(0);
    // A kept-alive connection does not hold the shutdown until SHUTDOWN_TIMEOUT_MS.
    expect(performance.now() - signalled).toBeLessThan(SHUTDOWN_TIMEOUT_MS / 2);
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // Each batch the server had received ran to its end with the database still open: no 500, nothing
    // logged as an error. (A connection still in the listen queue when the server stopped listening was never accepted.)
    const statuses = lines.filter((line) => line.path === '/v1/footprint/batch').map((line) => line.status);
    expect(statuses.length).toBeGreaterThan(1);
    expect(statuses).toEqual(statuses.map(() => 200));
    expect(lines.filter((line) => (line.level as number) >= 50)).toEqual([]);
    expect(lines.at(-1)?.msg).toBe('stopped');
  });
});

describe('start-up configuration errors', () => {
  it('exits 1 with a message naming the variable', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env: { ...process.env, PORT: 'eighty' } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    expect(await exitOf(child)).toBe(1);
    expect(stderr.trim()).toBe('lcf: invalid environment variable PORT: Invalid input: expected number, received NaN');
  });
});
