import type { Writable } from 'node:stream';

/**
 * The store lacks an operation the export needs (an S3-compatible store without ListMultipartUploads
 * or AbortMultipartUpload): no retry can succeed until the store is changed.
 */
export class StorageUnsupportedError extends Error {
  constructor(
    readonly operation: string,
    options?: ErrorOptions,
  ) {
    super(`the export store does not support ${operation}`, options);
  }
}

export interface ObjectUpload {
  /** Write the object's bytes here (respect backpressure); end() it when done. */
  stream: Writable;
  /** After `stream` has finished: makes the object visible under its key (atomic: rename / complete multipart). */
  commit(): Promise<void>;
  /** Discards whatever was written; safe to call after a failure or twice. */
  abort(): Promise<void>;
}

export interface ExportStorage {
  readonly kind: 'filesystem' | 's3';
  /** Starts writing object `key` (e.g. "<org_id>/<job_id>.zip"); nothing is readable under `key` until commit(). */
  open(key: string): Promise<ObjectUpload>;
  /**
   * Deletes the committed object and any partial upload of `key` (another process may be writing it); a
   * missing object is fine. StorageUnsupportedError when the store cannot find partial uploads.
   */
  delete(key: string): Promise<void>;
  /** True when a committed object exists under `key`. */
  exists(key: string): Promise<boolean>;
  /** A URL anyone holding it may GET until expiresAt. `base` is the public origin of this service (e.g. http://localhost:3000), used by the filesystem store. */
  signedUrl(key: string, options: { base: string; filename: string; ttlSeconds: number }): Promise<{ url: string; expiresAt: Date }>;
}
