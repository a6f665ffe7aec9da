import { withSession } from './db/database.ts';
import { keepStatistics } from './db/statistics.ts';
import { ExportWorker } from './exports/worker.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.ts';
import type { Services } from './services.ts';
import { SERVICE_VERSION } from './version.ts';

/**
 * Starts this process's background work: the export worker and the webhook dispatcher, each unless
 * switched off (a server with EXPORT_WORKER=off or WEBHOOK_DISPATCH=off leaves that work to `lcf worker` processes),
 * and on the embedded database the planner statistics that PostgreSQL's autovacuum keeps elsewhere.
 */
export function startBackgroundWork(
  services: Pick<Services, 'config' | 'db' | 'scopes' | 'exportStorage' | 'log' | 'exportWorker' | 'webhookDispatcher' | 'statistics'>,
  { exportWorker = true, webhookDispatcher = true } = {},
): void {
  if (services.db.kind === 'pglite') {
    const { db, log } = services;
    services.statistics = keepStatistics(
      (sql) => withSession(db, (session) => session.query(sql)),
      (error) => log.warn({ err: error }, 'embedded database statistics not updated; tried again at the next check'),
    );
  }
  if (exportWorker) {
    services.exportWorker = new ExportWorker(
      { db: services.db, scopes: services.scopes, storage: services.exportStorage, log: services.log, softwareVersion: SERVICE_VERSION },
      { leaseMs: services.config.exports.leaseSeconds * 1000 },
    );
    services.exportWorker.start();
  }
  if (webhookDispatcher) {
    services.webhookDispatcher = new WebhookDispatcher(services.db.prisma, services.log, {
      allowPrivateUrls: services.config.webhooks.allowPrivateUrls,
    });
    services.webhookDispatcher.start();
  }
}
