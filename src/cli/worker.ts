import { ConfigError, loadConfig, type Config } from '../config/config.ts';
import { createLogger } from '../observability/logger.ts';
import { openDatabase, withSession } from '../db/database.ts';
import { applyMigrations, readMigrations, withStartupLock } from '../db/migrate.ts';
import { OrganizationScopes } from '../auth/org-scope.ts';
import { createExportStorage } from '../exports/storage/index.ts';
import { startBackgroundWork } from '../background.ts';
import { resolveAdminToken } from '../admin/admin-token.ts';
import { QuotaService, createCounterStore } from '../auth/quota/index.ts';
import { Metrics } from '../observability/metrics.ts';
import type { Services } from '../services.ts';
import { logProcessWarnings, onStopRequest } from './process-signals.ts';
import { listenWorkerEndpoint } from './worker-endpoint.ts';

/**
 * `lcf worker`: the export worker and webhook dispatcher without the HTTP server, for running
 * exports on their own machines at scale (the servers then run with EXPORT_WORKER=off). Needs
 * PostgreSQL: the embedded database belongs to the one server process that opened it. Only what
 * the background work uses is loaded (no GraphQL schema, engine, catalogue or PDF renderer), so
 * the process stays small while it streams large archives.
 */
export async function runWorkerProcess(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) throw new Error(error.message);
    throw error;
  }
  if (!config.databaseUrl) {
    throw new Error(
      'lcf worker needs DATABASE_URL (PostgreSQL): with the embedded database the server runs the worker itself (EXPORT_WORKER=inline)',
    );
  }
  const log = createLogger(config.logLevel);
  logProcessWarnings(log);
  const background = await openWorkerServices(config, log);
  startBackgroundWork(background, { exportWorker: true, webhookDispatcher: true });
  let stopping = false;
  const endpoint = await listenWorkerEndpoint(background, { host: config.host, port: config.workerPort, isStopping: () => stopping });
  log.info({ worker: background.exportWorker?.id, address: endpoint.address }, 'worker started');
  const reason = await new Promise<string>((resolve) => onStopRequest(resolve));
  stopping = true;
  log.info({ reason }, 'worker stopping: handing back the job in progress');
  await background.exportWorker?.stop();
  await background.webhookDispatcher?.stop();
  // Probes and scrapes keep their connections open: closed here, or they would keep the process alive.
  endpoint.server.close();
  endpoint.server.closeAllConnections();
  await background.quota.close();
  await background.db.close();
  log.info('worker stopped');
}

type WorkerServices = Pick<
  Services,
  'config' | 'db' | 'scopes' | 'exportStorage' | 'log' | 'exportWorker' | 'webhookDispatcher' | 'metrics' | 'adminToken' | 'quota'
>;

/**
 * What the background work needs (the database, its schema brought up to date as the servers do at
 * start, scoping, the export storage) and what its endpoint needs (metrics, the admin token and the
 * failed-attempt counter guarding /metrics).
 */
export async function openWorkerServices(
  config: ReturnType<typeof loadConfig>,
  log: ReturnType<typeof createLogger>,
): Promise<WorkerServices> {
  const db = await openDatabase({ kind: 'postgres', url: config.databaseUrl!, poolSize: config.databasePoolSize });
  await withSession(db, async (session) =>
    withStartupLock(session, async () => void (await applyMigrations(session, await readMigrations()))),
  );
  return {
    config,
    db,
    log,
    scopes: new OrganizationScopes(db.prisma),
    exportStorage: await createExportStorage(config),
    metrics: new Metrics({ db, log }),
    adminToken: await resolveAdminToken(config.adminToken, config.dataDir),
    quota: new QuotaService(await createCounterStore(db, config.redis), { limits: config.quotaLimits }),
  };
}
