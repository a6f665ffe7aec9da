import { Writable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ConfigError, type Config } from '../../config/config.ts';
import { checkFilename, checkKey, checkTtl, contentDisposition, EXPORT_CONTENT_TYPE } from './names.ts';
import { StorageUnsupportedError, type ExportStorage, type ObjectUpload } from './types.ts';

export type S3Settings = NonNullable<Config['exports']['s3']>;

/** S3 parts are 5 MiB to 5 GiB and at most 10,000: 8 MiB parts allow archives up to 78 GiB. */
export const PART_SIZE = 8 * 1024 * 1024;
const MAX_PARTS = 10_000;
/** Parts uploading at once; with the one filling, memory stays under (PARTS_IN_FLIGHT + 1) parts. */
const PARTS_IN_FLIGHT = 2;

const isNotFound = (error: unknown) => error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404;
/** 501 NotImplemented, or 405 MethodNotAllowed as some S3-compatible stores answer an operation they lack. */
const isUnsupported = (error: unknown) => error instanceof S3ServiceException && [405, 501].includes(error.$metadata.httpStatusCode ?? 0);

/** Sends a command the export cannot do without: a store that lacks it fails with StorageUnsupportedError. */
async function required<T>(operation: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (isUnsupported(error)) throw new StorageUnsupportedError(operation, { cause: error });
    throw error;
  }
}

/**
 * Archives in an S3-compatible bucket (which must exist). A writer streams into a multipart upload
 * created by open(); the object appears only when commit() completes that upload, and abort() or
 * delete() abort it, so no partial archive is ever readable. Download URLs are presigned GETs.
 */
export class S3ExportStorage implements ExportStorage {
  readonly kind = 's3' as const;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly now: () => number,
  ) {}

  static create(settings: S3Settings, now: () => number): S3ExportStorage {
    const { accessKeyId, secretAccessKey } = settings;
    if (!accessKeyId !== !secretAccessKey) {
      throw new ConfigError(
        'invalid environment variable EXPORT_S3_ACCESS_KEY_ID: set it together with EXPORT_S3_SECRET_ACCESS_KEY, or neither',
      );
    }
    const client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      // Without keys in the configuration: the SDK's default chain (instance or task role, AWS_* variables).
      credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    });
    return new S3ExportStorage(client, settings.bucket, now);
  }

  async open(key: string): Promise<ObjectUpload> {
    const { client, bucket } = this;
    checkKey(key);
    // Created at once (lib-storage's Upload would wait for the first part, then complete on its own
    // at the end of the stream): from here on delete(key) finds the partial, and commit() decides
    // when the object appears.
    const created = await client.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: EXPORT_CONTENT_TYPE, ChecksumAlgorithm: 'CRC32' }),
    );
    const uploadId = created.UploadId!;
    const stream = new PartWriter(async (partNumber, body) => {
      const part = await client.send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          PartNumber: partNumber,
          Body: body,
          ChecksumAlgorithm: 'CRC32',
        }),
      );
      return { PartNumber: partNumber, ETag: part.ETag, ...(part.ChecksumCRC32 && { ChecksumCRC32: part.ChecksumCRC32 }) };
    });
    let state: 'writing' | 'committed' | 'aborted' = 'writing';
    let aborting: Promise<void> | undefined;
    return {
      stream,
      async commit() {
        if (state !== 'writing') throw new Error(`export upload of ${key} was already ${state}`);
        if (!stream.writableFinished) throw new Error(`export upload of ${key}: commit() before the stream finished`);
        const parts = [...stream.parts].sort((a, b) => a.PartNumber! - b.PartNumber!);
        // Fails (NoSuchUpload) when delete(key) aborted the upload meanwhile.
        await client.send(
          new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
        );
        state = 'committed';
      },
      abort: () => {
        if (state === 'committed') return Promise.resolve();
        state = 'aborted';
        aborting ??= (async () => {
          stream.destroy();
          // S3 may keep a part that finishes after the abort: abort once nothing is in flight.
          await stream.settled();
          await this.abortUpload(key, uploadId);
        })();
        return aborting;
      },
    };
  }

  async delete(key: string): Promise<void> {
    checkKey(key);
    let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
    for (;;) {
      const page = await required('ListMultipartUploads', () =>
        this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: key, ...markers })),
      );
      const uploads = (page.Uploads ?? []).filter((upload) => upload.Key === key && upload.UploadId);
      await Promise.all(uploads.map((upload) => this.abortUpload(key, upload.UploadId!)));
      if (!page.IsTruncated) break;
      markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
    }
    // After the uploads: a writer's commit either failed above or produced the object deleted here.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: checkKey(key) }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async signedUrl(key: string, options: { base: string; filename: string; ttlSeconds: number }): Promise<{ url: string; expiresAt: Date }> {
    const ttlSeconds = checkTtl(options.ttlSeconds);
    // SigV4 dates have whole seconds; S3 refuses the URL after X-Amz-Date + X-Amz-Expires.
    const signingDate = new Date(Math.floor(this.now() / 1000) * 1000);
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: checkKey(key),
      ResponseContentDisposition: contentDisposition(checkFilename(options.filename)),
      ResponseContentType: EXPORT_CONTENT_TYPE,
    });
    const url = await getSignedUrl(this.client, command, { expiresIn: ttlSeconds, signingDate });
    return { url, expiresAt: new Date(signingDate.getTime() + ttlSeconds * 1000) };
  }

  private async abortUpload(key: string, uploadId: string): Promise<void> {
    try {
      await required('AbortMultipartUpload', () =>
        this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId })),
      );
    } catch (error) {
      // Already aborted or completed (NoSuchUpload): nothing partial is left.
      if (!isNotFound(error)) throw error;
    }
  }
}

