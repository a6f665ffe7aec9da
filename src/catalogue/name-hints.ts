/**
 * What a model name says about a device the catalogue does not know (issue 15.5, names as users
 * type them): the kind of device its words name ("AW9999H Monitor", "OptiPlex 3080 Tower",
 * "250 G99 Notebook PC") and a screen size written in it ("15.6-inch"). Used by the lookup chain
 * only when no catalogue device matched, and never over a category or screen size the caller gave.
 */
import { loadCatalogue, type CatalogueEntry } from './catalogue-data.ts';
import { analyse, canonicalBrand, fold, SCREEN_SIZE, words } from './search.ts';

/**
 * Words that name a kind of device, most specific first ("Precision 3660 Tower Workstation" is a
 * workstation, "EliteDesk 800 G6 Desktop Mini" a mini PC). A word shared by several kinds
 * (display, switch, dock) is left out: a wrong category is worse than the default.
 */
const CATEGORY_WORDS: readonly [RegExp, string][] = [
  [/\bthin\s+client\b/, 'thin_client'],
  [/\bmobile\s+workstation\b/, 'mobile_workstation'],
  [/\ball[\s-]?in[\s-]?one\s+printer\b|\bmultifunction\s+printer\b|\bmfp\b/, 'multifunction_printer'],
  [/\ball[\s-]?in[\s-]?one\b|\baio\b/, 'all_in_one'],
  [/\bchromebook\b/, 'chromebook'],
  [/\b2[\s-]?in[\s-]?1\b|\bconvertible\b/, 'convertible'],
  [/\b(?:notebook|laptop|ultrabook)\b/, 'laptop'],
  [/\bworkstation\b/, 'workstation'],
  [/\btower\s+server\b/, 'tower_server'],
  [/\bblade\s+server\b/, 'blade_server'],
  [/\bserver\b/, 'server'],
  [/\bdesktop\s+mini\b|\bmini\s+pc\b|\btiny\b|\bmicro\b(?!\s*(?:usb|sd|hdmi))/, 'mini_pc'],
  [/\b(?:tower|sff|small\s+form\s+factor|desktop)\b/, 'desktop'],
  [/\bmonitor\b/, 'monitor'],
  [/\bsmartphone\b/, 'smartphone'],
  [/\btablet\b/, 'tablet'],
  [/\bprinter\b/, 'printer'],
];

export interface NameHints {
  /** The category the name's words name (or its product line, lineCategories), and the word that named it. */
  category?: { id: string; word: string; line?: boolean };
  /** A screen size written in the name, inches. */
  screen_size_inch?: number;
}

/**
 * The kind and screen size a name states; with `lines` (lineCategories of the catalogue) and the
 * brand, also the category of the product line it names when its words name no kind ("Apple
 * iMac …" is an all-in-one, "Lenovo ThinkVision …" a monitor).
 */
export function readNameHints(name: string, brand?: string, lines?: LineCategories): NameHints {
  const text = fold(name).replace(/[\u2013\u2014]/g, '-');
  const hints: NameHints = {};
  for (const [pattern, id] of CATEGORY_WORDS) {
    const found = pattern.exec(text);
    if (found) {
      hints.category = { id, word: found[0] };
      break;
    }
  }
  const size = SCREEN_SIZE.exec(text);
  if (size) hints.screen_size_inch = Number(size[1]!.replace(',', '.'));
  const line = brand && lines && !hints.category ? lineWord(text.replace(SCREEN_SIZE, ' '), brand) : undefined;
  const id = line && lines!.get(`${canonicalBrand(brand!)}|${line}`);
  if (id) hints.category = { id, word: line!, line: true };
  return hints;
}

/** brand|line word → the category of (nearly) all the catalogue's devices of that line. */
export type LineCategories = ReadonlyMap<string, string>;

/** A line stands for a category when it has at least this many devices, and this share of them is of one category. */
export const MIN_LINE_DEVICES = 3;
export const MIN_LINE_SHARE = 0.9;

/** The product line a name starts with: its first word of three or more letters without a digit, brand words aside. */
function lineWord(text: string, brand: string): string | undefined {
  const brandWords = new Set(words(brand));
  return words(analyse(text)).find((w) => !brandWords.has(w) && w.length >= 3 && !/\d/.test(w));
}

/**
 * The category of each product line of the catalogue: a line word that only one brand's names
 * carry (a line name is a brand's: "ThinkVision", "iMac"; "Pro", "Tower" or "Mobile" are not),
 * with MIN_LINE_DEVICES or more devices, MIN_LINE_SHARE of them of one category.
 */
export function lineCategories(entries: readonly CatalogueEntry[]): LineCategories {
  const brandsOfWord = new Map<string, Set<string>>();
  for (const e of entries) {
    for (const w of words(analyse(e.name))) brandsOfWord.set(w, (brandsOfWord.get(w) ?? new Set()).add(canonicalBrand(e.brand)));
  }
  const counts = new Map<string, Map<string, number>>();
  for (const e of entries) {
    const line = lineWord(fold(e.name), e.brand);
    if (!line || brandsOfWord.get(line)!.size > 1) continue;
    const key = `${canonicalBrand(e.brand)}|${line}`;
    const byCategory = counts.get(key) ?? new Map<string, number>();
    byCategory.set(e.category, (byCategory.get(e.category) ?? 0) + 1);
    counts.set(key, byCategory);
  }
  const lines = new Map<string, string>();
  for (const [key, byCategory] of counts) {
    const total = [...byCategory.values()].reduce((a, b) => a + b, 0);
    const [top, n] = [...byCategory].sort((a, b) => b[1] - a[1])[0]!;
    if (total >= MIN_LINE_DEVICES && n / total >= MIN_LINE_SHARE) lines.set(key, top);
  }
  return lines;
}

let builtIn: LineCategories | undefined;

/** lineCategories of the built-in catalogue, built on first use. */
export function builtInLineCategories(): LineCategories {
  builtIn ??= lineCategories(loadCatalogue());
  return builtIn;
}
