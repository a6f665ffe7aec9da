import type { Config } from './config/config.ts';
import type { Database } from './db/database.ts';
import type { Logger } from './observability/logger.ts';
import type { ReferenceStore } from './reference/store.ts';
import type { KeyStore } from './auth/caller.ts';
import type { OrganizationScopes } from './auth/org-scope.ts';
import type { QuotaService } from './auth/quota/index.ts';
import type { FootprintService } from './footprint/service.ts';
import type { CatalogueService } from './catalogue/service.ts';
import type { ApprovedOperation } from './graphql/approved-operations.ts';
import type { CalculationWriter } from './footprint/calculation-writer.ts';
import type { CertificateKeys } from './certificates/keys.ts';
import type { ExportStorage } from './exports/storage/types.ts';
import type { ExportWorker } from './exports/worker.ts';
import type { WebhookDispatcher } from './webhooks/dispatcher.ts';
import type { SecretBox } from './secrets/secret-box.ts';
import type { Metrics } from './observability/metrics.ts';

/** Long-lived collaborators shared by every request, built once at start-up. */
export interface Services {
  config: Config;
  db: Database;
  log: Logger;
  reference: ReferenceStore;
  keys: KeyStore;
  /** Organisation-scoped Prisma clients: the only way request code reaches organisation data. */
  scopes: OrganizationScopes;
  adminToken: string;
  quota: QuotaService;
  calculations: CalculationWriter;
  catalogue: CatalogueService;
  /** The GraphQL query templates free and pro plans may run (templates/). */
  approvedOperations: ApprovedOperation[];
  footprint: FootprintService;
  /** Ed25519 keys that sign and verify certificates (CERT_SIGNING_KEY, or kept in the database). */
  certificateKeys: CertificateKeys;
  /** Where export archives are kept: DATA_DIR/exports, or S3 when EXPORT_S3_BUCKET is set. */
  exportStorage: ExportStorage;
  /** Seals the certificate signing key and third-party API keys at rest (SECRETS_KEY, or kept in the database). */
  secrets: SecretBox;
  /** Prometheus metrics of this instance (GET /metrics). */
  metrics: Metrics;
  /** Background work of this process (startBackgroundWork): absent in tests that drive it by hand. */
  exportWorker?: ExportWorker;
  webhookDispatcher?: WebhookDispatcher;
  /** The embedded database's planner statistics (src/db/statistics.ts). */
  statistics?: { stop(): void };
}
