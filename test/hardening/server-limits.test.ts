import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess } from '../support/process.ts';
import { openTestDatabase, TEST_DATABASE_KIND } from '../support/database.ts';

/** Sends raw bytes and returns what the server answered before closing (or after `waitMs`). */
function raw(url: string, payload: string | Buffer, { closeAfterWrite = false, waitMs = 3_000 } = {}): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    const done = () => resolve(answer);
    socket.on('data', (d) => (answer += d));
    socket.on('end', done);
    socket.on('close', done);
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? done() : reject(error)));
    socket.write(payload, () => {
      if (closeAfterWrite) socket.destroy();
    });
    setTimeout(() => {
      socket.destroy();
      done();
    }, waitMs).unref();
  });
}

/** The JSON body of a raw answer, plain or chunked (one chunk). */
const bodyOf = (answer: string) => {
  const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  return JSON.parse(body.slice(body.indexOf('{'), body.lastIndexOf('}') + 1));
};

// Issue 9, findings 2 and 9: limits that only a real HTTP server shows.
describe(`HTTP-level limits of the server process on ${TEST_DATABASE_KIND}`, () => {
  let dataDir: string;
  let server: Awaited<ReturnType<typeof startServerProcess>>;
  let db: Awaited<ReturnType<typeof openTestDatabase>> | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-limits-'));
    if (TEST_DATABASE_KIND === 'postgres') db = await openTestDatabase();
    server = await startServerProcess({ DATA_DIR: dataDir, DATABASE_URL: db?.url ?? '', ADMIN_TOKEN: '' });
  });
  afterAll(async () => {
    server.child.kill('SIGKILL');
    await db?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers headers over 16 KiB with a JSON 431 instead of an empty answer', async () => {
    const answer = await raw(server.url, `GET /v1/search?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(answer)).toMatchObject({ code: 'HEADERS_TOO_LARGE' });
  });

  it('answers a URL between 8 and 16 KiB with a JSON 414', async () => {
    const res = await fetch(`${server.url}/v1/search?q=${'a'.repeat(10_000)}`);
    expect(res.status).toBe(414);
    expect(((await res.json()) as { code: string }).code).toBe('URI_TOO_LONG');
  });

  it('stops reading a chunked body at the route limit and answers 413', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    const chunks = Array.from({ length: 8 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('');
    const answer = await raw(
      server.url,
      `POST /v1/footprint/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}0\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(bodyOf(answer)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('logs a client that disconnects mid-body at info, not as an unhandled error', async () => {
    await raw(
      server.url,
      'POST /v1/footprint/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"products":[',
      {
        closeAfterWrite: true,
      },
    );
    await new Promise((r) => setTimeout(r, 500));
    const lines = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.some((l) => l.level === 30 && l.msg === 'client disconnected before the response')).toBe(true);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
