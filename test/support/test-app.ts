import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { answerClientErrors } from '../../src/plugins/request-limits.ts';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { startServices, stopServices } from '../../src/startup.ts';
import { createApp, type App } from '../../src/app.ts';
import { ADMIN_BASE } from '../../src/admin/routes.ts';
import { openTestDatabase } from './database.ts';
import type { AdapterWrapper, Database } from '../../src/db/database.ts';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/** A query string from parameters, numbers written as they print (`{ ram_gb: 16 }` → `ram_gb=16`). */
export const qs = (params: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();

export interface TestApp {
  app: App;
  dataDir: string;
  /** In-process request; `path` is relative to the server root. */
  request(path: string, init?: RequestInit & { ip?: string }): Promise<Response>;
  json<T = any>(path: string, init?: RequestInit & { ip?: string }): Promise<{ status: number; body: T; headers: Headers }>;
  graphql(query: string, variables?: Record<string, unknown>, key?: string): Promise<{ status: number; body: any }>;
  createOrg(plan?: string, name?: string): Promise<{ id: string; name: string; plan: string }>;
  createKey(
    orgId: string,
    options?: { environment?: 'live' | 'test'; bi_enabled?: boolean; org_context?: boolean },
  ): Promise<{ id: string; key: string; prefix: string }>;
  /** Serves the app over node:http on 127.0.0.1 (closed by close()); returns its base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** Quotas out of the way for tests about other things; quota tests pass their own QUOTA_LIMITS. */
export const UNLIMITED = ['free', 'pro', 'business', 'enterprise'].flatMap((p) => [`day.${p}=1000000`, `minute.${p}=1000000`]).join(',');

/**
 * The app over a fresh test database, or over `options.database` to run a second instance on the
 * same data (the caller then owns and closes that database).
 */
export async function createTestApp(
  env: Record<string, string> = {},
  options: { wrapAdapter?: AdapterWrapper; database?: Database } = {},
): Promise<TestApp> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-test-'));
  // With TEST_REDIS_URL the quota counters live in Redis, under a prefix of this app's own.
  const redis = process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL, REDIS_PREFIX: `lcf-test:${randomUUID()}:` } : {};
  // In-process requests go to http://localhost and listen() serves 127.0.0.1 on a port of its own: both are
  // this server's hosts, allowed in links (ALLOWED_HOSTS: '' restores the default, the listen address).
  const ownHosts = { ALLOWED_HOSTS: 'localhost,127.0.0.1' };
  const config = loadConfig({
    DATA_DIR: dataDir,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    QUOTA_LIMITS: UNLIMITED,
    ...ownHosts,
    ...redis,
    ...env,
  });
  const db = options.database ?? (await openTestDatabase(options.wrapAdapter));
  const services = await startServices(config, createLogger(config.logLevel), db);
  const app = createApp(services);

  const request = (p: string, init: RequestInit & { ip?: string } = {}) =>
    app.fetch(new Request(`http://localhost${p}`, init), { ip: init.ip });
  const json = async (p: string, init?: RequestInit & { ip?: string }) => {
    const response = await request(p, init);
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };
  const admin = async (method: string, p: string, body: unknown) => {
    const result = await json(`${ADMIN_BASE}${p}`, {
      method,
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (result.status >= 300) throw new Error(`admin ${method} ${p}: ${result.status} ${JSON.stringify(result.body)}`);
    return result.body;
  };
  const servers: Server[] = [];
  return {
    app,
    dataDir,
    request,
    json,
    graphql: (query, variables, key) =>
      json('/v1/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify({ query, variables }),
      }),
    createOrg: (plan = 'pro', name = `Org ${plan}`) => admin('POST', '/orgs', { name, plan }),
    createKey: (orgId, options = {}) => admin('POST', '/keys', { org_id: orgId, ...options }),
    async listen() {
      const server = createServer(app.handle);
      // As src/main.ts serves it.
      answerClientErrors(server);
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async close() {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      if (options.database) {
        await services.calculations.flush();
        await services.keys.usage?.close();
        await services.quota.close();
      } else {
        await stopServices(services);
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
