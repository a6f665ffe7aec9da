import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { startServices, stopServices } from '../../src/startup.ts';
import { createApp } from '../../src/app.ts';
import { ADMIN_BASE } from '../../src/admin/routes.ts';
import { TEST_ADMIN_TOKEN, UNLIMITED, type TestApp } from './test-app.ts';
import { StatementLog, openCountingTestDatabase } from './counting-database.ts';

/**
 * createTestApp (test/support/test-app.ts) over a database whose SQL statements are logged:
 * `statements.reset()` before a request, `statements.count` after it (N+1 checks).
 */
export async function createCountingTestApp(env: Record<string, string> = {}): Promise<TestApp & { statements: StatementLog }> {
  const statements = new StatementLog();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-test-'));
  const config = loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: TEST_ADMIN_TOKEN, LOG_LEVEL: 'silent', QUOTA_LIMITS: UNLIMITED, ...env });
  const db = await openCountingTestDatabase(statements);
  const services = await startServices(config, createLogger(config.logLevel), db);
  const app = createApp(services);

  const request = (p: string, init: RequestInit & { ip?: string } = {}) => app.fetch(new Request(`http://localhost${p}`, init), { ip: init.ip });
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
  return {
    app,
    dataDir,
    statements,
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
    async close() {
      await stopServices(services);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
