import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import * as fontkit from 'fontkit';

/**
 * The embedded fonts, all Noto (SIL OFL 1.1), in fallback order: a character is drawn in the first
 * face that has it. pdfkit embeds only the glyphs a document uses. The fontsource packages are split in
 * unicode-range files (Korean in 125, emoji in 12): only the files covering a document's characters
 * are read, each parsed once per worker thread (a parse of the large Chinese file is slow).
 * WOFF, not WOFF2: fontkit cannot subset WOFF2's transformed glyph tables (the glyphs come out empty).
 */
interface Family {
  name: string;
  package: string;
  /** The file of a weight, relative to the package; `subset` is the fontsource unicode-range subset. */
  file: (weight: 400 | 700, subset: string) => string;
  /** Without 700, bold text uses the regular font. */
  weights: readonly (400 | 700)[];
  /** fontsource subsets (keys of the package's unicode.json) whose ranges say which file has a character; 'all': every one. */
  subsets?: readonly string[] | 'all';
  /** The licence files, shipped next to the fonts as the OFL asks. */
  licences: readonly string[];
  /** Its space is not for text: spaces next to its characters are drawn in the first font. */
  foreignSpaces?: boolean;
}

/** A fontsource subset's name in file names: `arabic`, or `12` for `[12]`. */
const subsetId = (subset: string) => subset.replace(/^\[(\d+)\]$/, '$1');
const fontsourceFile = (pkg: string) => (weight: number, subset: string) =>
  `files/${pkg.split('/')[1]}-${subsetId(subset)}-${weight}-normal.woff`;

const FAMILIES: readonly Family[] = [
  {
    name: 'latin',
    package: '@expo-google-fonts/noto-sans',
    file: (weight) => (weight === 700 ? '700Bold/NotoSans_700Bold.ttf' : '400Regular/NotoSans_400Regular.ttf'),
    weights: [400, 700],
    licences: ['LICENSE', 'LICENSE_FONT'],
  },
  {
    name: 'arabic',
    package: '@fontsource/noto-sans-arabic',
    file: fontsourceFile('@fontsource/noto-sans-arabic'),
    weights: [400, 700],
    subsets: ['arabic'],
    licences: ['LICENSE'],
  },
  {
    name: 'hebrew',
    package: '@fontsource/noto-sans-hebrew',
    file: fontsourceFile('@fontsource/noto-sans-hebrew'),
    weights: [400, 700],
    subsets: ['hebrew'],
    licences: ['LICENSE'],
  },
  {
    name: 'cjk',
    package: '@expo-google-fonts/noto-sans-sc',
    file: (weight) => (weight === 700 ? '700Bold/NotoSansSC_700Bold.ttf' : '400Regular/NotoSansSC_400Regular.ttf'),
    weights: [400, 700],
    licences: ['LICENSE', 'LICENSE_FONT'],
  },
  {
    name: 'korean',
    package: '@fontsource/noto-sans-kr',
    file: fontsourceFile('@fontsource/noto-sans-kr'),
    weights: [400, 700],
    subsets: 'all',
    licences: ['LICENSE'],
  },
  // Monochrome outlines: colour emoji fonts (CBDT, COLR) are not embeddable by pdfkit. Its space is 1.3 em wide.
  {
    name: 'emoji',
    package: '@fontsource/noto-emoji',
    file: fontsourceFile('@fontsource/noto-emoji'),
    weights: [400],
    subsets: 'all',
    licences: ['LICENSE'],
    foreignSpaces: true,
  },
];

/**
 * Where the font files are. Run from the sources, in the font packages (devDependencies); built, in
 * dist/fonts/, where the build copies the files `shippedFontFiles()` lists, so an install pruned of
 * devDependencies carries only those.
 */
const COMPILED = !import.meta.url.endsWith('.ts');
const require = createRequire(import.meta.url);

/** A file of a font package in node_modules. */
export function packageFile(pkg: string, file: string): string {
  // fontsource packages export their LICENSE and CSS only: find the package folder through the LICENSE.
  return path.join(path.dirname(require.resolve(`${pkg}/LICENSE`)), file);
}

const filePath = (pkg: string, file: string): string =>
  COMPILED ? fileURLToPath(new URL(`../fonts/${pkg}/${file}`, import.meta.url)) : packageFile(pkg, file);

/** One file of a family: a whole font, or one unicode-range subset of it. */
interface Face {
  family: Family;
  subset: string;
  /** Inclusive code point ranges; absent: ask the font. */
  ranges?: [number, number][];
}

