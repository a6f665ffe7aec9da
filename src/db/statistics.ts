/**
 * The planner statistics of the embedded database. PGlite runs no autovacuum, so nothing analyses a
 * table as it grows: a table filled after the last ANALYZE is planned from defaults that assume one
 * organisation's rows are a small share of it. An import batch's lookup of the assets it updates then
 * read every asset of the organisation instead of using the (org_id, serial_number) index: 287 ms per
 * batch at 30 000 assets, 6.6 ms after ANALYZE (docs/benchmarks.md). This does autovacuum's analyze:
 * tables that grew by a tenth since they were last analysed (in pages, which PGlite keeps without a
 * statistics collector) are analysed again.
 */

/** What runs the statements: the embedded database's one connection, queued behind other statements. */
export type RunSql = <T>(sql: string) => Promise<T[]>;

/** How often the embedded database looks for tables to analyse. */
export const STATISTICS_CHECK_MS = 10_000;

/** Grown: more than a tenth, and 8 pages (64 KB), larger than when last analysed (relpages, 0 if never). */
const GROWN_TABLES = `
SELECT format('%I', c.relname) AS name FROM pg_class c
WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
  AND pg_relation_size(c.oid) / current_setting('block_size')::int > c.relpages * 1.1 + 8
ORDER BY c.relname`;

/**
 * Analyses the tables that grew, and says which. A sample of 3 000 rows per table (statistics target
 * 10 instead of 100: enough for the planner to tell an organisation's share of a table) keeps each
 * ANALYZE to tens of milliseconds of the one connection at 100 000 rows, instead of half a second.
 * One query string is one transaction, to which SET LOCAL applies.
 */
export async function analyseGrownTables(run: RunSql): Promise<string[]> {
  const grown = (await run<{ name: string }>(GROWN_TABLES)).map((t) => t.name);
  if (grown.length) await run(`SET LOCAL default_statistics_target = 10; ANALYZE ${grown.join(', ')}`);
  return grown;
}

/** Checks every `everyMs` until stopped; a check that fails is reported and the next one tries again. */
export function keepStatistics(run: RunSql, onError: (error: unknown) => void, everyMs = STATISTICS_CHECK_MS): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    analyseGrownTables(run)
      .catch(onError)
      .finally(() => {
        running = false;
      });
  }, everyMs);
  // Housekeeping: it does not keep the process alive.
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
