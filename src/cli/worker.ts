import { ConfigError, loadConfig } from '../config/config.ts';
import { createLogger } from '../observability/logger.ts';
import { startServices, stopServices } from '../startup.ts';
import { startBackgroundWork } from '../background.ts';

/**
 * `lcf worker`: the export worker and webhook dispatcher without the HTTP server, for running
 * exports on their own machines at scale (the servers then run with EXPORT_WORKER=off). Needs
 * PostgreSQL: the embedded database belongs to the one server process that opened it.
 */
export async function runWorkerProcess(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) throw new Error(error.message);
    throw error;
  }
  if (!config.databaseUrl) {
    throw new Error('lcf worker needs DATABASE_URL (PostgreSQL): with the embedded database the server runs the worker itself (EXPORT_WORKER=inline)');
  }
  const log = createLogger(config.logLevel);
  const services = await startServices(config, log);
  startBackgroundWork(services, { exportWorker: true });
  log.info({ worker: services.exportWorker?.id }, 'worker started');
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, 'worker stopping: handing back the job in progress');
      resolve();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  await stopServices(services);
  log.info('worker stopped');
}
