/**
 * Object keys are `<folder>/<name>`, e.g. `<org_id>/<job_id>.zip`: lower-case letters, digits and
 * hyphens, one optional extension, each part at most 64 characters. No `..`, no absolute path, no
 * second dot: a partial upload's name (`<name>.partial-<uuid>`) can never be a key, so no signed
 * URL can point at one.
 */
const KEY = /^[0-9a-z][0-9a-z-]{0,63}\/[0-9a-z][0-9a-z-]{0,55}(\.[0-9a-z]{1,8})?$/;
/** Download file names go into Content-Disposition unquoted-safe: letters, digits, `.`, `_`, `-`. */
const FILENAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/** Keys come from the service itself (never from a client): a bad one is a programming error. */
export function checkKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`invalid export storage key ${JSON.stringify(key)}: expected <folder>/<name>[.ext] of [0-9a-z-]`);
  return key;
}

export const isValidKey = (key: string) => KEY.test(key);

export function checkFilename(filename: string): string {
  if (!FILENAME.test(filename))
    throw new Error(`invalid download file name ${JSON.stringify(filename)}: expected 1-200 characters of [A-Za-z0-9._-]`);
  return filename;
}

export const contentDisposition = (filename: string) => `attachment; filename="${filename}"`;

export const EXPORT_CONTENT_TYPE = 'application/zip';

/** A signed URL's lifetime: whole seconds, at most 7 days (S3's limit for presigned URLs). */
export function checkTtl(ttlSeconds: number): number {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > 604_800)
    throw new Error(`invalid signed URL lifetime ${ttlSeconds}: expected 1-604800 seconds`);
  return ttlSeconds;
}
