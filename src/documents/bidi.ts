import bidiFactory from 'bidi-js';
import { runWidth, textRuns, type TextRun } from './fonts.ts';

/**
 * Right-to-left text on a line. pdfkit draws what it is given from left to right and shapes it with
 * fontkit; fontkit lays a run of Arabic or Hebrew letters out right to left itself, but nothing
 * orders runs of different directions (an Arabic name with a number, a Latin name with an Arabic
 * one). bidi-js (the Unicode Bidirectional Algorithm) gives each character its embedding level;
 * the runs are put in visual order here, and each is handed to pdfkit so that what comes out is
 * in that order.
 */
// bidi-js is CommonJS whose module.exports is the factory; its typings declare it as an ES default export.
const bidi = (bidiFactory as unknown as typeof bidiFactory.default)();

export interface PlacedRun extends TextRun {
  /** Width in points. */
  width: number;
  /** Laid out as one piece: pdfkit otherwise shapes word by word, which puts right-to-left words in the wrong order. */
  whole: boolean;
}

const RTL_SCRIPT = /[\p{sc=Arabic}\p{sc=Hebrew}\p{sc=Syriac}\p{sc=Thaana}\p{sc=Nko}\p{sc=Samaritan}\p{sc=Mandaic}\p{sc=Adlam}]/u;
const RTL_MARKS = /[\u200f\u202b\u202e\u2067]/;
const SCRIPT_LETTER = /[^\p{sc=Zyyy}\p{sc=Zinh}\p{sc=Zzzz}]/u;

/** fontkit takes the direction of a run from its first character of a script: right to left reverses it. */
function fontkitReverses(text: string): boolean {
  const first = SCRIPT_LETTER.exec(text)?.[0];
  return first !== undefined && RTL_SCRIPT.test(first);
}

const mirroredReverse = (text: string): string =>
  [...text]
    .reverse()
    .map((char) => bidi.getMirroredCharacter(char) ?? char)
    .join('');

interface Piece {
  run: TextRun;
  level: number;
}

/** Splits runs where the embedding level changes (a replacement run stays whole). */
function pieces(runs: TextRun[], levels: Uint8Array): Piece[] {
  const out: Piece[] = [];
  let offset = 0;
  for (const run of runs) {
    let start = 0;
    for (let i = 1; i <= run.text.length; i++) {
      const boundary =
        i === run.text.length ||
        (run.actual === undefined && !/[\udc00-\udfff]/.test(run.text[i]!) && levels[offset + i] !== levels[offset + start]);
      if (!boundary) continue;
      const text = run.text.slice(start, i);
      out.push({ run: { ...run, text }, level: levels[offset + start] ?? 0 });
      start = i;
    }
    offset += run.text.length;
  }
  return out;
}

/** Reverses every sequence of pieces at or above each level, from the highest down to the lowest odd one (rule L2). */
function visualOrder(list: Piece[]): Piece[] {
  const order = [...list];
  const highest = Math.max(...order.map((p) => p.level));
  const lowestOdd = Math.min(...order.map((p) => (p.level % 2 === 1 ? p.level : Infinity)));
  for (let level = highest; level >= lowestOdd; level--) {
    for (let i = 0; i < order.length; i++) {
      if (order[i]!.level < level) continue;
      let end = i;
      while (end + 1 < order.length && order[end + 1]!.level >= level) end++;
      order.splice(i, end - i + 1, ...order.slice(i, end + 1).reverse());
      i = end;
    }
  }
  return order;
}

/** The runs of one line from left to right, each with the text to hand pdfkit. */
export function visualRuns(text: string, size: number, bold = false): PlacedRun[] {
  const runs = textRuns(text, bold);
  const logical = runs.map((run) => run.text).join('');
  if (!RTL_SCRIPT.test(logical) && !RTL_MARKS.test(logical))
    return runs.map((run) => ({ ...run, width: runWidth(run, size), whole: false }));
  const { levels } = bidi.getEmbeddingLevels(logical);
  return visualOrder(pieces(runs, levels)).map(({ run, level }) => {
    const reverses = fontkitReverses(run.text);
    const rtl = level % 2 === 1;
    // What fontkit reverses is given in logical order; the rest is reversed (and mirrored) here.
    const drawn = rtl === reverses ? run.text : rtl ? mirroredReverse(run.text) : [...run.text].reverse().join('');
    // Shaped glyphs are no guide to the text: Noto Sans Arabic draws the dots of ش, ت, ج as marks on bases
    // that س, ب, ح share, so a glyph's Unicode in the PDF would be one of several letters. The run's actual
    // text says which, in the order of the glyphs as drawn (as extraction tools read glyphs).
    const actual = reverses ? [...drawn].reverse().join('') : run.actual;
    return { ...run, text: drawn, actual, width: runWidth(run, size), whole: reverses };
  });
}