function unicodeRanges(family: Family, read = filePath): Record<string, string> {
  return JSON.parse(fs.readFileSync(read(family.package, 'unicode.json'), 'utf8')) as Record<string, string>;
}

function parseRanges(css: string): [number, number][] {
  return css.split(',').map((range) => {
    const [from, to] = range.trim().replace(/^U\+/i, '').split('-');
    return [parseInt(from!, 16), parseInt(to ?? from!, 16)] as [number, number];
  });
}

let faceList: Face[] | undefined;

function faces(): Face[] {
  faceList ??= FAMILIES.flatMap((family): Face[] => {
    if (!family.subsets) return [{ family, subset: '' }];
    const ranges = unicodeRanges(family);
    const subsets = family.subsets === 'all' ? Object.keys(ranges) : family.subsets;
    return subsets.map((subset) => ({ family, subset, ranges: parseRanges(ranges[subset] ?? '') }));
  });
  return faceList;
}

const covers = (ranges: [number, number][], cp: number): boolean => ranges.some(([from, to]) => cp >= from && cp <= to);

/** The name a font is registered under in a document: `korean-12-bold`, `latin`. */
const faceName = (face: Face, bold: boolean): string =>
  [face.family.name, face.family.subsets === 'all' ? subsetId(face.subset) : '', bold && face.family.weights.includes(700) ? 'bold' : '']
    .filter(Boolean)
    .join('-');

const byName = new Map<string, { face: Face; weight: 400 | 700 }>();
const parsed = new Map<string, fontkit.Font>();

function font(name: string): fontkit.Font {
  let loaded = parsed.get(name);
  if (!loaded) {
    const entry = byName.get(name);
    if (!entry) throw new Error(`unknown font ${name}`);
    const file = filePath(entry.face.family.package, entry.face.family.file(entry.weight, entry.face.subset));
    const created = fontkit.create(sfnt(fs.readFileSync(file)));
    if (!('layout' in created)) throw new Error(`${file} is a font collection, expected one font`);
    loaded = created;
    parsed.set(name, loaded);
  }
  return loaded;
}

/**
 * A WOFF file as the plain font it wraps (tables inflated). fontkit reads WOFF itself but inflates a
 * table on every access, the glyph table once per glyph drawn, which made names in shaped scripts slow.
 */
function sfnt(file: Buffer): Buffer {
  if (file.toString('latin1', 0, 4) !== 'wOFF') return file;
  const count = file.readUInt16BE(12);
  const tables = Array.from({ length: count }, (_, i) => {
    const at = 44 + i * 20;
    const [offset, compressed, length] = [file.readUInt32BE(at + 4), file.readUInt32BE(at + 8), file.readUInt32BE(at + 12)];
    const stored = file.subarray(offset, offset + compressed);
    return {
      tag: file.subarray(at, at + 4),
      checksum: file.readUInt32BE(at + 16),
      data: compressed < length ? zlib.inflateSync(stored) : stored,
    };
  });
  const header = Buffer.alloc(12 + 16 * count);
  header.writeUInt32BE(file.readUInt32BE(4), 0); // the wrapped font's flavour
  const log2 = Math.floor(Math.log2(count));
  header.writeUInt16BE(count, 4);
  header.writeUInt16BE(16 * 2 ** log2, 6);
  header.writeUInt16BE(log2, 8);
  header.writeUInt16BE(16 * count - 16 * 2 ** log2, 10);
  const body: Buffer[] = [];
  let offset = header.length;
  tables.forEach((table, i) => {
    const entry = 12 + 16 * i;
    table.tag.copy(header, entry);
    header.writeUInt32BE(table.checksum, entry + 4);
    header.writeUInt32BE(offset, entry + 8);
    header.writeUInt32BE(table.data.length, entry + 12);
    const padded = Buffer.alloc(Math.ceil(table.data.length / 4) * 4);
    table.data.copy(padded);
    body.push(padded);
    offset += padded.length;
  });
  return Buffer.concat([header, ...body]);
}

function nameOf(face: Face, bold: boolean): string {
  const name = faceName(face, bold);
  if (!byName.has(name)) byName.set(name, { face, weight: bold && face.family.weights.includes(700) ? 700 : 400 });
  return name;
}

const chosen = [new Map<number, string | null>(), new Map<number, string | null>()];

