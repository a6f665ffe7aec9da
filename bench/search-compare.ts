// npx tsx bench/search-compare.ts — the measured comparison behind docs/search.md: each candidate
// builds an index of data/catalogue/*.json and answers test/catalogue/search-queries.json. Prints
// top-1 / top-5, p50 / p99 per query and build time. The winner lives in src/catalogue/search.ts;
// the losers live here only. Options: --rounds N (latency passes, default 10), --misses (list them).
import { performance } from 'node:perf_hooks';
import MiniSearch from 'minisearch';
import Fuse from 'fuse.js';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { loadCatalogue, type CatalogueEntry } from '../src/catalogue/catalogue-data.ts';
import { CatalogueIndex, fold } from '../src/catalogue/search.ts';
import { latency, loadQueries, ms, pct, quality, type QualityQuery } from './search.ts';

type Ranked = readonly CatalogueEntry[];
interface Engine {
  search(q: string): Ranked | Promise<Ranked>;
  close?(): Promise<void>;
}
interface Candidate {
  name: string;
  build(entries: readonly CatalogueEntry[]): Engine | Promise<Engine>;
}

const LIMIT = 15;
const allText = (e: CatalogueEntry): string => [e.brand, e.name, e.mpn, ...e.aliases].join(' ');

// ------------------------------------------------------------------------------ MiniSearch

/** The winner, as shipped (src/catalogue/search.ts). */
const shipped: Candidate = {
  name: 'MiniSearch 7.2, as shipped (src/catalogue/search.ts)',
  build: (entries) => {
    const index = new CatalogueIndex(entries);
    return { search: (q) => index.search(q, LIMIT).map((h) => h.entry) };
  },
};

/** MiniSearch with its own tokenizer and only accent folding added: what the library gives alone. */
const miniPlain: Candidate = {
  name: 'MiniSearch 7.2, default tokenizer, fuzzy 0.2 + prefix',
  build: (entries) => {
    const mini = new MiniSearch<{ id: number; brand: string; name: string; mpn: string; aliases: string }>({
      fields: ['brand', 'name', 'mpn', 'aliases'],
      processTerm: (t) => fold(t),
      searchOptions: { boost: { name: 2, aliases: 1.5, mpn: 1.5, brand: 0.6 }, fuzzy: 0.2, prefix: true },
    });
    mini.addAll(entries.map((e, id) => ({ id, brand: e.brand, name: e.name, mpn: e.mpn, aliases: e.aliases.join(' ; ') })));
    return { search: (q) => mini.search(q).slice(0, LIMIT).map((r) => entries[r.id as number]!) };
  },
};

// ------------------------------------------------------------------------------ Fuse.js

const FUSE_KEYS = [
  { name: 'name', weight: 2 },
  { name: 'aliases', weight: 1.5 },
  { name: 'mpn', weight: 1.5 },
  { name: 'brand', weight: 0.6 },
];

/** Fuse's Bitap matcher over each field (the whole query is one pattern). */
const fuseBitap: Candidate = {
  name: 'Fuse.js 7.5, Bitap (threshold 0.4, ignoreLocation)',
  build: (entries) => {
    const fuse = new Fuse(entries as CatalogueEntry[], {
      keys: FUSE_KEYS,
      ignoreDiacritics: true,
      ignoreLocation: true,
      threshold: 0.4,
      includeScore: true,
    });
    return { search: (q) => fuse.search(q, { limit: LIMIT }).map((r) => r.item) };
  },
};

/** Fuse's token search (per-word fuzzy with TF-IDF), the mode meant for multi-word queries. */
const fuseTokens: Candidate = {
  name: 'Fuse.js 7.5, useTokenSearch (TF-IDF, any word)',
  build: (entries) => {
    const fuse = new Fuse(entries as CatalogueEntry[], {
      keys: FUSE_KEYS,
      ignoreDiacritics: true,
      ignoreLocation: true,
      threshold: 0.4,
      useTokenSearch: true,
      includeScore: true,
    });
    return { search: (q) => fuse.search(q, { limit: LIMIT }).map((r) => r.item) };
  },
};

/** Fuse Bitap with the same text analysis as the winner (letter/digit split, folded). */
const fuseBitapFolded: Candidate = {
  name: 'Fuse.js 7.5, Bitap on folded text, extended search (each word fuzzy, OR)',
  build: (entries) => {
    const docs = entries.map((e) => ({ e, brand: fold(e.brand), name: fold(e.name), mpn: fold(e.mpn), aliases: e.aliases.map(fold) }));
    const fuse = new Fuse(docs, { keys: FUSE_KEYS, ignoreLocation: true, threshold: 0.4, useExtendedSearch: true, includeScore: true });
    return {
      search: (q) => {
        const ws = fold(q).match(/[a-z0-9]+\+*/g) ?? [];
        if (ws.length === 0) return [];
        // Extended search: space = AND, `|` = OR. OR of the words, as a person's words may not all match.
        return fuse.search(ws.join(' | '), { limit: LIMIT }).map((r) => r.item.e);
      },
    };
  },
};

