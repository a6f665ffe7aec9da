/**
 * Reads an organisation's rows for the export archive, table by table, as pages of JSON Lines.
 *
 * Raw SQL on a session of its own (db.session()), not Prisma: PostgreSQL builds each line itself
 * (row_to_json over the table's columns, in the database's column order), so types survive as
 * stored (jsonb nested, arrays, bigint, numeric and float8 as numbers) and Node only moves bytes;
 * Prisma would materialise every row as objects and serialise them again. The bulk read still stays
 * inside the organisation: every statement filters on the table's owner column (`org_id`, or `id`
 * for organizations) with the organisation's id — the confinement the scoped Prisma client
 * (src/auth/org-scope.ts) gives request code. Usage counters of anonymous callers have a null
 * org_id and so never match.
 *
 * One way per database, each holding about a page (pageSize rows, at most PAGE_BYTES) in memory:
 * - PostgreSQL: one READ ONLY, REPEATABLE READ transaction on a dedicated connection (not the pool),
 *   so the archive is one consistent snapshot (an asset's active calculation is in calculations.jsonl
 *   even if both change meanwhile), and one `COPY (SELECT …) TO STDOUT` per table: one pass over the
 *   organisation's rows, the lines arriving as raw bytes straight into the page buffer. The socket
 *   is paused while the archive is behind, so the server waits instead of Node buffering.
 *   Not keyset pages, which read other organisations' rows or re-read rows sharing a created_at, nor a
 *   cursor, whose rows node-pg turns into JavaScript strings that pile up in V8's old generation: COPY
 *   makes no string per row, so the heap stays flat (docs/exports.md, "Reading the rows").
 * - PGlite: one connection serves every request, so no transaction may stay open across pages.
 *   Keyset pages instead, each a short statement ordered by the primary key
 *   (`WHERE owner = $1 AND pk > last ORDER BY pk LIMIT n`), so requests run between pages; rows
 *   written meanwhile may or may not be included (no snapshot across pages).
 *
 * Lines: one JSON object per row, keys = column names; timestamptz as ISO 8601 UTC with
 * milliseconds and `Z` (formatted in SQL, whatever the session time zone), dates `YYYY-MM-DD`,
 * REDACTED_COLUMNS as null.
 */
import { Readable } from 'node:stream';
import type pg from 'pg';
import type { Database, SqlSession } from '../db/database.ts';
import { ownerColumn, REDACTED_COLUMNS, type ExportTable } from './tables.ts';

/** Upper bound of a page's bytes (a single larger row gets a page of its own). */
export const PAGE_BYTES = 1 << 20;

/** A page of rows as JSON Lines: UTF-8, each line ended by \n. */
export interface Page {
  bytes: Buffer;
  rows: number;
}

export interface RowReader {
  /** The organisation's rows of `table`, 1..pageSize rows a page. */
  pages(table: ExportTable): AsyncIterable<Page>;
  /** Whether all tables are read from one snapshot (PostgreSQL) or page by page (PGlite). */
  readonly snapshot: boolean;
  /** Ends the snapshot and releases the connection, also in the middle of a table; safe to call twice. */
  close(): Promise<void>;
}

interface Column {
  name: string;
  type: string;
}

interface TableShape {
  columns: Column[];
  primaryKey: Column[];
}

const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;

const ISO_UTC = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

function columnExpression(table: ExportTable, column: Column): string {
  const name = quote(column.name);
  if (REDACTED_COLUMNS[table]?.[column.name]) return `NULL::text AS ${name}`;
  if (column.type === 'timestamptz') return `to_char(t.${name} AT TIME ZONE 'UTC', ${ISO_UTC}) AS ${name}`;
  return `t.${name}`;
}

/** Columns (in table order) and primary key of each table, from the catalogue of the current schema. */
async function readShapes(session: SqlSession, tables: readonly ExportTable[]): Promise<Map<ExportTable, TableShape>> {
  const columns = await session.query<{ table_name: string; column_name: string; type: string; pk_position: number | null }>(
    `SELECT c.relname AS table_name, a.attname AS column_name, format_type(a.atttypid, NULL) AS type,
            array_position(i.indkey::int2[], a.attnum) AS pk_position
     FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
     LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
     WHERE c.relkind = 'r' AND c.relname = ANY($1::text[])
     ORDER BY c.relname, a.attnum`,
    [tables],
  );
  const shapes = new Map<ExportTable, TableShape>();
  for (const table of tables) {
    const own = columns.filter((c) => c.table_name === table);
    if (own.length === 0) throw new Error(`export: table ${table} not found in the database schema`);
    shapes.set(table, {
      columns: own.map((c) => ({ name: c.column_name, type: shortType(c.type) })),
      primaryKey: own
        .filter((c) => c.pk_position !== null)
        .sort((a, b) => a.pk_position! - b.pk_position!)
        .map((c) => ({ name: c.column_name, type: shortType(c.type) })),
    });
  }
  return shapes;
}

/** format_type spells timestamptz "timestamp(3) with time zone"; only that distinction matters here. */
const shortType = (type: string) => (/^timestamp(\(\d\))? with time zone$/.test(type) ? 'timestamptz' : type);

const selectList = (table: ExportTable, shape: TableShape) => shape.columns.map((c) => columnExpression(table, c)).join(', ');

