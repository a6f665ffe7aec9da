/**
 * The asset commands of `lcf` (src/cli/main.ts):
 *
 * - `lcf assets import FILE.csv --key KEY`: reads the file, sends it to POST {LCF_URL}/v1/assets/csv
 *   in requests of up to 1 000 rows (the API's limit) and reports per-row errors with the file's
 *   data row numbers.
 * - `lcf admin seed-demo --org ORG_ID --assets N`: writes a demo inventory straight into the
 *   database the server uses (DATABASE_URL, else the embedded database in DATA_DIR; stop the
 *   server first when it runs on the embedded database, which allows one process only).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { loadConfig } from '../config/config.ts';
import { openDatabase } from '../db/database.ts';
import { prepareDatabase } from '../reference/prepare-database.ts';
import { createLogger } from '../observability/logger.ts';
import { ApiError } from '../errors/api-error.ts';
import { MAX_IMPORT_ROWS, toCsvLine } from './import-rows.ts';
import type { ImportRowError } from './import.ts';
import { seedDemo, type SeedDemoResult } from './seed-demo.ts';
import { apiRequest } from '../cli/api-request.ts';
import { REST_BASE } from '../kernel/paths.ts';

export interface FileImportOutcome {
  file: string;
  total_rows: number;
  created: number;
  updated: number;
  failed: number;
  import_ids: string[];
  /** row: 1-based data row of the file (header not counted, empty lines skipped) */
  errors: Omit<ImportRowError, 'index'>[];
}

/** Splits a CSV file into header + chunks of at most `size` data rows, as CSV texts. */
export function chunkCsv(text: string, size = MAX_IMPORT_ROWS): { csv: string; offset: number; rows: number }[] {
  const records: string[][] = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true });
  const [header, ...rows] = records;
  if (!header) return [];
  if (rows.length === 0) return [{ csv: toCsvLine(header), offset: 0, rows: 0 }];
  const chunks: { csv: string; offset: number; rows: number }[] = [];
  for (let offset = 0; offset < rows.length; offset += size) {
    const part = rows.slice(offset, offset + size);
    chunks.push({ csv: [header, ...part].map(toCsvLine).join('\n'), offset, rows: part.length });
  }
  return chunks;
}

export async function importCsvFile(
  file: string,
  { baseUrl, key, onProgress = () => {} }: { baseUrl: string; key: string; onProgress?: (done: number, total: number) => void },
): Promise<FileImportOutcome> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let chunks: ReturnType<typeof chunkCsv>;
  try {
    chunks = chunkCsv(text);
  } catch (error) {
    throw new Error(`${file} is not valid CSV: ${(error as Error).message}`);
  }
  if (chunks.length === 0) throw new Error(`${file} is empty: expected a header row and asset rows`);
  const outcome: FileImportOutcome = {
    file: path.basename(file),
    total_rows: 0,
    created: 0,
    updated: 0,
    failed: 0,
    import_ids: [],
    errors: [],
  };
  const total = chunks.reduce((n, c) => n + c.rows, 0);
  for (const chunk of chunks) {
    // biome-ignore lint/suspicious/noExplicitAny: the JSON answer of POST /v1/assets/csv, read field by field
    let body: Record<string, any>;
    try {
      body = await apiRequest({ baseUrl, key }, 'POST', `${REST_BASE}/assets/csv`, { csv: chunk.csv });
    } catch (error) {
      const done = outcome.total_rows ? ` after ${outcome.total_rows} rows (${outcome.created} created, ${outcome.updated} updated)` : '';
      throw new Error(`${(error as Error).message}; stopped${done || ' before importing anything'}`);
    }
    outcome.total_rows += body.total_rows;
    outcome.created += body.created;
    outcome.updated += body.updated;
    outcome.failed += body.failed;
    outcome.import_ids.push(body.import_id);
    for (const e of body.errors as ImportRowError[]) {
      outcome.errors.push({ row: (e.row ?? 0) + chunk.offset, serial_number: e.serial_number, field: e.field, reason: e.reason });
    }
    onProgress(outcome.total_rows, total);
  }
  return outcome;
}

export async function seedDemoFromCli(
  orgId: string,
  n: number,
  onProgress: (done: number, total: number) => void,
): Promise<SeedDemoResult> {
  const config = loadConfig(process.env);
  const db = await openDatabase(
    config.databaseUrl
      ? { kind: 'postgres', url: config.databaseUrl, poolSize: 4 }
      : { kind: 'pglite', dataDir: path.join(config.dataDir, 'pglite') },
  );
  try {
    await prepareDatabase(db, createLogger('silent'));
    return await seedDemo(db.prisma, orgId, n, onProgress);
  } catch (error) {
    // One line for the user: the ApiError's details name the problem (e.g. no such organisation).
    if (error instanceof ApiError) throw new Error(error.details || error.message);
    throw error;
  } finally {
    await db.close();
  }
}
