import { ExportWorker } from './exports/worker.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.ts';
import type { Services } from './services.ts';
import { SERVICE_VERSION } from './version.ts';

/**
 * Starts this process's background work: the webhook dispatcher, and the export worker unless
 * `exportWorker` is false (the server with EXPORT_WORKER=off leaves exports to `lcf worker` processes).
 */
export function startBackgroundWork(
  services: Pick<Services, 'config' | 'db' | 'scopes' | 'exportStorage' | 'log' | 'exportWorker' | 'webhookDispatcher'>,
  { exportWorker = true } = {},
): void {
  if (exportWorker) {
    services.exportWorker = new ExportWorker(
      { db: services.db, scopes: services.scopes, storage: services.exportStorage, log: services.log, softwareVersion: SERVICE_VERSION },
      { leaseMs: services.config.exports.leaseSeconds * 1000 },
    );
    services.exportWorker.start();
  }
  services.webhookDispatcher = new WebhookDispatcher(services.db.prisma, services.log, { allowPrivateUrls: services.config.webhooks.allowPrivateUrls });
  services.webhookDispatcher.start();
}
