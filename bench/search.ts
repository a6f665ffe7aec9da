// npm run bench:search — in-process: builds the catalogue search index (src/catalogue/search.ts),
// then runs test/catalogue/search-queries.json repeatedly and prints the index build time, p50/p99
// query time, the top-1 / top-5 hit rates and how well unknown model numbers rank their closest
// device. The comparison with the other candidates is bench/search-compare.ts (docs/search.md).
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { loadCatalogue, type CatalogueEntry } from '../src/catalogue/catalogue-data.ts';
import { CatalogueIndex, matchModel, resolveModel } from '../src/catalogue/search.ts';

export interface QualityQuery {
  q: string;
  brand: string;
  mpn: string;
  note?: string;
}

export const QUERIES_FILE = fileURLToPath(new URL('../test/catalogue/search-queries.json', import.meta.url));

export function loadQueries(): QualityQuery[] {
  return JSON.parse(readFileSync(QUERIES_FILE, 'utf8')) as QualityQuery[];
}

export const sameDevice = (e: Pick<CatalogueEntry, 'brand' | 'mpn'>, q: Pick<QualityQuery, 'brand' | 'mpn'>): boolean =>
  e.brand.toLowerCase() === q.brand.toLowerCase() && e.mpn.toLowerCase() === q.mpn.toLowerCase();

export interface Quality {
  top1: number;
  top5: number;
  misses: { q: string; expected: string; got: string[] }[];
}

/** Top-1 / top-5 rate of a ranking function over the query list. */
export async function quality(
  queries: readonly QualityQuery[],
  rank: (q: string) => readonly Pick<CatalogueEntry, 'brand' | 'mpn'>[] | Promise<readonly Pick<CatalogueEntry, 'brand' | 'mpn'>[]>,
): Promise<Quality> {
  let top1 = 0;
  let top5 = 0;
  const misses: Quality['misses'] = [];
  for (const query of queries) {
    const got = await rank(query.q);
    const at = got.findIndex((e) => sameDevice(e, query));
    if (at === 0) top1++;
    if (at >= 0 && at < 5) top5++;
    if (at !== 0)
      misses.push({ q: query.q, expected: `${query.brand} ${query.mpn}`, got: got.slice(0, 3).map((e) => `${e.brand} ${e.mpn}`) });
  }
  return { top1: top1 / queries.length, top5: top5 / queries.length, misses };
}

export function percentile(sortedMs: readonly number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  const i = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[i]!;
}

/** Per-query latency over `rounds` passes of the query list (after one warm-up pass). */
export async function latency(
  queries: readonly QualityQuery[],
  run: (q: string) => unknown,
  rounds = 20,
): Promise<{ p50: number; p99: number; n: number }> {
  for (const query of queries) await run(query.q);
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const query of queries) {
      const t0 = performance.now();
      await run(query.q);
      times.push(performance.now() - t0);
    }
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), n: times.length };
}

/** The model part of a device's name: "Dell Latitude 5440" → "Latitude 5440". */
export const modelPart = (e: CatalogueEntry): string =>
  e.name.toLowerCase().startsWith(`${e.brand.toLowerCase()} `) ? e.name.slice(e.brand.length + 1) : e.name;

/** Every digit run of the catalogue's names, part numbers and aliases. */
export const numberRuns = (entries: readonly CatalogueEntry[]): Set<string> =>
  new Set(entries.flatMap((e) => [e.name, e.mpn, ...e.aliases].flatMap((t) => t.match(/[0-9]+/g) ?? [])));

/** The longest digit run of a model name, 2+ digits, not a measure: "5440" of "Latitude 5440", never "500" of "500GB". */
function modelRun(model: string): string | undefined {
  // A measure ("500GB", "44mm") changed gives the same model in another size.
  const runs = model.match(/[0-9]+(?![0-9]*\s*(?:gb|tb|mb|mm|w|wh|mah|hz|k)\b)/gi);
  const run = runs?.reduce((a, b) => (b.length > a.length ? b : a));
  return run && run.length >= 2 ? run : undefined;
}

/** Change the longest digit run to one that no device anywhere has: "Latitude 5440" → "Latitude 5441". */
export function unknownModel(model: string, seenRuns: Set<string>): string | undefined {
  const run = modelRun(model);
  if (!run) return undefined;
  for (let k = 1; k < 50; k++) {
    const next = String((Number(run) + k) % 10 ** run.length).padStart(run.length, '0');
    if (!seenRuns.has(next)) return model.replace(run, next);
  }
  return undefined;
}

/**
 * Ranking by closeness: each device's model name with its number plus one where no device has that
 * number or the next ("Latitude 5441" for the 5440, as no 5441 or 5442 exists), so the device
 * itself has the closest number and should come first.
 */
