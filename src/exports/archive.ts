/**
 * The organisation export archive (docs/exports.md, "The archive"): a ZIP streamed with yazl, holding
 * README.md, one JSON Lines file per table (`<table>.jsonl`) and manifest.json, written last once
 * every file's SHA-256 is known. Nothing is buffered beyond a page of rows: each table file is a
 * Readable that reads its next page only when yazl asks for more, and yazl only reads as fast as
 * `output` (the storage upload) accepts.
 */
import { createHash } from 'node:crypto';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import type { Database } from '../db/database.ts';
import { openRowReader, type RowReader } from './archive-rows.ts';
import { consistencyNote, redactionList, renderArchiveReadme } from './archive-readme.ts';
import { EXPORT_TABLES, type ExportTable } from './tables.ts';

export const MANIFEST_SCHEMA_VERSION = '1.0';

/** Rows per page (PGlite: per statement; PostgreSQL: per buffer handed to the ZIP, at most PAGE_BYTES). */
export const DEFAULT_PAGE_SIZE = 2_000;

/** onProgress runs after this many rows (and after each table): the worker renews its lease and sees cancellation. */
export const PROGRESS_EVERY_ROWS = 5_000;

/**
 * Deflate level 1: the export shares the machine with requests, and higher levels cost much more CPU
 * for a slightly smaller archive (docs/exports.md, "Streaming, progress, cancellation, failure").
 */
export const COMPRESSION_LEVEL = 1;

export interface ArchiveProgress {
  tables_done: number;
  total_tables: number;
  rows_written: number;
  current_table: ExportTable | null;
}

export interface ExportManifest {
  schema_version: '1.0';
  generated_at: string;
  org_id: string;
  software_version: string;
  record_counts: Record<string, number>;
  file_hashes: Record<string, string>;
  notes: string[];
}

export interface ExportArchiveOptions {
  db: Database;
  orgId: string;
  tables: readonly ExportTable[];
  /** The storage upload stream: receives the ZIP and is ended on success, destroyed with the error on failure. */
  output: Writable;
  softwareVersion: string;
  generatedAt: Date;
  /** Awaited every `progressEveryRows` rows and after each table; when it throws, the archive is abandoned and the call rejects with that error. */
  onProgress?: (progress: ArchiveProgress) => Promise<void>;
  /** Rows per page (tests use small pages). */
  pageSize?: number;
  /** Default PROGRESS_EVERY_ROWS. */
  progressEveryRows?: number;
  /** Deflate level 0-9, default COMPRESSION_LEVEL: `npm run bench:export` compares levels. */
  compressionLevel?: number;
}

export interface ExportArchiveResult {
  manifest: ExportManifest;
  totalRows: number;
  /** Size and SHA-256 (hex) of the whole ZIP, as written to output. */
  bytes: number;
  sha256: string;
}

export const tableFileName = (table: ExportTable) => `${table}.jsonl`;

