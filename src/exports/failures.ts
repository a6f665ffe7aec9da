import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { StorageUnsupportedError } from './storage/types.ts';

// Why an export job failed: one error_code per stage of an attempt (docs/exports.md, "Failures").
// The worker retries a failed attempt a bounded number of times, except where no retry can help.

export const EXPORT_FAILURE_CODES = [
  'EXPORT_STORAGE_UNAVAILABLE',
  'EXPORT_STORAGE_UNSUPPORTED',
  'EXPORT_STORAGE_WRITE_FAILED',
  'EXPORT_STORAGE_COMMIT_FAILED',
  'EXPORT_DATABASE_ERROR',
  'EXPORT_INTERRUPTED',
  'EXPORT_STALLED',
] as const;
export type ExportFailureCode = (typeof EXPORT_FAILURE_CODES)[number];

const WHAT_FAILED: Record<ExportFailureCode, string> = {
  EXPORT_STORAGE_UNAVAILABLE: 'The archive store could not be reached to start the archive.',
  EXPORT_STORAGE_UNSUPPORTED:
    'The archive store lacks an operation exports need (S3: ListMultipartUploads and AbortMultipartUpload); the service operator has to change the store, no retry succeeds before that.',
  EXPORT_STORAGE_WRITE_FAILED: 'Writing the archive to the store failed (for example a full disk).',
  EXPORT_STORAGE_COMMIT_FAILED: 'The archive was written but the store could not make it final.',
  EXPORT_DATABASE_ERROR: "Reading the organisation's data or recording the finished export failed (a database error).",
  EXPORT_INTERRUPTED: 'Its worker stopped without finishing (the process ended or lost its lease).',
  EXPORT_STALLED: 'The archive store or the database stopped answering in the middle of the export.',
};

/** The job's error_message: what failed, how often it was tried, what to do. */
export function failureMessage(code: ExportFailureCode, attempts: number): string {
  const tried = attempts === 1 ? 'Tried once' : `Tried ${attempts} times`;
  return `${WHAT_FAILED[code]} ${tried}. A failed export does not count against the export interval: submit it again.`;
}

/** A failed stage of an attempt: the job's error_code, and whether another attempt may succeed. */
export class ExportJobFailure extends Error {
  readonly retryable: boolean;

  constructor(
    readonly code: ExportFailureCode,
    cause: unknown,
  ) {
    super(`${code}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.retryable = code !== 'EXPORT_STORAGE_UNSUPPORTED';
  }
}

/** `error` as the failure of a stage whose failures are `code`; a failure classified earlier keeps its code. */
export function asFailure(error: unknown, code: ExportFailureCode): ExportJobFailure {
  if (error instanceof ExportJobFailure) return error;
  return new ExportJobFailure(error instanceof StorageUnsupportedError ? 'EXPORT_STORAGE_UNSUPPORTED' : code, error);
}

/**
 * `target` (a storage upload's stream) behind a stream whose errors are EXPORT_STORAGE_WRITE_FAILED.
 * The archive fails with the first error of either side, its rows or its output, and destroys the
 * output with it: only what the store itself raised is tagged here.
 */
export function storageOutput(target: Writable): Writable {
  const failed = (error: unknown) => asFailure(error, 'EXPORT_STORAGE_WRITE_FAILED');
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      target.write(chunk, (error) => done(error ? failed(error) : null));
    },
    final(done) {
      target.end();
      finished(target).then(
        () => done(),
        (error: unknown) => done(failed(error)),
      );
    },
    // The target is left to the upload's abort(), which discards what was written.
    destroy(error, done) {
      done(error);
    },
  });
  target.on('error', (error) => output.destroy(failed(error)));
  return output;
}
