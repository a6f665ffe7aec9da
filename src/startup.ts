import type { Config } from './config/config.ts';
import type { Database } from './db/database.ts';
import { openConfiguredDatabase } from './db/prepare.ts';
import { prepareDatabase } from './reference/prepare-database.ts';
import { ReferenceStore } from './reference/store.ts';
import { KeyStore } from './auth/caller.ts';
import { KeyUsage } from './auth/key-usage.ts';
import { OrganizationScopes } from './auth/org-scope.ts';
import { QuotaService, createCounterStore } from './auth/quota/index.ts';
import { resolveAdminToken } from './admin/admin-token.ts';
import type { Logger } from './observability/logger.ts';
import type { Services } from './services.ts';
import { CalculationWriter } from './footprint/calculation-writer.ts';
import { FootprintService } from './footprint/service.ts';
import { CatalogueService } from './catalogue/service.ts';
import { loadApprovedOperations } from './graphql/approved-operations.ts';
import { Sandboxes } from './sandbox/sandbox.ts';
import { closeDocumentRenderer, configureDocumentRenderer } from './documents/index.ts';
import { loadCertificateKeys } from './certificates/keys.ts';
import { createExportStorage } from './exports/storage/index.ts';
import { loadSecretBox } from './secrets/secret-box.ts';
import { Metrics } from './observability/metrics.ts';

/**
 * Opens the database, brings its schema and reference data up to date (once, under an
 * advisory lock, however many instances start together) and builds the shared services.
 */
export async function startServices(config: Config, log: Logger, database?: Database): Promise<Services> {
  const db = database ?? (await openConfiguredDatabase(config));
  configureDocumentRenderer({ idleMs: config.renderIdleMs });
  const prepared = await prepareDatabase(db, log);
  // Loading reference data (a new database, new data) builds tens of MB of rows and JSON once; a full
  // collection now gives that memory back, which V8 would otherwise keep (docs/benchmarks.md). `gc` is
  // exposed by the start script.
  if (prepared.datasets.length) (globalThis as { gc?: () => void }).gc?.();
  const reference = await ReferenceStore.load(db.prisma);
  const calculations = new CalculationWriter(db.prisma, log);
  const catalogue = await CatalogueService.create(db.prisma, log, config.icecat);
  const footprint = new FootprintService(reference, catalogue, calculations);
  // Created on first use of a test key, off the start-up path (the demo estate once per database, then copies).
  const sandboxes = new Sandboxes(db, { reference, footprint });
  // Shared through the database by every instance on it, like the certificate keys it seals.
  const secrets = await loadSecretBox(config.secretsKey, db.prisma, config.dataDir);
  return {
    config,
    db,
    log,
    reference,
    keys: new KeyStore(db.prisma, (orgId) => sandboxes.ensure(orgId), new KeyUsage(db.prisma, log)),
    scopes: new OrganizationScopes(db.prisma),
    adminToken: await resolveAdminToken(config.adminToken, config.dataDir),
    quota: new QuotaService(
      await createCounterStore(db, config.redis, {
        onFlushError: (error) => log.warn({ err: error }, 'quota counters not written to the database; written at the next flush'),
      }),
      { limits: config.quotaLimits },
    ),
    calculations,
    catalogue,
    approvedOperations: loadApprovedOperations(),
    footprint,
    certificateKeys: await loadCertificateKeys(config.certSigningKeys, db.prisma, secrets, config.dataDir),
    exportStorage: await createExportStorage(config),
    secrets,
    metrics: new Metrics({ db, calculations, log }),
  };
}

/** Stores what is still queued, lets documents being drawn finish, then closes the database. */
export async function stopServices(services: Services): Promise<void> {
  // A job being written is handed back for another worker; deliveries in flight finish.
  await services.exportWorker?.stop();
  await services.webhookDispatcher?.stop();
  services.statistics?.stop();
  await services.calculations.flush();
  await services.keys.usage?.close();
  await closeDocumentRenderer();
  await services.quota.close();
  await services.db.close();
}
