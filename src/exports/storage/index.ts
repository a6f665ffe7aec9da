import type { Config } from '../../config/config.ts';
import { FilesystemExportStorage } from './filesystem.ts';
import type { ExportStorage } from './types.ts';

export type { ExportStorage, ObjectUpload } from './types.ts';
export { EXPORT_FILES_BASE } from './filesystem.ts';
export { createExportFileRouter } from './routes.ts';

/**
 * Where export archives live: the S3-compatible bucket of EXPORT_S3_BUCKET when set, else
 * DATA_DIR/exports (see docs/exports.md, "Storage"). `now` (ms) is the clock of signed URLs, for tests.
 */
export async function createExportStorage(config: Config, options: { now?: () => number } = {}): Promise<ExportStorage> {
  const now = options.now ?? Date.now;
  if (config.exports.s3) {
    // Imported on use only: the AWS SDK costs tens of MB of RSS, waste with the filesystem store.
    const { S3ExportStorage } = await import('./s3.ts');
    return S3ExportStorage.create(config.exports.s3, now);
  }
  return FilesystemExportStorage.create(config.dataDir, now);
}