export async function writeExportArchive(options: ExportArchiveOptions): Promise<ExportArchiveResult> {
  const { db, orgId, tables, output, softwareVersion, generatedAt, onProgress } = options;
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const progressEveryRows = options.progressEveryRows ?? PROGRESS_EVERY_ROWS;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new Error(`export: page size must be a positive integer, got ${pageSize}`);
  if (tables.length === 0 || new Set(tables).size !== tables.length || tables.some((t) => !EXPORT_TABLES.includes(t))) {
    throw new Error(`export: invalid table list ${JSON.stringify(tables)} (resolveExportScope makes a valid one)`);
  }

  const zip = new ZipFile();
  // Every file gets the export's time, so the same data gives the same entries.
  const entry = { mtime: generatedAt, compressionLevel: options.compressionLevel ?? COMPRESSION_LEVEL };
  const zipHash = createHash('sha256');
  let bytes = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      zipHash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  const written = pipeline(zip.outputStream, measure, output);
  // The first failure wins: an onProgress error must reach the caller as itself, not as the
  // premature-close errors the teardown provokes afterwards.
  let failure: { error: unknown } | undefined;
  const failed = new Promise<never>((_, reject) => {
    written.catch((error: unknown) => {
      failure ??= { error };
      reject(failure.error);
    });
  });
  failed.catch(() => {});
  // yazl reports a broken entry on the ZipFile: fail the output, which ends the wait below.
  zip.on('error', (error: Error) => {
    failure ??= { error };
    (zip.outputStream as Readable).destroy(error);
  });

  const opening = openRowReader(db, orgId, tables, pageSize);
  opening.catch(() => {});
  let reader: RowReader | undefined;
  let current: Readable | undefined;
  try {
    reader = await Promise.race([opening, failed]);
    const generated_at = generatedAt.toISOString();
    const fileHashes: Record<string, string> = {};
    const recordCounts: Record<string, number> = {};

    const readme = Buffer.from(
      renderArchiveReadme({ orgId, generatedAt: generated_at, softwareVersion, tables, snapshot: reader.snapshot }),
    );
    fileHashes['README.md'] = sha256(readme);
    zip.addBuffer(readme, 'README.md', entry);

    const progress: ArchiveProgress = { tables_done: 0, total_tables: tables.length, rows_written: 0, current_table: null };
    let unreported = 0;
    for (const table of tables) {
      progress.current_table = table;
      const fileHash = createHash('sha256');
      let rows = 0;
      const pages = reader.pages(table);
      const chunks = async function* () {
        for await (const page of pages) {
          fileHash.update(page.bytes);
          rows += page.rows;
          progress.rows_written += page.rows;
          unreported += page.rows;
          if (onProgress && unreported >= progressEveryRows) {
            unreported = 0;
            await onProgress({ ...progress });
          }
          yield page.bytes;
        }
      };
      const stream = Readable.from(chunks(), { objectMode: false, highWaterMark: 1 });
      current = stream;
      const done = new Promise<void>((resolve, reject) => {
        stream.on('error', (error) => {
          failure ??= { error };
          reject(failure.error);
        });
        // 'end': the last page was read, so the hash and count are final (yazl may still be compressing it).
        stream.once('end', resolve);
      });
      zip.addReadStream(stream, tableFileName(table), entry);
      await Promise.race([done, failed]);
      fileHashes[tableFileName(table)] = fileHash.digest('hex');
      recordCounts[table] = rows;
      progress.tables_done += 1;
      progress.current_table = null;
      unreported = 0;
      if (onProgress) await Promise.race([onProgress({ ...progress }), failed]);
    }
    current = undefined;
    await reader.close();

    const totalRows = progress.rows_written;
    const manifest: ExportManifest = {
      schema_version: MANIFEST_SCHEMA_VERSION,
      generated_at,
      org_id: orgId,
      software_version: softwareVersion,
      record_counts: recordCounts,
      file_hashes: fileHashes,
      notes: manifestNotes(tables, reader.snapshot),
    };
    zip.addBuffer(Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), 'manifest.json', entry);
    zip.end();
    await Promise.race([written, failed]);
    return { manifest, totalRows, bytes, sha256: zipHash.digest('hex') };
  } catch (error) {
    failure ??= { error };
    // Tear down: stop reading (ends the table's page generator), fail the upload so storage
    // discards the partial object, give the connection back.
    current?.destroy();
    (zip.outputStream as Readable).destroy(failure.error as Error);
    output.destroy(failure.error as Error);
    await written.catch(() => {});
    // Also a reader that was still opening when the output failed.
    await (reader ?? (await opening.catch(() => undefined)))?.close().catch(() => {});
    throw failure.error;
  }
}

function manifestNotes(tables: readonly ExportTable[], snapshot: boolean): string[] {
  const redactions = redactionList(tables);
  const excluded = EXPORT_TABLES.filter((t) => !tables.includes(t));
  return [
    'One JSON Lines file per table (<table>.jsonl): UTF-8, one JSON object per row, keys = column names (snake_case) as in the database and the API; timestamps ISO 8601 UTC; JSON columns nested. See README.md.',
    `Tables: ${tables.length} of ${EXPORT_TABLES.length}${excluded.length ? `; excluded by scope: ${excluded.join(', ')}` : ''}. record_counts = lines per file.`,
    redactions.length ? `Redacted to null: ${redactions.join('; ')}.` : 'No redacted columns in the selected tables.',
    "file_hashes: SHA-256 (hex) of each file's uncompressed bytes. manifest.json cannot hash itself; the export job's sha256 covers the whole ZIP including this manifest.",
    consistencyNote(snapshot),
    "usage_counters: counters of the organisation's API keys only; counters of anonymous callers belong to no organisation.",
    "assets.jsonl figures are copies of each asset's active calculation (calculations.jsonl); their sum is a current lifecycle total, not an inventory for a reporting period (README.md).",
  ];
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
