import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { dataDirSecret } from '../../config/data-secret.ts';
import { checkFilename, checkKey, checkTtl, isValidKey } from './names.ts';
import type { ExportStorage, ObjectUpload } from './types.ts';
import { invalidSignature, UrlSigner } from './url-signature.ts';

/** Where the service serves filesystem download URLs (outside /v1: the signature is the credential). */
export const EXPORT_FILES_BASE = '/files/exports';
/** A partial object is `<name>.partial-<uuid>` beside its key's file; never a valid key (names.ts). */
const PARTIAL_MARK = '.partial-';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Archives under DATA_DIR/exports/<key>. A writer fills a partial file beside the target and commit()
 * fsyncs and renames it into place, so a reader sees the whole archive or nothing. Download URLs are
 * HMAC-signed and served by the service itself (routes.ts).
 */
export class FilesystemExportStorage implements ExportStorage {
  readonly kind = 'filesystem' as const;

  private constructor(
    readonly root: string,
    private readonly signer: UrlSigner,
  ) {}

  static async create(dataDir: string, now: () => number): Promise<FilesystemExportStorage> {
    // Shared through the data directory: every instance using it verifies the others' URLs.
    const secret = await dataDirSecret(dataDir, 'export-url-secret', () => randomBytes(32).toString('hex'));
    const root = path.join(dataDir, 'exports');
    await mkdir(root, { recursive: true });
    return new FilesystemExportStorage(root, new UrlSigner(secret, now));
  }

  private fileOf(key: string): string {
    return path.join(this.root, checkKey(key));
  }

  async open(key: string): Promise<ObjectUpload> {
    const target = this.fileOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    const partial = `${target}${PARTIAL_MARK}${randomUUID()}`;
    const handle = await open(partial, 'wx', 0o600);
    // flush: the handle is fsynced before it closes at the end of the stream.
    const stream = handle.createWriteStream({ flush: true });
    let state: 'writing' | 'committed' | 'aborted' = 'writing';
    return {
      stream,
      async commit() {
        if (state !== 'writing') throw new Error(`export upload of ${key} was already ${state}`);
        if (!stream.writableFinished) throw new Error(`export upload of ${key}: commit() before the stream finished`);
        // Synced and closed: 'close' follows 'finish'.
        await finished(stream);
        try {
          await rename(partial, target);
        } catch (error) {
          if (isMissing(error)) throw new Error(`export upload of ${key} was deleted before it was committed`);
          throw error;
        }
        state = 'committed';
        await syncDirectory(path.dirname(target));
      },
      async abort() {
        if (state === 'committed') return;
        state = 'aborted';
        // Closes the handle (autoClose); the partial file goes with it. A write still in flight then
        // ends the stream with ERR_STREAM_DESTROYED: it concerns a file being discarded, and an
        // 'error' nobody listens to would end the process.
        stream.on('error', () => {});
        stream.destroy();
        await rm(partial, { force: true });
      },
    };
  }

  async delete(key: string): Promise<void> {
    const target = this.fileOf(key);
    const folder = path.dirname(target);
    const partialPrefix = `${path.basename(target)}${PARTIAL_MARK}`;
    const names = await readdir(folder).catch((error: unknown) => {
      if (isMissing(error)) return [];
      throw error;
    });
    // Partials first: a writer committing meanwhile then fails its rename, or has already renamed
    // and its file goes next.
    await Promise.all(names.filter((name) => name.startsWith(partialPrefix)).map((name) => rm(path.join(folder, name), { force: true })));
    await rm(target, { force: true });
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.fileOf(key))).isFile();
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async signedUrl(key: string, options: { base: string; filename: string; ttlSeconds: number }): Promise<{ url: string; expiresAt: Date }> {
    checkKey(key);
    const { query, expiresAt } = this.signer.sign(key, checkFilename(options.filename), checkTtl(options.ttlSeconds));
    return { url: `${options.base.replace(/\/+$/, '')}${EXPORT_FILES_BASE}/${key}?${query}`, expiresAt };
  }

  /** The download a URL's query grants: 403 (url-signature.ts) unless signed for this key and unexpired. */
  verifyUrl(key: string, query: URLSearchParams): { filename: string } {
    // A key that is no key was never signed: the same answer as any altered URL.
    if (!isValidKey(key)) throw invalidSignature();
    return this.signer.verify(key, query);
  }

  /**
   * The committed file of `key`, opened: it stays readable to the end even if deleted meanwhile.
   * Undefined when there is none. The caller closes the handle (a read stream with autoClose does).
   */
  async openCommitted(key: string): Promise<{ handle: FileHandle; size: number } | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.fileOf(key), 'r');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    try {
      const info = await handle.stat();
      if (info.isFile()) return { handle, size: info.size };
    } catch (error) {
      await handle.close();
      throw error;
    }
    await handle.close();
    return undefined;
  }
}

/** A rename is durable once its directory entry is on disk. */
async function syncDirectory(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
