import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exitOf, startServerProcess } from '../support/process.ts';
import { openTestDatabase, TEST_DATABASE_KIND } from '../support/database.ts';
import { TEST_ADMIN_TOKEN, UNLIMITED } from '../support/test-app.ts';

type Server = Awaited<ReturnType<typeof startServerProcess>>;

/**
 * Servers as operators run them, without CERT_SIGNING_KEY, SECRETS_KEY or PUBLIC_BASE_URL: on PostgreSQL two
 * instances with data directories of their own behind one database, on the embedded database one
 * instance restarted. Each verifies the other's certificates.
 */
describe(`certificate keys across server processes on ${TEST_DATABASE_KIND}`, () => {
  const servers: Server[] = [];
  const dirs: string[] = [];
  let db: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await db?.close();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  async function start(dataDir: string): Promise<Server> {
    const server = await startServerProcess({
      DATA_DIR: dataDir,
      DATABASE_URL: db?.url ?? '',
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      QUOTA_LIMITS: UNLIMITED,
      CERT_SIGNING_KEY: '',
      SECRETS_KEY: '',
      PUBLIC_BASE_URL: '',
      ALLOWED_HOSTS: '',
    });
    servers.push(server);
    return server;
  }
  const newDataDir = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lcf-keys-proc-'));
    dirs.push(dir);
    return dir;
  };
  async function call(server: Server, pathname: string, init: { method?: string; body?: unknown; bearer?: string; accept?: string } = {}) {
    const res = await fetch(`${server.url}${pathname}`, {
      method: init.method ?? 'GET',
      headers: {
        'content-type': 'application/json',
        accept: init.accept ?? 'application/json',
        ...(init.bearer ? { authorization: `Bearer ${init.bearer}` } : {}),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, body: await res.json() };
  }
  async function issueOn(server: Server, key: string, model: string) {
    const footprint = await call(server, `/v1/footprint?brand=Dell&model=${encodeURIComponent(model)}&country=DE`, { bearer: key });
    expect(footprint.status).toBe(200);
    const issued = await call(server, '/v1/certificate', {
      method: 'POST',
      bearer: key,
      body: { calculation_id: footprint.body.calculation_id },
    });
    expect(issued.status).toBe(200);
    return issued.body as { certificate_number: string; verify_url: string };
  }
  const verdictOn = async (server: Server, number: string) => (await call(server, `/verify/${number}`)).body;
  /** The JSON log lines a server wrote whose message starts with `start`. */
  const logLines = (server: Server, start: string) =>
    server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; [field: string]: unknown })
      .filter((line) => line.msg.startsWith(start));

  it('signs and verifies with one key set: every instance verifies every other instance’s certificates', async () => {
    if (TEST_DATABASE_KIND === 'postgres') db = await openTestDatabase();
    const first = await start(await newDataDir());
    const org = (
      await call(first, '/admin/v1/orgs', { method: 'POST', bearer: TEST_ADMIN_TOKEN, body: { name: 'Balanced Ltd', plan: 'pro' } })
    ).body;
    const { key } = (await call(first, '/admin/v1/keys', { method: 'POST', bearer: TEST_ADMIN_TOKEN, body: { org_id: org.id } })).body;
    const byFirst = await issueOn(first, key, 'Latitude 5400');
    // The link names the server's own listen address; the server said at start why.
    expect(byFirst.verify_url).toBe(`http://127.0.0.1:${new URL(first.url).port}/verify/${byFirst.certificate_number}`);
    const [warning, ...more] = logLines(first, 'PUBLIC_BASE_URL is not set');
    expect(more).toEqual([]);
    expect(warning).toMatchObject({ level: 40, other_hosts_link_to: `http://127.0.0.1:${new URL(first.url).port}` });
    expect(logLines(first, 'SECRETS_KEY is not set')).toHaveLength(TEST_DATABASE_KIND === 'postgres' ? 1 : 0);

    let second: Server;
    if (TEST_DATABASE_KIND === 'postgres') {
      // Another instance behind the same load balancer: its own data directory, the same database.
      second = await start(await newDataDir());
    } else {
      // The embedded database belongs to one process: the same instance restarted.
      first.child.kill('SIGTERM');
      expect(await exitOf(first.child)).toBe(0);
      second = await start(dirs[0]!);
    }
    const bySecond = await issueOn(second, key, 'Latitude 7420');
    const running = TEST_DATABASE_KIND === 'postgres' ? [first, second] : [second];
    for (const server of running) {
      for (const certificate of [byFirst, bySecond])
        expect(await verdictOn(server, certificate.certificate_number)).toMatchObject({ verdict: 'valid' });
    }
    const jwks = await Promise.all(running.map(async (server) => (await call(server, '/.well-known/jwks.json')).body));
    expect(jwks[0].keys).toHaveLength(1);
    for (const other of jwks) expect(other).toEqual(jwks[0]);
  });
});
