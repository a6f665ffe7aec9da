import { Readable } from 'node:stream';
import { ApiError, notFound } from '../../errors/api-error.ts';
import { Router, type RouteHandler } from '../../rest/router.ts';
import { EXPORT_FILES_BASE, FilesystemExportStorage } from './filesystem.ts';
import { contentDisposition, EXPORT_CONTENT_TYPE } from './names.ts';
import type { ExportStorage } from './types.ts';
import type { OpenApiOperation } from '../../kernel/openapi-types.ts';

const ARCHIVE_HEADERS = {
  'Content-Disposition': { description: 'attachment; filename=… (the filename of the link)', required: true, schema: { type: 'string' } },
  'Accept-Ranges': { schema: { type: 'string', enum: ['bytes'] } },
};

const DOWNLOAD_HEADERS = {
  // The URL is the credential: neither shared caches nor the Referer of a next page may keep it.
  'Cache-Control': 'private, no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * GET and HEAD /files/exports/<key>?expires=&filename=&signature=: a filesystem store's archive for
 * whoever holds a URL it signed (FilesystemExportStorage.signedUrl). Outside /v1 and before access
 * control: no API key, the signature is the credential. Streamed from disk; one `Range: bytes=` range
 * is honoured so a broken download of a large archive can resume. With an S3 store the URLs point
 * at the bucket and this router has no routes.
 */
export function createExportFileRouter(storage: ExportStorage): Router {
  const router = new Router(EXPORT_FILES_BASE, DOWNLOAD_HEADERS);
  if (!(storage instanceof FilesystemExportStorage)) return router;

  const download: RouteHandler = async (request, { folder, name }) => {
    const key = `${folder}/${name}`;
    const { filename } = storage.verifyUrl(key, new URL(request.url).searchParams);
    const file = await storage.openCommitted(key);
    if (!file) throw notFound('Export archive', 'The archive of this link no longer exists (archives are kept 72 hours after completion)');
    const range = byteRange(request.headers.get('range'), file.size);
    if (range === 'unsatisfiable') {
      await file.handle.close();
      throw new ApiError(416, 'RANGE_NOT_SATISFIABLE', 'Range not satisfiable', `Range: the archive has ${file.size} bytes`, {
        'Content-Range': `bytes */${file.size}`,
      });
    }
    const { start, end } = range ?? { start: 0, end: file.size - 1 };
    const headers: Record<string, string> = {
      'Content-Type': EXPORT_CONTENT_TYPE,
      'Content-Disposition': contentDisposition(filename),
      'Content-Length': String(end - start + 1),
      'Accept-Ranges': 'bytes',
      ...(range && { 'Content-Range': `bytes ${start}-${end}/${file.size}` }),
    };
    const status = range ? 206 : 200;
    if (request.method === 'HEAD' || end < start) {
      await file.handle.close();
      return new Response(null, { status, headers });
    }
    // autoClose: the handle closes at the end of the stream, or when it is destroyed.
    const stream = file.handle.createReadStream({ start, end });
    request.signal.addEventListener('abort', () => stream.destroy(), { once: true });
    return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { status, headers });
  };
  return router.on('GET', '/:folder/:name', download, { openApi: FILE_OPENAPI }).on('HEAD', '/:folder/:name', download);
}

const FILE_OPENAPI: OpenApiOperation = {
  operationId: 'exportFile',
  summary: 'Download an export archive by its signed URL',
  description:
    "The target of an export's signed_url (exportJobDownload) with the filesystem store: no API key, the signature is the credential, " +
    'valid 15 minutes. Use the URL as given; its parts are listed for completeness. One `Range: bytes=` range resumes a broken download (206). ' +
    'With an S3 store the signed URL points at the bucket instead and this route does not exist.',
  tags: ['Organisation export'],
  parameters: [
    { name: 'folder', in: 'path', required: true, schema: { type: 'string' } },
    { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
    {
      name: 'expires',
      in: 'query',
      required: true,
      description: 'Unix time the link expires',
      schema: { type: 'string', pattern: '^[0-9]+$' },
    },
    { name: 'filename', in: 'query', required: true, description: 'The file name the download is saved as', schema: { type: 'string' } },
    { name: 'signature', in: 'query', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
    {
      name: 'Range',
      in: 'header',
      required: false,
      description: 'One byte range: bytes=first-last, bytes=first- or bytes=-suffix',
      schema: { type: 'string' },
    },
  ],
  responses: {
    200: {
      description: 'The ZIP archive',
      headers: ARCHIVE_HEADERS,
      content: { [EXPORT_CONTENT_TYPE]: { schema: { type: 'string', format: 'binary' } } },
    },
    206: {
      description: 'The range asked for',
      headers: {
        ...ARCHIVE_HEADERS,
        'Content-Range': { description: 'bytes first-last/size', required: true, schema: { type: 'string' } },
      },
      content: { [EXPORT_CONTENT_TYPE]: { schema: { type: 'string', format: 'binary' } } },
    },
    403: { description: 'The signature does not match (INVALID_SIGNATURE) or the link expired (SIGNED_URL_EXPIRED)' },
    404: { description: 'The archive no longer exists (72 hours after completion)' },
    416: {
      description: 'The range lies outside the archive (RANGE_NOT_SATISFIABLE)',
      headers: { 'Content-Range': { schema: { type: 'string' } } },
    },
  },
};

/**
 * One `bytes=first-last`, `bytes=first-` or `bytes=-suffix` range (RFC 9110 14.1.2); anything else
 * (several ranges, another unit, bad syntax) is ignored and the whole archive is sent.
 */
function byteRange(header: string | null, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = header ? /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    return suffix === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const last = match[2] === '' ? Infinity : Number(match[2]);
  if (last < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(last, size - 1) };
}
