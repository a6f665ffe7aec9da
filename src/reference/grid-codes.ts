/**
 * Pure helpers for region codes: normalisation and "did you mean" suggestions.
 * No I/O: the region list and the names to match against are passed in.
 */

/** One region as the suggestion index sees it. */
export interface CodeIndexEntry {
  code: string;
  kind: 'country' | 'subdivision';
  /** Display name first, then aliases (any language). */
  names: readonly string[];
  /** Other codes that denote the region exactly, e.g. the ISO alpha-3 code of a country. */
  altCodes?: readonly string[];
}

const CODE_SHAPE = /^[A-Z]{2}(-[A-Z0-9]{1,3})?$/;

/** Trims, upper-cases and accepts `_` for `-`; returns undefined unless the result has the shape of a region code. */
export function canonicalCodeShape(input: string): string | undefined {
  const code = input.trim().toUpperCase().replace(/_/g, '-');
  return CODE_SHAPE.test(code) ? code : undefined;
}

/** `'de'` -> `'DE'`, `' us-ca '` -> `'US-CA'`; undefined when the code is not in `known`. */
export function normaliseCode(input: string, known: ReadonlySet<string>): string | undefined {
  const code = canonicalCodeShape(input);
  return code !== undefined && known.has(code) ? code : undefined;
}

/** Lower case, accents removed, punctuation to single spaces. */
export function normaliseText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Optimal-string-alignment distance (Levenshtein plus adjacent transposition). */
export function editDistance(a: string, b: string): number {
  const n = a.length;
  const m = b.length;
  if (n === 0) return m;
  if (m === 0) return n;
  let prevPrev: number[] = new Array<number>(m + 1).fill(0);
  let prev: number[] = Array.from({ length: m + 1 }, (_, j) => j);
  for (let i = 1; i <= n; i++) {
    const cur: number[] = new Array<number>(m + 1).fill(0);
    cur[0] = i;
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (prevPrev[j - 2] ?? 0) + 1);
      }
      cur[j] = best;
    }
    prevPrev = prev;
    prev = cur;
  }
  return prev[m] ?? 0;
}

const QWERTY_ROWS = ['1234567890', 'QWERTYUIOP', 'ASDFGHJKL', 'ZXCVBNM'];
const KEY_POS = new Map<string, [number, number]>();
QWERTY_ROWS.forEach((row, r) => [...row].forEach((ch, c) => KEY_POS.set(ch, [r, c])));

/** True when the two keys touch on a QWERTY keyboard (a likely typo). */
function adjacentKeys(a: string, b: string): boolean {
  const pa = KEY_POS.get(a);
  const pb = KEY_POS.get(b);
  if (!pa || !pb) return false;
  const dr = pa[0] - pb[0];
  // Rows are staggered by about half a key to the right going down.
  const dc = pa[1] - pb[1] + dr * 0.5;
  return Math.abs(dr) <= 1 && Math.abs(dc) <= 1.01 && !(dr === 0 && dc === 0);
}

interface Scored {
  code: string;
  score: number;
  sameFirst: number;
  typo: number;
  kind: number;
}

/**
 * Ranks region codes by closeness to `input`: exact codes and names first, then name prefixes and
 * substrings, then edit distance on the code (ties: same first letter, neighbouring keyboard key)
 * and on the names. Returns at most `n` codes, best first.
 */
export function rankClosestCodes(input: string, index: readonly CodeIndexEntry[], n = 3): string[] {
  if (!Number.isFinite(n) || n <= 0) return [];
  const raw = input.trim();
  if (raw === '') return [];
  const ranked = rank(raw, index, 2);
  // Nothing within two edits and no name match: fall back to the nearest codes at any distance.
  return take(ranked.length > 0 ? ranked : rank(raw, index, Number.POSITIVE_INFINITY), Math.floor(n));
}

function take(scored: readonly Scored[], n: number): string[] {
  const out: string[] = [];
  for (const s of scored) {
    if (!out.includes(s.code)) out.push(s.code);
    if (out.length >= n) break;
  }
  return out;
}

function rank(raw: string, index: readonly CodeIndexEntry[], maxCodeDistance: number): Scored[] {
  const upper = raw.toUpperCase().replace(/_/g, '-').replace(/\s+/g, '');
  const text = normaliseText(raw);
  // Only inputs that could be a mistyped code are compared with codes by edit distance.
  const codeLike = /^[A-Z0-9-]{1,6}$/.test(upper);
  const scored: Scored[] = [];
  for (const entry of index) {
    let score = Number.POSITIVE_INFINITY;
    // Codes.
    if (entry.code === upper || (entry.altCodes ?? []).includes(upper)) score = 0;
    else if (codeLike) {
      const d = editDistance(upper, entry.code);
      if (d <= maxCodeDistance) score = Math.min(score, d);
    }
    // Names.
    if (text.length > 0) {
      for (const name of entry.names) {
        const candidate = normaliseText(name);
        if (candidate === '') continue;
        if (candidate === text) {
          score = Math.min(score, 0);
          break;
        }
        if (text.length >= 3) {
          if (candidate.startsWith(text)) score = Math.min(score, 0.5);
          else if (candidate.split(' ').some((word) => word.startsWith(text))) score = Math.min(score, 0.7);
          else if (candidate.includes(text)) score = Math.min(score, 0.9);
        }
        const limit = Math.max(1, Math.floor(text.length / 4));
        // The distance is at least the difference in length: skip the quadratic comparison when that is already too far.
        if (text.length >= 4 && Math.abs(text.length - candidate.length) <= limit) {
          const d = editDistance(text, candidate);
          if (d <= limit) score = Math.min(score, d + 0.25);
        }
      }
    }
    if (!Number.isFinite(score)) continue;
    const typo =
      entry.code.length === upper.length && [...upper].some((ch, i) => ch !== entry.code[i] && adjacentKeys(ch, entry.code[i] ?? ''))
        ? 0
        : 1;
    scored.push({
      code: entry.code,
      score,
      sameFirst: entry.code[0] === upper[0] ? 0 : 1,
      typo,
      kind: entry.kind === 'country' ? 0 : 1,
    });
  }
  scored.sort(
    (a, b) =>
      a.score - b.score ||
      a.sameFirst - b.sameFirst ||
      a.typo - b.typo ||
      a.kind - b.kind ||
      (a.code < b.code ? -1 : a.code > b.code ? 1 : 0),
  );
  return scored;
}