// ------------------------------------------------------------------------------ pg_trgm (PGlite)

async function pglite(): Promise<PGlite> {
  const db = await PGlite.create({ extensions: { pg_trgm } });
  await db.exec('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  return db;
}

async function insertRows(db: PGlite, table: string, rows: [number, string][]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    const params = chunk.flat();
    const values = chunk.map((_, j) => `($${2 * j + 1}::int, $${2 * j + 2}::text)`).join(',');
    await db.query(`INSERT INTO ${table} (id, t) VALUES ${values}`, params);
  }
}

/** word_similarity(query, one document string per device), GIN trigram index, `<%` operator. */
function trgmWord(fn: 'word_similarity' | 'strict_word_similarity'): Candidate {
  const op = fn === 'word_similarity' ? '<%' : '<<%';
  const guc = fn === 'word_similarity' ? 'pg_trgm.word_similarity_threshold' : 'pg_trgm.strict_word_similarity_threshold';
  return {
    name: `pg_trgm (PGlite 0.4), ${fn}, one document per device, GIN`,
    build: async (entries) => {
      const db = await pglite();
      await db.exec(`CREATE TABLE doc (id int PRIMARY KEY, t text NOT NULL); SET ${guc} = 0.3;`);
      await insertRows(db, 'doc', entries.map((e, i) => [i, fold(allText(e))]));
      await db.exec('CREATE INDEX doc_trgm ON doc USING gin (t gin_trgm_ops); ANALYZE doc;');
      return {
        search: async (q) => {
          const r = await db.query<{ id: number }>(
            `SELECT id FROM doc WHERE $1 ${op} t ORDER BY ${fn}($1, t) DESC, id LIMIT ${LIMIT}`,
            [fold(q)],
          );
          return r.rows.map((row) => entries[row.id]!);
        },
        close: () => db.close(),
      };
    },
  };
}

/** similarity(query, text) with one row per name / alias / mpn, best row per device. */
const trgmSimilarityPerText: Candidate = {
  name: 'pg_trgm (PGlite 0.4), similarity, one row per name/alias/mpn, GIN',
  build: async (entries) => {
    const db = await pglite();
    await db.exec('CREATE TABLE txt (id int NOT NULL, t text NOT NULL); SET pg_trgm.similarity_threshold = 0.2;');
    const rows: [number, string][] = [];
    entries.forEach((e, i) => {
      for (const t of new Set([`${e.brand} ${e.name}`, e.name, e.mpn, ...e.aliases].map(fold))) rows.push([i, t]);
    });
    await insertRows(db, 'txt', rows);
    await db.exec('CREATE INDEX txt_trgm ON txt USING gin (t gin_trgm_ops); ANALYZE txt;');
    return {
      search: async (q) => {
        const r = await db.query<{ id: number }>(
          `SELECT id, max(similarity($1, t)) AS s FROM txt WHERE t % $1 GROUP BY id ORDER BY s DESC, id LIMIT ${LIMIT}`,
          [fold(q)],
        );
        return r.rows.map((row) => entries[row.id]!);
      },
      close: () => db.close(),
    };
  },
};

// ------------------------------------------------------------------------------ run

const CANDIDATES: Candidate[] = [
  shipped,
  miniPlain,
  fuseBitap,
  fuseTokens,
  fuseBitapFolded,
  trgmWord('word_similarity'),
  trgmWord('strict_word_similarity'),
  trgmSimilarityPerText,
];

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function measure(c: Candidate, entries: readonly CatalogueEntry[], queries: readonly QualityQuery[], rounds: number) {
  const t0 = performance.now();
  const engine = await c.build(entries);
  const build = performance.now() - t0;
  try {
    const q = await quality(queries, (text) => engine.search(text));
    const lat = await latency(queries, (text) => engine.search(text), rounds);
    return { build, ...q, ...lat };
  } finally {
    await engine.close?.();
  }
}

const entries = loadCatalogue();
const queries = loadQueries();
const rounds = Number(arg('--rounds') ?? 10);
const only = arg('--only');
console.log(`catalogue: ${entries.length} devices; ${queries.length} queries; ${rounds} latency rounds; node ${process.version}`);
const rows: Record<string, Record<string, string>> = {};
for (const c of CANDIDATES) {
  if (only && !c.name.toLowerCase().includes(only.toLowerCase())) continue;
  const r = await measure(c, entries, queries, rounds);
  rows[c.name] = { 'top-1': pct(r.top1), 'top-5': pct(r.top5), 'p50 ms': ms(r.p50), 'p99 ms': ms(r.p99), 'build ms': ms(r.build) };
  console.log(`${c.name}: top-1 ${pct(r.top1)}, top-5 ${pct(r.top5)}, p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms, build ${ms(r.build)} ms`);
  if (process.argv.includes('--misses')) {
    for (const m of r.misses) console.log(`    ${JSON.stringify(m.q)} expected ${m.expected}, got ${m.got.join(' | ') || '(nothing)'}`);
  }
}
console.table(rows);
