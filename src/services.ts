import type { Config } from './config/config.ts';
import type { Database } from './db/database.ts';
import type { Logger } from './observability/logger.ts';
import type { ReferenceStore } from './reference/store.ts';
import type { KeyStore } from './auth/caller.ts';
import type { FootprintService } from './footprint/service.ts';
import type { CalculationWriter } from './footprint/calculation-writer.ts';

/** Long-lived collaborators shared by every request, built once at start-up. */
export interface Services {
  config: Config;
  db: Database;
  log: Logger;
  reference: ReferenceStore;
  keys: KeyStore;
  adminToken: string;
  calculations: CalculationWriter;
  footprint: FootprintService;
}