export function closeness(
  entries: readonly CatalogueEntry[],
  rank: (q: string) => readonly CatalogueEntry[],
): { n: number; top1: number; top3: number } {
  const seenRuns = numberRuns(entries);
  let n = 0;
  let top1 = 0;
  let top3 = 0;
  for (const e of entries) {
    const model = modelPart(e);
    const run = modelRun(model);
    if (!run) continue;
    const next = String(Number(run) + 1);
    if (next.length !== run.length || seenRuns.has(next) || seenRuns.has(String(Number(run) + 2))) continue;
    const at = rank(model.replace(run, next)).indexOf(e);
    n++;
    if (at === 0) top1++;
    if (at >= 0 && at < 3) top3++;
  }
  return { n, top1: top1 / n, top3: top3 / n };
}

export const ms = (v: number): string => (v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
export const pct = (v: number): string => `${(v * 100).toFixed(1)}%`;

async function main(): Promise<void> {
  const entries = loadCatalogue();
  const queries = loadQueries();
  const builds: number[] = [];
  let index!: CatalogueIndex;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    index = new CatalogueIndex(entries);
    builds.push(performance.now() - t0);
  }
  builds.sort((a, b) => a - b);
  const rank = (text: string) => index.search(text).map((h) => h.entry);
  const q = await quality(queries, rank);
  const held = queries.filter((x) => x.note?.startsWith('[holdout]'));
  const heldQ = held.length ? await quality(held, rank) : undefined;
  const tuneQ = held.length
    ? await quality(
        queries.filter((x) => !x.note?.startsWith('[holdout]')),
        rank,
      )
    : undefined;
  const lat = await latency(queries, (text) => index.search(text));
  const brandOf = new Map(queries.map((x) => [x.q, x.brand]));
  const matchLat = await latency(queries, (text) => matchModel(index, text, brandOf.get(text)), 5);
  const close = closeness(entries, rank);
  // Names the catalogue does not know, as a footprint by name sees them: every reading is tried before
  // the answer is "none" (the slowest path of resolveModel).
  const seenRuns = numberRuns(entries);
  const unknown = entries
    .filter((_, i) => i % 10 === 0)
    .flatMap((e) => {
      const model = unknownModel(modelPart(e), seenRuns);
      return model ? [`${model} Notebook PC`, `${model} Gen 3`, model].map((q) => ({ q, brand: e.brand, mpn: '' })) : [];
    });
  const brandOfUnknown = new Map(unknown.map((x) => [x.q, x.brand]));
  const unknownLat = await latency(unknown, (text) => resolveModel(index, text, brandOfUnknown.get(text)), 3);
  const matched = queries.filter((x) => {
    const hit = matchModel(index, x.q, x.brand);
    return hit && sameDevice(hit.entry, x);
  }).length;
  console.log(`catalogue: ${entries.length} devices; ${queries.length} queries (test/catalogue/search-queries.json)`);
  console.log(`index build: ${ms(builds[0]!)} ms (best of 5), first build ${ms(Math.max(...builds))} ms`);
  console.log(`query time over ${lat.n} queries: p50 ${ms(lat.p50)} ms, p99 ${ms(lat.p99)} ms`);
  console.log(`top-1 ${pct(q.top1)}, top-5 ${pct(q.top5)}`);
  if (heldQ && tuneQ) {
    console.log(`  tuning set (${queries.length - held.length}): top-1 ${pct(tuneQ.top1)}, top-5 ${pct(tuneQ.top5)}`);
    console.log(`  holdout set (${held.length}, written after tuning): top-1 ${pct(heldQ.top1)}, top-5 ${pct(heldQ.top5)}`);
  }
  console.log(
    `closest model number (${close.n} names with their number + 1, "Latitude 5441" for the 5440): the device itself first ${pct(close.top1)}, top-3 ${pct(close.top3)}`,
  );
  console.log(
    `matchModel(q, brand) on the same queries: ${pct(matched / queries.length)} confidently matched to the right device; ` +
      `p50 ${ms(matchLat.p50)} ms, p99 ${ms(matchLat.p99)} ms`,
  );
  console.log(
    `resolveModel of ${unknown.length} unknown model names (generated, with sheet suffixes): p50 ${ms(unknownLat.p50)} ms, p99 ${ms(unknownLat.p99)} ms`,
  );
  if (q.misses.length) {
    console.log(`misses (${q.misses.length}):`);
    for (const m of q.misses) console.log(`  ${JSON.stringify(m.q)} expected ${m.expected}, got ${m.got.join(' | ') || '(nothing)'}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
