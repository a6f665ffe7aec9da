import { Readable } from 'node:stream';
import { ApiError, notFound } from '../../errors/api-error.ts';
import { Router, type RouteHandler } from '../../rest/router.ts';
import { EXPORT_FILES_BASE, FilesystemExportStorage } from './filesystem.ts';
import { contentDisposition, EXPORT_CONTENT_TYPE } from './names.ts';
import type { ExportStorage } from './types.ts';

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
  return router.on('GET', '/:folder/:name', download).on('HEAD', '/:folder/:name', download);
}

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
