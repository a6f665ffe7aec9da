/**
 * What a model name says about a device the catalogue does not know (issue 15.5, names as users
 * type them): the kind of device its words name ("AW9999H Monitor", "OptiPlex 3080 Tower",
 * "250 G99 Notebook PC"), or else the kind of the catalogue's devices of its product line, name
 * pattern or brand, and a screen size written in it ("15.6-inch"). Used by the lookup chain
 * only when no catalogue device matched, and never over a category or screen size the caller gave.
 */
import { getCategory } from '../footprint/engine/index.ts';
import { loadCatalogue, type CatalogueEntry } from './catalogue-data.ts';
import { analyse, canonicalBrand, CONFIG_WORD, fold, SCREEN_SIZE, words } from './search.ts';

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
  /**
   * The category the name's words name, and the word that named it; or, with `basis` saying which,
   * the category of the catalogue's devices of its product line, of its brand's names of the same
   * pattern, or of its brand (lineCategories).
   */
  category?: { id: string; word: string; basis?: string };
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
  if (brand && lines && !hints.category) {
    const line = lineWord(text.replace(SCREEN_SIZE, ' '), brand);
    const key = canonicalBrand(brand);
    const catalogue = `the built-in catalogue's ${brand.trim()}`;
    if (line) {
      const id = lines.get(`${key}|${line}`);
      if (id) hints.category = { id, word: line, basis: `${catalogue} ${line} devices are of this kind` };
    } else {
      // A name without a line word is of the kind of the brand's names shaped like it (HP's "P24 G4",
      // "E27q G5": monitors), or of its brand's (Lexmark: printers).
      const shape = modelShape(text, brand);
      const byShape = shape !== undefined ? lines.get(`${key}|#${shape}`) : undefined;
      const byBrand = lines.get(`${key}|`);
      if (byShape) hints.category = { id: byShape, word: shape!, basis: `${catalogue} devices named in the same pattern (${shape}) are of this kind` };
      else if (byBrand) hints.category = { id: byBrand, word: fold(brand), basis: `${catalogue} devices are of this kind` };
    }
  }
  return hints;
}

/** brand|line word, brand|#name pattern (modelShape) and brand| → the category of (nearly) all the catalogue's devices of that line, pattern or brand (kindOf). */
export type LineCategories = ReadonlyMap<string, string>;

/** A line stands for a category when it has at least this many devices, and this share of them is of one kind. */
export const MIN_LINE_DEVICES = 3;
export const MIN_LINE_SHARE = 0.9;

/** The product line a name starts with: its first word of three or more letters without a digit, brand words aside. */
function lineWord(text: string, brand: string): string | undefined {
  const brandWords = new Set(words(brand));
  return words(analyse(text)).find((w) => !brandWords.has(w) && w.length >= 3 && !/\d/.test(w));
}

/**
 * The shape of a name's model number: its first word with a digit (configuration words aside), runs
 * of letters as 'a' and each digit as '#', and ' g' when a generation follows ("P22a G4" → "a##a g").
 */
function modelShape(text: string, brand: string): string | undefined {
  const brandWords = new Set(words(brand));
  const tokens = words(analyse(text).replace(SCREEN_SIZE, ' ')).filter((w) => !brandWords.has(w));
  const at = tokens.findIndex((w) => /\d/.test(w) && !CONFIG_WORD.test(w));
  if (at < 0) return undefined;
  const next = tokens[at + 1] ?? '';
  const generation = /^g(?:en)?\d{1,2}$/.test(next) || (/^(?:gen|g)$/.test(next) && /^\d{1,2}$/.test(tokens[at + 2] ?? ''));
  return `${tokens[at]!.replace(/[a-z]+/g, 'a').replace(/\d/g, '#')}${generation ? ' g' : ''}`;
}

const fitGroupOf = (category: string): string => getCategory(category)?.parameters.fit_group ?? category;

/**
 * The category a set of devices stands for: MIN_LINE_SHARE of them of one kind (one calibration
 * group: PowerEdge rack, tower and blade servers are servers), and then its most common category.
 */
function kindOf(byCategory: ReadonlyMap<string, number>): string | undefined {
  const total = [...byCategory.values()].reduce((a, b) => a + b, 0);
  if (total < MIN_LINE_DEVICES) return undefined;
  const byGroup = new Map<string, number>();
  for (const [c, n] of byCategory) byGroup.set(fitGroupOf(c), (byGroup.get(fitGroupOf(c)) ?? 0) + n);
  const [group, n] = [...byGroup].sort((a, b) => b[1] - a[1])[0]!;
  if (n / total < MIN_LINE_SHARE) return undefined;
  return [...byCategory].filter(([c]) => fitGroupOf(c) === group).sort((a, b) => b[1] - a[1])[0]![0];
}

/**
 * The category of each product line of the catalogue: a line word that only one brand's names
 * carry (a line name is a brand's: "ThinkVision", "iMac"; "Pro", "Tower" or "Mobile" are not),
 * with MIN_LINE_DEVICES or more devices, MIN_LINE_SHARE of them of one kind (kindOf); and so of each
 * brand's name patterns and of each brand.
 */
export function lineCategories(entries: readonly CatalogueEntry[]): LineCategories {
  const brandsOfWord = new Map<string, Set<string>>();
  for (const e of entries) {
    for (const w of words(analyse(e.name))) brandsOfWord.set(w, (brandsOfWord.get(w) ?? new Set()).add(canonicalBrand(e.brand)));
  }
  const counts = new Map<string, Map<string, number>>();
  const add = (key: string, category: string) => {
    const byCategory = counts.get(key) ?? new Map<string, number>();
    byCategory.set(category, (byCategory.get(category) ?? 0) + 1);
    counts.set(key, byCategory);
  };
  for (const e of entries) {
    const brand = canonicalBrand(e.brand);
    const name = fold(e.name);
    add(`${brand}|`, e.category);
    const shape = modelShape(name, e.brand);
    if (shape !== undefined) add(`${brand}|#${shape}`, e.category);
    const line = lineWord(name, e.brand);
    if (line && brandsOfWord.get(line)!.size === 1) add(`${brand}|${line}`, e.category);
  }
  const lines = new Map<string, string>();
  for (const [key, byCategory] of counts) {
    const id = kindOf(byCategory);
    if (id) lines.set(key, id);
  }
  return lines;
}

let builtIn: LineCategories | undefined;

/** lineCategories of the built-in catalogue, built on first use. */
export function builtInLineCategories(): LineCategories {
  builtIn ??= lineCategories(loadCatalogue());
  return builtIn;
}