/** The font that draws a code point: the first face that has a glyph for it; null when none has. */
export function fontFor(cp: number, bold = false): string | null {
  const cache = chosen[bold ? 1 : 0]!;
  let name = cache.get(cp);
  if (name === undefined) {
    const face = faces().find((f) => (!f.ranges || covers(f.ranges, cp)) && font(nameOf(f, bold)).hasGlyphForCodePoint(cp));
    name = face ? nameOf(face, bold) : null;
    cache.set(cp, name);
  }
  return name;
}

/** Registers a font with a document the first time the document uses it. */
export function registerFont(doc: PDFKit.PDFDocument, name: string): void {
  // pdfkit 0.20 takes a parsed fontkit font as well as a path or buffer (not in its typings).
  (doc as unknown as { registerFont(name: string, src: unknown): void }).registerFont(name, font(name));
}

export interface TextRun {
  text: string;
  font: string;
  /** What the run stands for when it is drawn as replacement characters (no font has the original). */
  actual?: string;
}

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/u;
const REPLACEMENT = '\ufffd';

/**
 * Splits text into runs drawn by one font each. Spaces and invisible joiners and selectors (ZWJ, VS16)
 * stay in the current run when its font has them, so a fallback run does not break at every word; an
 * invisible character no font around it has is left out, and a visible one no font has is drawn as
 * U+FFFD with the original kept as the run's actual text.
 */
export function textRuns(text: string, bold = false): TextRun[] {
  const runs: TextRun[] = [];
  for (const char of text) {
    const cp = char.codePointAt(0) ?? 32;
    const last = runs[runs.length - 1];
    const space = /\s/.test(char);
    if (
      last &&
      (IGNORABLE.test(char) || (space && !byName.get(last.font)?.face.family.foreignSpaces)) &&
      font(last.font).hasGlyphForCodePoint(cp)
    ) {
      last.text += char;
      if (last.actual !== undefined) last.actual += char;
      continue;
    }
    if (IGNORABLE.test(char)) continue;
    const name = fontFor(cp, bold);
    const run = name ? { text: char, font: name } : { text: REPLACEMENT, font: fontFor(0xfffd, bold)!, actual: char };
    if (last && last.font === run.font && (last.actual === undefined) === (run.actual === undefined)) {
      last.text += run.text;
      if (last.actual !== undefined) last.actual += run.actual;
    } else runs.push(run);
  }
  return runs;
}

/** Fonts that shape (joining forms, ligatures): measured by laying the run out, not character by character. */
const SHAPED = /^arabic/;
const advances = new Map<string, number>();
const shapedWidths = new Map<string, number>();

/** Advance width of one run in points. */
export function runWidth(run: TextRun, size: number): number {
  const face = font(run.font);
  if (SHAPED.test(run.font)) {
    const key = `${run.font}|${run.text}`;
    let em = shapedWidths.get(key);
    if (em === undefined) {
      em = face.layout(run.text).advanceWidth / face.unitsPerEm;
      if (shapedWidths.size > 10_000) shapedWidths.clear();
      shapedWidths.set(key, em);
    }
    return em * size;
  }
  let em = 0;
  for (const char of run.text) {
    const key = `${run.font}|${char}`;
    let advance = advances.get(key);
    if (advance === undefined) {
      advance = face.glyphForCodePoint(char.codePointAt(0) ?? 32).advanceWidth / face.unitsPerEm;
      advances.set(key, advance);
    }
    em += advance;
  }
  return em * size;
}

/**
 * Advance width in points: the sum of the runs' widths. Kerning is left out (under 1 % on these fonts)
 * because shaping every candidate line costs more than the drawing; Arabic runs are shaped.
 */
export function textWidth(text: string, size: number, bold = false): number {
  return textRuns(text, bold).reduce((sum, run) => sum + runWidth(run, size), 0);
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

/**
 * Every file the fonts are read from, relative to its package folder in node_modules, with the
 * licences: the build copies these to dist/fonts/.
 */
export function shippedFontFiles(): { package: string; file: string }[] {
  return FAMILIES.flatMap((family) => {
    const subsets = family.subsets === 'all' ? Object.keys(unicodeRanges(family, packageFile)) : (family.subsets ?? ['']);
    const fonts = family.weights.flatMap((weight) => subsets.map((subset) => family.file(weight, subset)));
    const files = [...fonts, ...(family.subsets ? ['unicode.json'] : []), ...family.licences];
    return files.map((file) => ({ package: family.package, file }));
  });
}
