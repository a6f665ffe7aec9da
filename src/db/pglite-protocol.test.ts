import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPGlite } from './database.ts';
import { releasingParsedResults } from './pglite-protocol.ts';

/** A simple-protocol Query message ('Q', its length, the SQL ending in NUL), as the socket server passes it on. */
function simpleQuery(sql: string): Uint8Array {
  const text = Buffer.from(`${sql}\0`);
  const message = Buffer.alloc(5 + text.length);
  message.write('Q', 0);
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  return message;
}

describe('the embedded database thread streaming answers (PGlite 0.4)', () => {
  let pglite: PGlite;
  beforeAll(async () => {
    pglite = await startPGlite(undefined);
  }, 60_000);
  afterAll(() => pglite?.close());

  it('keeps no copy of what it answered: its heap does not grow with the rows it streams', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heapUsed = () => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const db = releasingParsedResults(pglite);
    // 10 rows of 10 000 characters: 100 kB an answer, 10 MB over 100 answers if they were kept.
    const query = simpleQuery("SELECT repeat('x', 10000) FROM generate_series(1, 10)");
    let streamed = 0;
    const stream = () => db.execProtocolRawStream(query, { onRawData: (data) => void (streamed += data.length) });
    await stream();
    const before = heapUsed();
    for (let i = 0; i < 100; i += 1) await stream();
    expect(streamed).toBeGreaterThan(100 * 100_000);
    expect(heapUsed() - before).toBeLessThan(2 * 1024 * 1024);
  });
});
