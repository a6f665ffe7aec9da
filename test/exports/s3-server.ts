import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export const S3RVER_BUCKET = 'lcf-exports';

export interface TestS3Server {
  endpoint: string;
  /** EXPORT_S3_* variables pointing at this server. */
  env: Record<string, string>;
  /** Multipart uploads in progress for `key` (what ListMultipartUploads would list). */
  uploadsOf(key: string): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * s3rver (a local S3 server) on 127.0.0.1, a random port and a temporary directory, with the bucket
 * created. s3rver 3.7.1 implements multipart upload except ListMultipartUploads (501) and
 * AbortMultipartUpload (405): the two are added here over s3rver's own upload folders, answering as
 * S3 documents them, and UploadPart / CompleteMultipartUpload of an aborted upload get S3's 404
 * NoSuchUpload instead of s3rver recreating the folder. Everything else is s3rver's.
 * `listMultipartUploads: false` leaves ListMultipartUploads to s3rver (501): a store that lacks it.
 */
export async function startS3rver({ listMultipartUploads = true } = {}): Promise<TestS3Server> {
  const directory = await mkdtemp(path.join(tmpdir(), 'lcf-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: [{ name: S3RVER_BUCKET }] });
  const uploadsFolder = server.store.getResourcePath(S3RVER_BUCKET, undefined, 'uploads');
  const uploadsOf = async (prefix: string, exact = true) => {
    const ids = await readdir(uploadsFolder).catch(() => [] as string[]);
    const keys = await Promise.all(ids.map((id) => readFile(path.join(uploadsFolder, id, 'key'), 'utf8').catch(() => undefined)));
    return ids.flatMap((id, i) => {
      const key = keys[i];
      return key !== undefined && (exact ? key === prefix : key.startsWith(prefix)) ? [{ id, key }] : [];
    });
  };

  server.middleware.unshift(async (ctx, next) => {
    const [, bucket, ...rest] = ctx.path.split('/');
    const key = decodeURIComponent(rest.join('/'));
    if (bucket !== S3RVER_BUCKET) return next();
    if (listMultipartUploads && ctx.method === 'GET' && key === '' && 'uploads' in ctx.query) {
      const prefix = typeof ctx.query.prefix === 'string' ? ctx.query.prefix : '';
      const uploads = (await uploadsOf(prefix, false)).map(
        ({ id, key }) => `<Upload><Key>${xml(key)}</Key><UploadId>${id}</UploadId></Upload>`,
      );
      ctx.type = 'application/xml';
      ctx.body =
        `<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult><Bucket>${bucket}</Bucket><Prefix>${xml(prefix)}</Prefix>` +
        `<MaxUploads>1000</MaxUploads><IsTruncated>false</IsTruncated>${uploads.join('')}</ListMultipartUploadsResult>`;
      return;
    }
    const uploadId = ctx.query.uploadId;
    if (key === '' || typeof uploadId !== 'string') return next();
    const folder = path.join(uploadsFolder, path.basename(uploadId));
    const storedKey = await readFile(path.join(folder, 'key'), 'utf8').catch(() => undefined);
    if (storedKey !== key) {
      ctx.status = 404;
      ctx.type = 'application/xml';
      ctx.body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message><UploadId>${xml(uploadId)}</UploadId></Error>`;
      return;
    }
    if (ctx.method === 'DELETE') {
      await rm(folder, { recursive: true, force: true });
      ctx.status = 204;
      return;
    }
    return next();
  });

  const address = await server.run();
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    env: {
      EXPORT_S3_BUCKET: S3RVER_BUCKET,
      EXPORT_S3_ENDPOINT: endpoint,
      EXPORT_S3_REGION: 'us-east-1',
      EXPORT_S3_ACCESS_KEY_ID: 'S3RVER',
      EXPORT_S3_SECRET_ACCESS_KEY: 'S3RVER',
      EXPORT_S3_FORCE_PATH_STYLE: 'true',
    },
    uploadsOf: async (key) => (await uploadsOf(key)).map(({ id }) => id),
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
