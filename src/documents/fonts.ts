import fs from 'node:fs';
import { createRequire } from 'node:module';
import * as fontkit from 'fontkit';

/**
 * The embedded fonts: Noto Sans for Latin, Greek and Cyrillic text and Noto Sans SC for what it lacks
 * (Chinese, Japanese kana, ...). Both ship as TTF in @expo-google-fonts (SIL OFL 1.1); pdfkit embeds
 * only the glyphs a document uses. Parsed once per worker thread: a fresh parse of the 10 MB CJK file
 * costs ~150 ms per document.
 */
export type FontName = 'latin' | 'latin-bold' | 'cjk' | 'cjk-bold';

const FILES: Record<FontName, string> = {
  latin: '@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf',
  'latin-bold': '@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf',
  cjk: '@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf',
  'cjk-bold': '@expo-google-fonts/noto-sans-sc/700Bold/NotoSansSC_700Bold.ttf',
};

let loaded: Record<FontName, fontkit.Font> | undefined;

function fonts(): Record<FontName, fontkit.Font> {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    const open = (name: FontName): fontkit.Font => {
      const font = fontkit.create(fs.readFileSync(require.resolve(FILES[name])));
      if (!('layout' in font)) throw new Error(`${FILES[name]} is a font collection, expected one font`);
      return font;
    };
    loaded = { latin: open('latin'), 'latin-bold': open('latin-bold'), cjk: open('cjk'), 'cjk-bold': open('cjk-bold') };
  }
  return loaded;
}

export function registerFonts(doc: PDFKit.PDFDocument): void {
  for (const [name, font] of Object.entries(fonts())) {
    // pdfkit 0.20 takes a parsed fontkit font as well as a path or buffer (not in its typings).
    (doc as unknown as { registerFont(name: string, src: unknown): void }).registerFont(name, font);
  }
}

export interface TextRun {
  text: string;
  font: FontName;
}

/** Splits text into runs: Noto Sans where it has the glyph, Noto Sans SC for the rest. */
export function textRuns(text: string, bold = false): TextRun[] {
  const latin: FontName = bold ? 'latin-bold' : 'latin';
  const cjk: FontName = bold ? 'cjk-bold' : 'cjk';
  const { latin: coverage } = fonts();
  const runs: TextRun[] = [];
  for (const char of text) {
    const cp = char.codePointAt(0) ?? 32;
    const last = runs[runs.length - 1];
    // Spaces stay in the current run so a fallback run does not break at every word.
    const font = last && /\s/.test(char) ? last.font : coverage.hasGlyphForCodePoint(cp) ? latin : cjk;
    if (last && last.font === font) last.text += char;
    else runs.push({ text: char, font });
  }
  return runs;
}

/** True when some character needs the CJK font. */
export function needsFallback(text: string): boolean {
  return textRuns(text).some((run) => run.font !== 'latin');
}

const advances = new Map<string, number>();

/**
 * Advance width in points: the sum of each character's advance in the font its run uses. Kerning is
 * left out (under 1 % on these fonts) because shaping every candidate line costs more than the drawing.
 */
export function textWidth(text: string, size: number, bold = false): number {
  let em = 0;
  for (const run of textRuns(text, bold)) {
    const font = fonts()[run.font];
    for (const char of run.text) {
      const key = `${run.font}|${char}`;
      let advance = advances.get(key);
      if (advance === undefined) {
        advance = font.glyphForCodePoint(char.codePointAt(0) ?? 32).advanceWidth / font.unitsPerEm;
        advances.set(key, advance);
      }
      em += advance;
    }
  }
  return em * size;
}

/** Shortens text with an ellipsis until it fits the width. */
export function fitText(text: string, width: number, size: number, bold = false): string {
  if (textWidth(text, size, bold) <= width) return text;
  const chars = [...text];
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (textWidth(`${chars.slice(0, mid).join('').trimEnd()}…`, size, bold) <= width) lo = mid;
    else hi = mid - 1;
  }
  return `${chars.slice(0, lo).join('').trimEnd()}…`;
}
