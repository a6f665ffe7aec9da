import { createCipheriv, createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { createExportFileRouter, createExportStorage, type ExportStorage } from '../../src/exports/storage/index.ts';
import { PART_SIZE } from '../../src/exports/storage/s3.ts';
import { RouteTable } from '../../src/kernel/routes.ts';
import { useRouteNotFound } from '../../src/plugins/route-not-found.ts';
import { startS3rver, type TestS3Server } from './s3-server.ts';

// The storage contract of organisation export archives (issue 11 item 5), run against both stores:
// the data directory, and S3 through s3rver on 127.0.0.1. Spec 3: a cancelled job's partial object is
// deleted, no partial archive is ever downloadable; spec 8: signed download URLs are valid 15 minutes.

const FIFTEEN_MINUTES = 900;
const FILENAME = 'lcf-export-2026-01-02-0123abcd.zip';

interface Harness {
  storage: ExportStorage;
  /** The clock of `storage` (ms); undefined runs it on real time. */
  clock: { ms?: number };
  /** Another instance on the same data (data directory or bucket), as a second server process would have. */
  another(): Promise<ExportStorage>;
  /** Partial uploads of `key` still held by the store (partial files / multipart uploads in progress). */
  partials(key: string): Promise<string[]>;
  /** Public origin of the service, for the filesystem store's URLs. */
  base: string;
  /** A URL signed for `key`, fetched 15 minutes and 1 second after it was signed. */
  fetchExpired(key: string): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Serves a router through Yoga and node:http as the app does (its route table, the router, the one 404/405;
 * not the app itself: the whole app would more than double this file's start-up), so HEAD and streamed bodies
 * take the app's path.
 */
async function serve(router: ReturnType<typeof createExportFileRouter>): Promise<{ base: string; server: Server }> {
  const routes = new RouteTable();
  router.declareIn(routes);
  // The app keeps the route in the request state (useRouting); outside the app there is none.
  const mount: Plugin = {
    async onRequest({ request, url, endResponse }) {
      const match = routes.match(request.method, url.pathname);
      if (match?.route) endResponse(await router.fetch(request, match));
    },
  };
  const yoga = createYoga({
    schema: createSchema({ typeDefs: 'type Query { ok: Boolean }' }),
    logging: false,
    plugins: [mount, useRouteNotFound({ routes })],
  });
  const server = createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function filesystemHarness(): Promise<Harness & { dataDir: string }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-export-storage-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const clock: { ms?: number } = {};
  const storage = await createExportStorage(config, { now: () => clock.ms ?? Date.now() });
  const { base, server } = await serve(createExportFileRouter(storage));
  return {
    dataDir,
    storage,
    clock,
    base,
    another: () => createExportStorage(config),
    async partials(key) {
      const [folder, name] = key.split('/') as [string, string];
      const names = await readdir(path.join(dataDir, 'exports', folder)).catch(() => []);
      return names.filter((n) => n.startsWith(`${name}.partial-`));
    },
    async fetchExpired(key) {
      const signedAt = Date.now();
      clock.ms = signedAt;
      const { url } = await storage.signedUrl(key, { base, filename: FILENAME, ttlSeconds: FIFTEEN_MINUTES });
      clock.ms = signedAt + FIFTEEN_MINUTES * 1000 + 1000;
      try {
        return await fetch(url);
      } finally {
        delete clock.ms;
      }
    },
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function s3Harness(s3: TestS3Server): Promise<Harness> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-export-storage-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...s3.env });
  const clock: { ms?: number } = {};
  const storage = await createExportStorage(config, { now: () => clock.ms ?? Date.now() });
  return {
    storage,
    clock,
    base: 'http://localhost:3000',
    another: () => createExportStorage(config),
    partials: (key) => s3.uploadsOf(key),
    async fetchExpired(key) {
      // s3rver checks expiry against its own (real) clock: sign 15 minutes and 1 second ago.
      clock.ms = Date.now() - (FIFTEEN_MINUTES * 1000 + 1000);
      try {
        const { url } = await storage.signedUrl(key, { base: 'http://localhost:3000', filename: FILENAME, ttlSeconds: FIFTEEN_MINUTES });
        return await fetch(url);
      } finally {
        delete clock.ms;
      }
    },
    close: () => rm(dataDir, { recursive: true, force: true }),
  };
}

const newKey = () => `${randomUUID()}/${randomUUID()}.zip`;

/** `size` deterministic pseudo-random bytes (AES-CTR keystream), produced lazily in 64 KiB chunks. */
function generated(size: number, seed = 'export'): { source: () => Readable; sha256: string } {
  const chunks = function* () {
    const cipher = createCipheriv('aes-128-ctr', createHash('md5').update(seed).digest(), Buffer.alloc(16));
    const zeros = Buffer.alloc(64 * 1024);
    for (let left = size; left > 0; left -= zeros.length) yield cipher.update(zeros.subarray(0, Math.min(left, zeros.length)));
  };
  const hash = createHash('sha256');
  for (const chunk of chunks()) hash.update(chunk);
  return { source: () => Readable.from(chunks(), { objectMode: false }), sha256: hash.digest('hex') };
}

async function writeObject(storage: ExportStorage, key: string, body: Buffer | Readable): Promise<void> {
  const upload = await storage.open(key);
  await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, upload.stream);
  await upload.commit();
}

/** Fetches a URL and hashes the body as it streams in. */
async function fetchHashed(url: string): Promise<{ response: Response; bytes: number; sha256: string }> {
  const response = await fetch(url);
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { response, bytes, sha256: hash.digest('hex') };
}

let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startS3rver();
});
afterAll(async () => {
  await s3?.close();
});