/**
 * Cuts the bytes written to it into PART_SIZE parts and uploads them, at most PARTS_IN_FLIGHT at a
 * time: write callbacks wait while the uploads are behind, so a fast producer is held back
 * (backpressure) and memory stays flat however large the archive.
 */
class PartWriter extends Writable {
  readonly parts: CompletedPart[] = [];
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private nextPartNumber = 1;
  private readonly inFlight = new Set<Promise<void>>();
  private failure: unknown;

  constructor(private readonly uploadPart: (partNumber: number, body: Buffer) => Promise<CompletedPart>) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.buffered.push(chunk);
    this.bufferedBytes += chunk.length;
    if (this.bufferedBytes < PART_SIZE) return callback();
    this.sendFullParts().then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    // The last part may be short; an empty object still needs one (empty) part.
    const last = this.bufferedBytes > 0 || this.nextPartNumber === 1 ? this.send(this.take(this.bufferedBytes)) : Promise.resolve();
    last
      .then(() => this.settled())
      .then(() => {
        if (this.failure) throw this.failure;
      })
      .then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.buffered = [];
    this.bufferedBytes = 0;
    callback(error);
  }

  /** Resolves once no part upload is running (each has succeeded or failed). */
  async settled(): Promise<void> {
    await Promise.all(this.inFlight);
  }

  private async sendFullParts(): Promise<void> {
    while (this.bufferedBytes >= PART_SIZE) await this.send(this.take(PART_SIZE));
  }

  private take(bytes: number): Buffer {
    const all = Buffer.concat(this.buffered, this.bufferedBytes);
    const rest = all.subarray(bytes);
    this.buffered = rest.length > 0 ? [rest] : [];
    this.bufferedBytes = rest.length;
    return all.subarray(0, bytes);
  }

  private async send(body: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.nextPartNumber > MAX_PARTS) throw new Error(`archive larger than ${MAX_PARTS} parts of ${PART_SIZE} bytes`);
    const upload: Promise<void> = this.uploadPart(this.nextPartNumber++, body)
      .then(
        (part) => void this.parts.push(part),
        (error: unknown) => void (this.failure ??= error),
      )
      .finally(() => this.inFlight.delete(upload));
    this.inFlight.add(upload);
    if (this.inFlight.size >= PARTS_IN_FLIGHT) await Promise.race(this.inFlight);
    if (this.failure) throw this.failure;
  }
}