export async function openRowReader(db: Database, orgId: string, tables: readonly ExportTable[], pageSize: number): Promise<RowReader> {
  const session = await db.session();
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await session.release();
  };
  try {
    if (db.kind === 'postgres') {
      const client = session.client;
      if (!client) throw new Error('export: a PostgreSQL session without its connection');
      await session.exec(`SET client_encoding = 'UTF8'`);
      await session.exec('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      // One COPY reads a whole table, as long as that takes: a server-wide statement_timeout is for requests, not this.
      await session.exec('SET LOCAL statement_timeout = 0');
      return copyReader(client, await readShapes(session, tables), orgId, pageSize, release);
    }
    return keysetReader(session, await readShapes(session, tables), orgId, pageSize, release);
  } catch (error) {
    await release().catch(() => {});
    throw error;
  }
}

/** COPY's CSV format with a delimiter and a quote character that JSON text never holds raw: each line is exactly the JSON. */
const COPY_AS_LINES = `WITH (FORMAT csv, DELIMITER E'\\x02', QUOTE E'\\x01')`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function copyReader(
  client: pg.Client,
  shapes: Map<ExportTable, TableShape>,
  orgId: string,
  pageSize: number,
  release: () => Promise<void>,
): RowReader {
  // COPY takes no bind parameters: the id is written into the statement, checked to be a UUID and nothing else.
  if (!UUID.test(orgId)) throw new Error('export: the organisation id is not a UUID');
  let copying: Readable | undefined;
  return {
    snapshot: true,
    async close() {
      // In the middle of a COPY the connection cannot take a ROLLBACK; ending it rolls back just the same.
      if (copying && !copying.readableEnded) copying.destroy();
      else await client.query('ROLLBACK').catch(() => {});
      await release();
    },
    pages(table) {
      const shape = shapes.get(table)!;
      const rows = `SELECT row_to_json(r)::text FROM (SELECT ${selectList(table, shape)} FROM ${quote(table)} t WHERE t.${quote(ownerColumn(table))} = '${orgId}'::uuid) r`;
      copying = copyOut(client, `COPY (${rows}) TO STDOUT ${COPY_AS_LINES}`, pageSize);
      return copying;
    },
  };
}

/**
 * A COPY … TO STDOUT as a stream of pages. PostgreSQL sends one CopyData message per row; its bytes
 * are copied into the current page at once (node-pg's parser may reuse the buffer they sit in).
 */
function copyOut(client: pg.Client, sql: string, pageSize: number): Readable {
  let socket: { pause(): void; resume(): void } | undefined;
  let page = Buffer.allocUnsafe(PAGE_BYTES);
  let used = 0;
  let rows = 0;
  const pages = new Readable({ objectMode: true, highWaterMark: 1, read: () => socket?.resume() });
  const flush = () => {
    if (rows === 0) return;
    const full: Page = { bytes: page.subarray(0, used), rows };
    page = Buffer.allocUnsafe(PAGE_BYTES);
    used = 0;
    rows = 0;
    if (!pages.push(full)) socket?.pause();
  };
  // A node-pg Submittable: the client hands it the protocol messages of its statement.
  client.query({
    submit(connection: pg.Connection) {
      socket = connection.stream;
      connection.query(sql);
    },
    handleCopyData(message: { chunk: Buffer }) {
      const line = message.chunk;
      if (used + line.length > page.length) {
        flush();
        if (line.length > page.length) page = Buffer.allocUnsafe(line.length);
      }
      used += line.copy(page, used);
      rows += 1;
      if (rows === pageSize) flush();
    },
    handleCommandComplete: flush,
    handleReadyForQuery() {
      socket?.resume();
      pages.push(null);
    },
    handleError: (error: Error) => pages.destroy(error),
    handleRowDescription() {},
    handleDataRow() {},
    handleEmptyQuery() {},
    handlePortalSuspended() {},
  });
  return pages;
}

function keysetReader(
  session: SqlSession,
  shapes: Map<ExportTable, TableShape>,
  orgId: string,
  pageSize: number,
  close: () => Promise<void>,
): RowReader {
  return {
    snapshot: false,
    close,
    async *pages(table) {
      const shape = shapes.get(table)!;
      const key = shape.primaryKey;
      if (key.length === 0) throw new Error(`export: table ${table} has no primary key to page by`);
      const keyList = key.map((c) => `t.${quote(c.name)}`).join(', ');
      const query = (after: string) =>
        `SELECT ${key.map((c, i) => `r.${quote(c.name)}::text AS k${i}`).join(', ')}, row_to_json(r)::text AS line
         FROM (SELECT ${selectList(table, shape)} FROM ${quote(table)} t
               WHERE t.${quote(ownerColumn(table))} = $1::uuid ${after}
               ORDER BY ${keyList} LIMIT ${pageSize}) r`;
      const first = query('');
      const next = query(`AND (${keyList}) > (${key.map((c, i) => `$${i + 2}::${c.type}`).join(', ')})`);
      let after: string[] | undefined;
      for (;;) {
        const rows = await session.query<{ line: string } & Record<string, string>>(
          after ? next : first,
          after ? [orgId, ...after] : [orgId],
        );
        const last = rows.at(-1);
        if (last) after = key.map((_, i) => last[`k${i}`]!);
        const page = encodePage(rows);
        if (page.rows > 0) yield page;
        if (page.rows < pageSize) break;
      }
    },
  };
}

/** The rows' lines written straight into one buffer (joining the strings first would put a second copy of the page on the heap). */
function encodePage(rows: { line: string }[]): Page {
  let size = rows.length;
  for (const row of rows) size += Buffer.byteLength(row.line);
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  for (const row of rows) {
    at += bytes.write(row.line, at);
    bytes[at++] = 0x0a;
  }
  return { bytes, rows: rows.length };
}