describe.each([
  ['filesystem', () => filesystemHarness()],
  ['s3', () => s3Harness(s3)],
] as const)('export storage contract: %s', (kind, makeHarness) => {
  let h: Harness;
  const signed = (key: string, filename = FILENAME) => h.storage.signedUrl(key, { base: h.base, filename, ttlSeconds: FIFTEEN_MINUTES });

  beforeAll(async () => {
    h = await makeHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it(`is the ${kind} store`, () => {
    expect(h.storage.kind).toBe(kind);
  });

  it('writes, commits, reports, downloads and deletes an object', async () => {
    const key = newKey();
    const body = Buffer.from('PK\u0003\u0004 an archive');
    expect(await h.storage.exists(key)).toBe(false);
    await writeObject(h.storage, key, body);
    expect(await h.storage.exists(key)).toBe(true);
    expect(await h.partials(key)).toEqual([]);

    const response = await fetch((await signed(key)).url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${FILENAME}"`);
    expect(response.headers.get('content-length')).toBe(String(body.length));
    expect(Buffer.from(await response.arrayBuffer())).toEqual(body);

    await h.storage.delete(key);
    expect(await h.storage.exists(key)).toBe(false);
    expect((await fetch((await signed(key)).url)).status).toBe(404);
    // Deleting what is not there is fine.
    await expect(h.storage.delete(key)).resolves.toBeUndefined();
  });

  it('shows nothing under the key before commit()', async () => {
    const key = newKey();
    const upload = await h.storage.open(key);
    await pipeline(Readable.from([Buffer.from('half an archive')]), upload.stream);
    expect(await h.storage.exists(key)).toBe(false);
    expect((await fetch((await signed(key)).url)).status).toBe(404);
    expect(await h.partials(key)).toHaveLength(1);

    await upload.commit();
    expect(await h.storage.exists(key)).toBe(true);
    expect(await h.partials(key)).toEqual([]);
    await h.storage.delete(key);
  });

  it('abort() discards the partial object, twice without complaint, and keeps nothing', async () => {
    const key = newKey();
    const upload = await h.storage.open(key);
    await new Promise<void>((resolve, reject) =>
      upload.stream.write(Buffer.alloc(1000, 7), (error) => (error ? reject(error) : resolve())),
    );
    expect(await h.partials(key)).toHaveLength(1);
    await upload.abort();
    await upload.abort();
    expect(await h.partials(key)).toEqual([]);
    expect(await h.storage.exists(key)).toBe(false);
    await expect(upload.commit()).rejects.toThrow(/aborted/);
  });

  it('abort() while a write is still in flight discards the object and reports nothing (no uncaught stream error)', async () => {
    const key = newKey();
    const upload = await h.storage.open(key);
    // Nobody listens to the stream any more, as after an archive's teardown: an 'error' it emitted
    // now would be an uncaught exception, which vitest reports and which ends a server.
    upload.stream.write(Buffer.alloc(8 * 1024 * 1024, 7));
    await new Promise((resolve) => setImmediate(resolve));
    await upload.abort();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await h.partials(key)).toEqual([]);
    expect(await h.storage.exists(key)).toBe(false);
  });

  it('abort() after commit() keeps the committed object', async () => {
    const key = newKey();
    const upload = await h.storage.open(key);
    await pipeline(Readable.from([Buffer.from('complete')]), upload.stream);
    await upload.commit();
    await upload.abort();
    expect(await h.storage.exists(key)).toBe(true);
    await h.storage.delete(key);
  });

  it('commit() refuses an upload whose stream has not finished', async () => {
    const key = newKey();
    const upload = await h.storage.open(key);
    upload.stream.write(Buffer.from('not yet'));
    await expect(upload.commit()).rejects.toThrow(/before the stream finished/);
    await upload.abort();
    expect(await h.storage.exists(key)).toBe(false);
  });

  it('delete() from another instance removes a partial object another writer is still writing; that writer can no longer commit', async () => {
    const key = newKey();
    const writer = await h.storage.open(key);
    // More than one S3 part, so parts are stored when the upload is deleted.
    const first = Buffer.alloc(PART_SIZE + 1024, 1);
    await new Promise<void>((resolve, reject) => writer.stream.write(first, (error) => (error ? reject(error) : resolve())));
    expect(await h.partials(key)).toHaveLength(1);

    await (await h.another()).delete(key);
    expect(await h.partials(key)).toEqual([]);

    const finishAndCommit = async () => {
      writer.stream.end(Buffer.alloc(PART_SIZE, 2));
      await once(writer.stream, 'finish');
      await writer.commit();
    };
    await expect(finishAndCommit()).rejects.toThrow();
    await writer.abort();
    expect(await h.storage.exists(key)).toBe(false);
    expect(await h.partials(key)).toEqual([]);
    expect((await fetch((await signed(key)).url)).status).toBe(404);
  });

  it('delete() removes a committed object and the partial of a new writer alike', async () => {
    const key = newKey();
    await writeObject(h.storage, key, Buffer.from('old archive'));
    const rewriting = await h.storage.open(key);
    await h.storage.delete(key);
    expect(await h.storage.exists(key)).toBe(false);
    expect(await h.partials(key)).toEqual([]);
    await rewriting.abort();
  });

  it('streams a 20 MB object through upload and signed download byte for byte', async () => {
    const key = newKey();
    const size = 20 * 1024 * 1024 + 12_345;
    const data = generated(size);
    await writeObject(h.storage, key, data.source());
    const { response, bytes, sha256 } = await fetchHashed((await signed(key)).url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(size));
    expect(bytes).toBe(size);
    expect(sha256).toBe(data.sha256);
    await h.storage.delete(key);
  });

  it('signs URLs valid 15 minutes from its clock', async () => {
    const key = newKey();
    h.clock.ms = Date.parse('2026-03-04T05:06:07.890Z');
    try {
      const { url, expiresAt } = await signed(key);
      expect(expiresAt.toISOString()).toBe('2026-03-04T05:21:07.000Z');
      if (kind === 'filesystem') {
        expect(url).toMatch(
          new RegExp(
            `^${h.base}/files/exports/${key}\\?expires=${expiresAt.getTime() / 1000}&filename=${FILENAME.replace(/\./g, '\\.')}&signature=[0-9a-f]{64}$`,
          ),
        );
      } else {
        const query = new URL(url).searchParams;
        expect(new URL(url).pathname).toBe(`/lcf-exports/${key}`);
        expect(query.get('X-Amz-Date')).toBe('20260304T050607Z');
        expect(query.get('X-Amz-Expires')).toBe('900');
        expect(query.get('response-content-disposition')).toBe(`attachment; filename="${FILENAME}"`);
      }
    } finally {
      delete h.clock.ms;
    }
  });

  it('refuses a URL 15 minutes and 1 second after it was signed', async () => {
    const key = newKey();
    await writeObject(h.storage, key, Buffer.from('archive'));
    const response = await h.fetchExpired(key);
    expect(response.status).toBe(403);
    if (kind === 'filesystem') {
      expect(await response.json()).toEqual({
        error: 'Forbidden',
        code: 'SIGNED_URL_EXPIRED',
        details: expect.stringMatching(/^The download link expired at /),
      });
    } else {
      expect(await response.text()).toMatch(/<Code>AccessDenied<\/Code><Message>Request has expired<\/Message>/);
    }
    await h.storage.delete(key);
  });

  it('refuses keys that could leave its folder and file names that could break the header', async () => {
    for (const key of ['../etc/passwd', '/abs/path.zip', 'a/../b.zip', 'a/b/c.zip', 'a/b.zip.partial-1', 'A/b.zip', 'a', 'a/.zip', '']) {
      await expect(h.storage.open(key), key).rejects.toThrow(/invalid export storage key/);
      await expect(h.storage.delete(key), key).rejects.toThrow(/invalid export storage key/);
    }
    await expect(h.storage.signedUrl(newKey(), { base: h.base, filename: 'a"; x=.zip', ttlSeconds: 900 })).rejects.toThrow(
      /invalid download file name/,
    );
    await expect(h.storage.signedUrl(newKey(), { base: h.base, filename: FILENAME, ttlSeconds: 0 })).rejects.toThrow(
      /invalid signed URL lifetime/,
    );
  });
});

describe('filesystem store: files and signed URLs served by the service', () => {
  let h: Awaited<ReturnType<typeof filesystemHarness>>;
  let key: string;
  const body = generated(100_000, 'route');
  const archive = async () => Buffer.concat(await body.source().toArray());

  beforeAll(async () => {
    h = await filesystemHarness();
    key = newKey();
    await writeObject(h.storage, key, body.source());
  });
  afterAll(async () => {
    await h?.close();
  });

  const sign = async (k = key, filename = FILENAME) =>
    new URL((await h.storage.signedUrl(k, { base: h.base, filename, ttlSeconds: FIFTEEN_MINUTES })).url);
  const problem = async (response: Response) => ({ status: response.status, body: await response.json() });
  const invalid = {
    status: 403,
    body: { error: 'Forbidden', code: 'INVALID_SIGNATURE', details: expect.stringMatching(/signature does not match/) },
  };

  it('keeps the committed archive at <data dir>/exports/<key> and serves it with download headers', async () => {
    expect(await readFile(path.join(h.dataDir, 'exports', key))).toEqual(await archive());
    const response = await fetch(await sign());
    expect(response.status).toBe(200);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'content-type': 'application/zip',
      'content-length': '100000',
      'content-disposition': `attachment; filename="${FILENAME}"`,
      'cache-control': 'private, no-store',
      'accept-ranges': 'bytes',
      'referrer-policy': 'no-referrer',
    });
    expect(
      createHash('sha256')
        .update(Buffer.from(await response.arrayBuffer()))
        .digest('hex'),
    ).toBe(body.sha256);
  });

  it('answers 403 INVALID_SIGNATURE to an altered signature, key, file name or expiry, and to a missing signature', async () => {
    const url = await sign();
    const other = newKey();
    await writeObject(h.storage, other, Buffer.from('another organisation'));
    const [folder] = other.split('/');

    const alteredSignature = new URL(url);
    const signature = url.searchParams.get('signature')!;
    alteredSignature.searchParams.set('signature', `${signature[0] === '0' ? '1' : '0'}${signature.slice(1)}`);
    const alteredKey = new URL(url);
    alteredKey.pathname = `/files/exports/${other}`;
    const alteredFolder = new URL(url);
    alteredFolder.pathname = `/files/exports/${folder}/${key.split('/')[1]}`;
    const alteredFilename = new URL(url);
    alteredFilename.searchParams.set('filename', 'renamed.zip');
    const alteredExpiry = new URL(url);
    alteredExpiry.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    const unsigned = new URL(url);
    unsigned.searchParams.delete('signature');
    const shortSignature = new URL(url);
    shortSignature.searchParams.set('signature', signature.slice(0, 63));

    for (const altered of [alteredSignature, alteredKey, alteredFolder, alteredFilename, alteredExpiry, unsigned, shortSignature]) {
      expect(await problem(await fetch(altered)), altered.href).toEqual(invalid);
    }
    // A path that is no key at all, and the partial-file naming: refused the same way, nothing read.
    expect(await problem(await fetch(`${h.base}/files/exports/..%2F..%2Fexport-url-secret/x?${url.searchParams}`))).toEqual(invalid);
    expect(await problem(await fetch(`${h.base}/files/exports/${key}.partial-1?${url.searchParams}`))).toEqual(invalid);
  });

  it('accepts a URL up to the second it expires', async () => {
    const signedAt = Date.now();
    h.clock.ms = signedAt;
    try {
      const url = await sign();
      h.clock.ms = Number(url.searchParams.get('expires')) * 1000;
      expect((await fetch(url)).status).toBe(200);
      h.clock.ms += 1;
      expect((await problem(await fetch(url))).body.code).toBe('SIGNED_URL_EXPIRED');
    } finally {
      delete h.clock.ms;
    }
  });

  it('answers 404 to a valid URL once the archive is gone', async () => {
    const gone = newKey();
    await writeObject(h.storage, gone, Buffer.from('expired archive'));
    const url = await sign(gone);
    await h.storage.delete(gone);
    expect(await problem(await fetch(url))).toEqual({
      status: 404,
      body: { error: 'Export archive not found', code: 'NOT_FOUND', details: expect.any(String) },
    });
  });

  it('accepts URLs signed by another instance sharing the data directory, not by one with another directory', async () => {
    const sibling = await h.another();
    const fromSibling = new URL((await sibling.signedUrl(key, { base: h.base, filename: FILENAME, ttlSeconds: FIFTEEN_MINUTES })).url);
    expect((await fetch(fromSibling)).status).toBe(200);

    const stranger = await filesystemHarness();
    try {
      const fromStranger = new URL(
        (await stranger.storage.signedUrl(key, { base: h.base, filename: FILENAME, ttlSeconds: FIFTEEN_MINUTES })).url,
      );
      expect(await problem(await fetch(fromStranger))).toEqual(invalid);
    } finally {
      await stranger.close();
    }
  });

  it('answers HEAD with the headers and no body', async () => {
    const response = await fetch(await sign(), { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe('100000');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${FILENAME}"`);
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });

  it('serves one byte range so a broken download can resume', async () => {
    const url = await sign();
    const whole = await archive();
    const part = await fetch(url, { headers: { range: 'bytes=99990-' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 99990-99999/100000');
    expect(part.headers.get('content-length')).toBe('10');
    expect(Buffer.from(await part.arrayBuffer())).toEqual(whole.subarray(99_990));

    const middle = await fetch(url, { headers: { range: 'bytes=10-19' } });
    expect(Buffer.from(await middle.arrayBuffer())).toEqual(whole.subarray(10, 20));
    const suffix = await fetch(url, { headers: { range: 'bytes=-5' } });
    expect(suffix.headers.get('content-range')).toBe('bytes 99995-99999/100000');

    const outside = await fetch(url, { headers: { range: 'bytes=100000-' } });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe('bytes */100000');
    expect((await outside.json()).code).toBe('RANGE_NOT_SATISFIABLE');
    // Several ranges are not supported: the whole archive.
    const several = await fetch(url, { headers: { range: 'bytes=0-1,5-6' } });
    expect(several.status).toBe(200);
    expect(several.headers.get('content-length')).toBe('100000');
    await several.arrayBuffer();
  });

  it('only GET and HEAD', async () => {
    const response = await fetch(await sign(), { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(await h.storage.exists(key)).toBe(true);
  });
});

describe('S3 store: configuration and the service', () => {
  it('refuses an access key id without its secret (or the reverse) at start-up', async () => {
    const { EXPORT_S3_SECRET_ACCESS_KEY: _secret, ...withoutSecret } = s3.env;
    await expect(createExportStorage(loadConfig({ DATA_DIR: tmpdir(), ...withoutSecret }))).rejects.toThrow(
      /EXPORT_S3_ACCESS_KEY_ID: set it together with EXPORT_S3_SECRET_ACCESS_KEY, or neither/,
    );
  });

  it('mounts a router without routes (presigned URLs point at the bucket)', async () => {
    const h = await s3Harness(s3);
    const { base, server } = await serve(createExportFileRouter(h.storage));
    try {
      const response = await fetch(`${base}/files/exports/${newKey()}?expires=1&filename=a.zip&signature=${'0'.repeat(64)}`);
      expect(response.status).toBe(404);
      expect((await response.json()).code).toBe('ROUTE_NOT_FOUND');
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await h.close();
    }
  });
});
