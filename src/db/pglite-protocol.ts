import type { PGlite } from '@electric-sql/pglite';

// What the embedded database's thread (src/db/pglite-worker.ts) puts between the socket server and
// PGlite 0.4: the protocol fixes its streaming call needs.

const SYNC = 0x53;
const SIMPLE_QUERY = 0x51;
const TERMINATE = 0x58;
/** Parse, Bind, Describe, Execute, Close, Flush: the extended query messages, answered without ReadyForQuery until Sync. */
const EXTENDED = new Set([0x50, 0x42, 0x44, 0x45, 0x43, 0x48]);
const ERROR_RESPONSE = 0x45;
const READY_FOR_QUERY = 0x5a;

/**
 * PGlite 0.4 answers an extended query message that fails with ErrorResponse and a ReadyForQuery at once
 * (electric-sql/pglite#958), then runs the messages after it, and Sync gives a second ReadyForQuery.
 * node-pg takes the first as the end of the statement and the second as the end of the next one: its
 * answers would shift by one. PostgreSQL's rule is applied here instead: after the error, the
 * premature ReadyForQuery is dropped and messages are discarded until Sync, whose ReadyForQuery ends the statement.
 */
export function withExtendedQueryErrors(db: PGlite): PGlite {
  let failed = false;
  return withRawStream(db, async (message, options) => {
    const type = message[0]!;
    if (failed && type !== SYNC && type !== TERMINATE) return;
    if (type === SYNC) failed = false;
    if (!EXTENDED.has(type)) return db.execProtocolRawStream(message, options);
    const outgoing = new MessageFilter();
    return db.execProtocolRawStream(message, {
      ...options,
      onRawData: (data) => {
        const kept = outgoing.filter(data);
        if (outgoing.sawError) failed = true;
        if (kept.length) options.onRawData(kept);
      },
    });
  });
}

const NO_MESSAGE = new Uint8Array(0);

/**
 * PGlite 0.4 also parses every answer it streams into JavaScript objects and keeps them until a call
 * other than execProtocolRawStream (electric-sql/pglite#1025, not merged): the socket server only
 * streams, so every row ever answered stayed in this thread's heap (about 2 MB a second under
 * `npm run bench:soak`, docs/operations.md, "Memory"). An empty execProtocolStream after each
 * statement's end (Sync, or a simple query) drops them: it starts with a new list and runs nothing,
 * and the statement's ReadyForQuery is already sent, so it sends none.
 */
export function releasingParsedResults(db: PGlite): PGlite {
  return withRawStream(db, async (message, options) => {
    await db.execProtocolRawStream(message, options);
    const type = message[0];
    if (type === SYNC || type === SIMPLE_QUERY) await db.execProtocolStream(NO_MESSAGE, { syncToFs: false, throwOnError: false });
  });
}

/** `db` with its execProtocolRawStream replaced (the socket server's only way in), its other members its own. */
function withRawStream(db: PGlite, execProtocolRawStream: PGlite['execProtocolRawStream']): PGlite {
  return new Proxy(db, {
    get: (target, property) =>
      property === 'execProtocolRawStream'
        ? execProtocolRawStream
        : ((value: unknown) => (typeof value === 'function' ? value.bind(target) : value))(Reflect.get(target, property, target)),
  });
}

/** Walks backend messages across chunks (a type byte, a 4-byte length counting itself), leaving out ReadyForQuery. */
class MessageFilter {
  sawError = false;
  private header: number[] = [];
  /** Bytes left of the current message, and whether they are kept. */
  private remaining = 0;
  private keep = true;

  filter(data: Uint8Array): Uint8Array {
    const kept: Uint8Array[] = [];
    let at = 0;
    while (at < data.length) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, data.length - at);
        if (this.keep) kept.push(data.subarray(at, at + take));
        this.remaining -= take;
        at += take;
        continue;
      }
      this.header.push(data[at]!);
      at += 1;
      if (this.header.length < 5) continue;
      const [type, a, b, c, d] = this.header as [number, number, number, number, number];
      this.header = [];
      this.remaining = ((a << 24) | (b << 16) | (c << 8) | d) - 4;
      this.keep = type !== READY_FOR_QUERY;
      if (type === ERROR_RESPONSE) this.sawError = true;
      if (this.keep) kept.push(Uint8Array.of(type, a, b, c, d));
    }
    return kept.length === 1 ? kept[0]! : Buffer.concat(kept);
  }
}
