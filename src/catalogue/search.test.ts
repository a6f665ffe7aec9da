import { describe, expect, it } from 'vitest';
import { loadCatalogue, type CatalogueEntry } from './catalogue-data.ts';
import {
  brandMatches,
  CatalogueIndex,
  compact,
  fold,
  fuzziness,
  matchModel,
  modelMatchDetail,
  processorHint,
  resolveModel,
  terms,
  type ModelResolution,
} from './search.ts';

const entry = (brand: string, mpn: string, name: string, aliases: string[] = [], category = 'laptop'): CatalogueEntry => ({
  brand,
  mpn,
  name,
  category,
  release_year: 2023,
  aliases,
  specs: {},
  source: { note: 'test fixture' },
});

/** A small catalogue with the near neighbours that make ranking and matching hard. */
const FIXTURE: CatalogueEntry[] = [
  entry('Dell', 'LAT5440', 'Dell Latitude 5440', ['Latitude 5440', 'Lat 5440']),
  entry('Dell', 'LAT5430', 'Dell Latitude 5430', ['Latitude 5430', 'Lat 5430']),
  entry('Dell', 'LAT5430R', 'Dell Latitude 5430 Rugged', ['Latitude 5430 Rugged'], 'rugged_laptop'),
  entry('Dell', 'LAT7440', 'Dell Latitude 7440', ['Latitude 7440']),
  entry('Dell', 'P2422H', 'Dell P2422H Monitor', ['Dell P2422H'], 'monitor'),
  entry('Dell', 'P2422HE', 'Dell P2422HE Monitor', ['Dell P2422HE'], 'monitor'),
  entry('Acme', 'P2422H', 'Acme P2422H Projector', [], 'projector'),
  entry('Dynabook', 'PORTEGE-X40-K', 'Dynabook Portégé X40-K', ['Portege X40-K']),
  entry('Lenovo', '21HD', 'Lenovo ThinkPad T14 Gen 4 Intel', ['21HE', 'ThinkPad T14 Gen 4 Intel', 'T14 Gen 4 Intel']),
  entry('Lenovo', '21K3', 'Lenovo ThinkPad T14 Gen 4 AMD', ['21K4', 'ThinkPad T14 Gen 4 AMD', 'T14 Gen 4 AMD']),
  entry('Lenovo', '21HM', 'Lenovo ThinkPad X1 Carbon Gen 11', ['21HN', 'ThinkPad X1 Carbon Gen 11', 'X1 Carbon Gen 11']),
  entry('Lenovo', '21CB', 'Lenovo ThinkPad X1 Carbon Gen 10', ['21CC', 'ThinkPad X1 Carbon Gen 10', 'X1 Carbon Gen 10']),
  entry('Apple', 'MLY33LL/A', 'MacBook Air 13-inch (M2, 2022)', ['MLXW3LL/A', 'Mac14,2', 'A2681', 'MacBook Air M2']),
  entry('Apple', 'MGN63LL/A', 'MacBook Air (M1, 2020)', ['A2337', 'MacBook Air M1']),
  entry('Apple', 'iPhone16,1', 'Apple iPhone 15 Pro', ['iPhone 15 Pro', 'A3102'], 'smartphone'),
  entry('Apple', 'iPhone16,2', 'Apple iPhone 15 Pro Max', ['iPhone 15 Pro Max', 'A3106'], 'smartphone'),
  entry('Samsung', 'SM-S911B', 'Samsung Galaxy S23', ['Galaxy S23', 'SM-S911B/DS'], 'smartphone'),
  entry('Samsung', 'SM-S916B', 'Samsung Galaxy S23+', ['Galaxy S23+', 'SM-S916B/DS'], 'smartphone'),
  entry('HP', 'ELITEBOOK840G10', 'HP EliteBook 840 G10', ['EliteBook 840 G10']),
  entry('HP', 'ELITEBOOK840G9', 'HP EliteBook 840 G9', ['EliteBook 840 G9']),
  entry('HP', 'W1A53A', 'HP LaserJet Pro M404dn', ['M404dn'], 'printer'),
  entry('Fairphone', 'FP5', 'Fairphone 5', ['FP 5'], 'smartphone'),
  entry('Nintendo', 'HAC-001', 'Nintendo Switch', [], 'game_console'),
  entry('Nintendo', 'HDH-001', 'Nintendo Switch Lite', [], 'game_console'),
  ...Array.from({ length: 30 }, (_, i) => entry('Acme', `W${i + 1}`, `Acme Widget ${i + 1}`, [], 'mouse')),
];

const index = new CatalogueIndex(FIXTURE);
const top = (q: string) => index.search(q)[0]?.entry.mpn;

describe('text analysis', () => {
  it('folds accents and case, and keeps + (S23 vs S23+)', () => {
    expect(fold('Portégé')).toBe('portege');
    expect(compact('SM-S911B/DS')).toBe('sms911bds');
    expect(compact('Galaxy S23+')).toBe('galaxys23+');
  });

  it('indexes mixed words with their letter/digit parts and canonical phrases', () => {
    expect(terms('OptiPlex7010')).toEqual(['optiplex7010', 'optiplex', '7010']);
    expect(terms('Small Form Factor')).toEqual(['sff']);
    expect(terms('9th gen')).toEqual(['9th', '9', 'th', 'generation']);
    expect(terms('16GB')).toEqual(['16gb']); // configuration words stay whole
  });

  it('bounds fuzzy matching by the word: long words match exactly only', () => {
    expect(fuzziness('latitude')).toBe(2);
    expect(fuzziness('a'.repeat(20))).toBe(2);
    expect(fuzziness('a'.repeat(21))).toBe(false);
  });

  it('matches brands through synonyms and word prefixes', () => {
    expect(brandMatches('HP', 'Hewlett-Packard')).toBe(true);
    expect(brandMatches('HPE Aruba', 'Aruba')).toBe(true);
    expect(brandMatches('Palo Alto Networks', 'palo alto')).toBe(true);
    expect(brandMatches('HP', 'HPE')).toBe(false);
    expect(brandMatches('Dell', 'Lenovo')).toBe(false);
  });
});

describe('CatalogueIndex.search', () => {
  it('searches the first 12 words of a query and ignores the rest', () => {
    const words = ['latitude', '5440', ...Array.from({ length: 10 }, (_, i) => `filler${i}`)];
    const ids = (q: string) => index.search(q).map((h) => h.entry.mpn);
    expect(ids([...words, 'iphone', 'macbook'].join(' '))).toEqual(ids(words.join(' ')));
  });

  it('is case-insensitive', () => {
    expect(top('LATITUDE 5440')).toBe('LAT5440');
    expect(top('latitude 5440')).toBe('LAT5440');
    expect(top('iPHONE 15 pRO')).toBe('iPhone16,1');
  });

  it('is accent-insensitive in both directions', () => {
    expect(top('portégé x40-k')).toBe('PORTEGE-X40-K');
    expect(top('PORTEGE X40K')).toBe('PORTEGE-X40-K');
    expect(top('Látitude 5440')).toBe('LAT5440');
  });

  it('tolerates typos in words, including transpositions', () => {
    expect(top('lattitude 5440')).toBe('LAT5440');
    expect(top('latitdue 7440')).toBe('LAT7440');
    expect(top('thinkpda t14 gen 4 intel')).toBe('21HD');
    expect(top('Thinkpad X1 Crabon Gen 11')).toBe('21HM');
    expect(top('iphnoe 15 pro max')).toBe('iPhone16,2');
  });

  it('does not treat a wrong digit as a typo', () => {
    expect(index.search('5450')).toEqual([]);
    expect(index.search('5441')).toEqual([]);
  });

  it('tolerates missing spaces', () => {
    expect(top('latitude5440')).toBe('LAT5440');
    expect(top('iphone15pro')).toBe('iPhone16,1');
    expect(top('elitebook840g10')).toBe('ELITEBOOK840G10');
    expect(top('x1carbon gen11')).toBe('21HM');
  });

  it('finds part numbers and aliases whatever the separators', () => {
    expect(top('21HE')).toBe('21HD');
    expect(top('21hd')).toBe('21HD');
    expect(top('mly33lla')).toBe('MLY33LL/A');
    expect(top('A2681')).toBe('MLY33LL/A');
    expect(top('sm s916b')).toBe('SM-S916B');
    expect(top('21HD0015GE')).toBe('21HD'); // Lenovo MTM: machine type + model
  });

  it('ranks the plain model above its longer siblings', () => {
    expect(top('iphone 15 pro')).toBe('iPhone16,1');
    expect(top('galaxy s23')).toBe('SM-S911B');
    expect(top('galaxy s23+')).toBe('SM-S916B');
    expect(top('dell p2422h')).toBe('P2422H');
    expect(top('latitude 5430')).toBe('LAT5430');
    expect(top('elitebook 840 g10')).toBe('ELITEBOOK840G10');
  });

  it('returns at most 15 results by default, best first, and honours a smaller limit', () => {
    const hits = index.search('acme widget');
    expect(hits).toHaveLength(15);
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
    expect(index.search('acme widget', 5)).toHaveLength(5);
    expect(index.search('acme widget', 0)).toEqual([]);
  });

  it('counts every match in searchPage(), beyond the limit', () => {
    const page = index.searchPage('acme widget', 5);
    expect([page.total, page.hits.length]).toEqual([31, 5]); // every Acme device: 30 widgets and the projector
    expect(index.searchPage('acme widget 31', 3).hits.map((h) => h.entry.mpn)).toEqual(['W30', 'W29', 'W28']);
    expect(index.searchPage('zzzz qqqq')).toEqual({ total: 0, hits: [] });
  });

  it('ranks hits that matched the same words by the closeness of their model number', () => {
    const ids = (q: string) => index.search(q, 4).map((h) => h.entry.mpn);
    // By score alone the 7440 came first: its fields are the shortest.
    expect(ids('latitude 5441')).toEqual(['LAT5440', 'LAT5430', 'LAT5430R', 'LAT7440']);
    expect(ids('widget 17')).toEqual(['W17', 'W16', 'W18', 'W15']);
    // A number that matched another query number does not count: for Gen 12, T14 is not 2 away.
    const generations = new CatalogueIndex([1, 2, 3].map((n) => entry('Lenovo', `T14G${n}`, `Lenovo ThinkPad T14 Gen ${n}`)));
    expect(generations.search('thinkpad t14 gen 12').map((h) => h.entry.mpn)).toEqual(['T14G3', 'T14G2', 'T14G1']);
  });

  it('finds nothing for a query without letters or digits', () => {
    expect(index.search('')).toEqual([]);
    expect(index.search(' -/ ')).toEqual([]);
  });
});

describe('CatalogueIndex.findByPartNumber', () => {
  it('matches mpn and aliases ignoring case, spaces, hyphens and slashes', () => {
    expect(index.findByPartNumber('sm-s911b')?.name).toBe('Samsung Galaxy S23');
    expect(index.findByPartNumber('SM S911B DS')?.name).toBe('Samsung Galaxy S23');
    expect(index.findByPartNumber('mly33ll-a')?.mpn).toBe('MLY33LL/A');
    expect(index.findByPartNumber('21he')?.mpn).toBe('21HD');
    expect(index.findByPartNumber(' ELITEBOOK 840 G10 ')?.mpn).toBe('ELITEBOOK840G10');
  });

  it('narrows by brand and refuses to guess between brands', () => {
    expect(index.findByPartNumber('P2422H', 'Dell')?.name).toBe('Dell P2422H Monitor');
    expect(index.findByPartNumber('P2422H', 'acme')?.name).toBe('Acme P2422H Projector');
    expect(index.findByPartNumber('P2422H')).toBeUndefined(); // two brands, same part number
    expect(index.findByPartNumber('21HD', 'Dell')).toBeUndefined();
    expect(index.findByPartNumber('21HD', 'lenovo')?.mpn).toBe('21HD');
  });

  it('is exact: no fuzzy or prefix matches', () => {
    expect(index.findByPartNumber('21H')).toBeUndefined();
    expect(index.findByPartNumber('LAT544')).toBeUndefined();
    expect(index.findByPartNumber('P2422')).toBeUndefined();
  });
});

describe('CatalogueIndex.matchModel', () => {
  it('matches an exact model name with confidence 1', () => {
    expect(matchModel(index, 'Latitude 5440', 'Dell')).toEqual({ entry: FIXTURE[0], score: 1 });
    expect(matchModel(index, 'Dell Latitude 5440', 'Dell')?.entry.mpn).toBe('LAT5440');
    expect(matchModel(index, 'latitude 5440')?.entry.mpn).toBe('LAT5440');
    expect(matchModel(index, '5', 'Fairphone')?.entry.mpn).toBe('FP5');
  });

  it('matches a misspelt model', () => {
    expect(matchModel(index, 'Lattitude 5440', 'Dell')?.entry.mpn).toBe('LAT5440');
    expect(matchModel(index, 'Thinkpad X1 Crabon Gen 11', 'Lenovo')?.entry.mpn).toBe('21HM');
    expect(matchModel(index, 'iphone 15 pro', 'Apple')?.entry.mpn).toBe('iPhone16,1');
    expect(matchModel(index, 'iPhone 15 Pro Max')?.entry.mpn).toBe('iPhone16,2');
    expect(matchModel(index, 'Nintendo Switch Lite')?.entry.mpn).toBe('HDH-001');
  });

  it('ignores configuration words', () => {
    expect(matchModel(index, 'Latitude 5440 i5 16GB 512GB SSD', 'Dell')?.entry.mpn).toBe('LAT5440');
  });

  it('prefers the device the string names entirely (5430, not 5430 Rugged)', () => {
    expect(matchModel(index, 'Latitude 5430', 'Dell')?.entry.mpn).toBe('LAT5430');
    expect(matchModel(index, 'Latitude 5430 Rugged', 'Dell')?.entry.mpn).toBe('LAT5430R');
  });

  it('matches part numbers, with regional or configuration suffixes too', () => {
    expect(matchModel(index, 'SM-S911B')?.entry.mpn).toBe('SM-S911B');
    expect(matchModel(index, '21HD0015GE', 'Lenovo')?.entry.mpn).toBe('21HD');
    expect(matchModel(index, '20XWCTO1WW', 'Lenovo')).toBeUndefined(); // machine type not in the fixture
    expect(matchModel(index, 'MLY33B/A', 'Apple')?.entry.mpn).toBe('MLY33LL/A');
    expect(matchModel(index, 'W1A53A#B19', 'HP')?.entry.mpn).toBe('W1A53A');
  });

  it('does not match unknown models', () => {
    expect(matchModel(index, 'Latitude 9999', 'Dell')).toBeUndefined();
    expect(matchModel(index, 'Latitude 9999')).toBeUndefined();
    expect(matchModel(index, 'Lattitude 5441', 'Dell')).toBeUndefined();
    expect(matchModel(index, 'ThinkPad X1 Carbon Gen 12', 'Lenovo')).toBeUndefined();
    expect(matchModel(index, 'iPhone 16 Pro', 'Apple')).toBeUndefined();
    expect(matchModel(index, 'Galaxy S23 Ultra', 'Samsung')).toBeUndefined();
    expect(matchModel(index, 'EliteBook 845 G10', 'HP')).toBeUndefined();
    expect(matchModel(index, 'Switch Pro', 'Nintendo')).toBeUndefined();
    expect(matchModel(index, 'Acme Gizmo 3000')).toBeUndefined();
  });

  it('does not match when the brand disagrees', () => {
    expect(matchModel(index, 'Latitude 5440', 'HP')).toBeUndefined();
    expect(matchModel(index, 'Lattitude 5440', 'Lenovo')).toBeUndefined();
  });

  it('does not pick one of several equally good devices, nor a product line', () => {
    expect(matchModel(index, 'ThinkPad T14 Gen 4', 'Lenovo')).toBeUndefined(); // Intel or AMD
    expect(matchModel(index, 'MacBook Air', 'Apple')).toBeUndefined();
    expect(matchModel(index, 'ThinkPad', 'Lenovo')).toBeUndefined();
    expect(matchModel(index, 'EliteBook 840', 'HP')).toBeUndefined();
    expect(modelMatchDetail(index, 'ThinkPad T14 Gen 4', 'Lenovo').margin).toBeLessThan(0.2);
  });
});

describe('on the built-in catalogue (data/catalogue)', () => {
  const catalogue = loadCatalogue();
  const real = new CatalogueIndex(catalogue);

  it('loads every file once and normalises optional fields', () => {
    expect(catalogue.length).toBeGreaterThan(435);
    expect(loadCatalogue()).toBe(catalogue);
    for (const e of catalogue) {
      expect(Array.isArray(e.aliases)).toBe(true);
      expect(typeof e.specs).toBe('object');
    }
  });

  it('matches Latitude 5440 as typed and misspelt, and not Latitude 9999', () => {
    expect(matchModel(real, 'Latitude 5440', 'Dell')?.entry.mpn).toBe('LAT5440');
    expect(matchModel(real, 'Lattitude 5440', 'Dell')?.entry.mpn).toBe('LAT5440');
    expect(matchModel(real, 'Latitude 9999', 'Dell')).toBeUndefined();
    expect(matchModel(real, 'Latitude 9999')).toBeUndefined();
    expect(matchModel(real, 'ThinkPad T14 Gen 9', 'Lenovo')).toBeUndefined();
    expect(matchModel(real, 'iPhone 25 Pro', 'Apple')).toBeUndefined();
  });

  it('finds a part number regardless of separators', () => {
    expect(real.findByPartNumber('sm s911b', 'Samsung')?.mpn).toBe('SM-S911B');
    expect(real.findByPartNumber('21hd', 'Lenovo')?.mpn).toBe('21HD');
  });
});

describe('variants of one model (resolveModel)', () => {
  const index = new CatalogueIndex(FIXTURE);
  const real = new CatalogueIndex(loadCatalogue());
  const describeResolution = (r: ModelResolution | undefined) =>
    !r
      ? 'none'
      : r.kind === 'device'
        ? `device ${r.entry.mpn}`
        : r.kind === 'family'
          ? `family ${r.family}`
          : `variants ${r.candidates.map((e) => e.mpn).join(',')} chosen ${r.chosen?.mpn ?? '-'}`;

  it('reads the processor a model string names, and only one vendor', () => {
    expect(processorHint('ThinkPad T14 Gen 3 Ryzen 5 PRO 6650U')).toEqual({
      vendor: 'amd',
      text: 'ryzen 5 pro 6650u',
      rest: 'thinkpad t14 gen 3',
    });
    expect(processorHint('ThinkPad T14 Gen 3 i5-1245U')).toEqual({ vendor: 'intel', text: 'i5-1245u', rest: 'thinkpad t14 gen 3' });
    expect(processorHint('T14 Gen 3 Intel Core i7-1260P')?.vendor).toBe('intel');
    expect(processorHint('ThinkPad T14 Gen 5 Core Ultra 7 155U')?.text).toBe('core ultra 7 155u');
    expect(processorHint('ThinkPad T14 Gen 3 AMD')?.vendor).toBe('amd');
    expect(processorHint('ThinkPad T14 Gen 3')).toBeUndefined();
    expect(processorHint('Galaxy S23 Ultra')).toBeUndefined(); // "Ultra" alone is no processor
    expect(processorHint('T14 Gen 3 Intel or AMD')).toBeUndefined();
  });

  it('returns the variants a name fits without telling them apart, and the one a processor picks', () => {
    expect(describeResolution(resolveModel(index, 'ThinkPad T14 Gen 4', 'Lenovo'))).toBe('variants 21K3,21HD chosen -');
    expect(describeResolution(resolveModel(index, 'ThinkPad T14 Gen 4 Ryzen 7 PRO 7840U', 'Lenovo'))).toBe(
      'variants 21K3,21HD chosen 21K3',
    );
    expect(describeResolution(resolveModel(index, 'ThinkPad T14 Gen 4 i7-1365U', 'Lenovo'))).toBe('variants 21K3,21HD chosen 21HD');
    expect(describeResolution(resolveModel(index, 'ThinkPad T14 Gen 4 AMD', 'Lenovo'))).toBe('device 21K3');
    expect(describeResolution(resolveModel(index, 'ThinkPad X1 Carbon Gen 11', 'Lenovo'))).toBe('device 21HM');
    expect(describeResolution(resolveModel(index, 'ThinkPad X1 Carbon Gen 11 i7-1365U', 'Lenovo'))).toBe('device 21HM');
    expect(modelMatchDetail(index, 'ThinkPad T14 Gen 4', 'Lenovo').variants?.map((e) => e.mpn)).toEqual(['21K3', '21HD']);
  });

  it('on the built-in catalogue: ThinkPad T14 Gen 3 is its Intel or AMD variant', () => {
    expect(describeResolution(resolveModel(real, 'ThinkPad T14 Gen 3', 'Lenovo'))).toBe('variants 21AH,21CF chosen -');
    expect(describeResolution(resolveModel(real, 'T14 Gen 3', 'Lenovo'))).toBe('variants 21AH,21CF chosen -');
    expect(describeResolution(resolveModel(real, 'ThinkPad T14 Gen 3 Ryzen 5 PRO 6650U', 'Lenovo'))).toBe('variants 21AH,21CF chosen 21CF');
    expect(describeResolution(resolveModel(real, 'ThinkPad T14 Gen 3 i5-1245U', 'Lenovo'))).toBe('variants 21AH,21CF chosen 21AH');
    expect(describeResolution(resolveModel(real, 'ThinkPad T14 Gen 3 Intel', 'Lenovo'))).toBe('device 21AH');
    expect(describeResolution(resolveModel(real, 'ThinkPad T14 Gen 3'))).toBe('variants 21CF,21AH chosen -');
    // The X13 Yoga Gen 1 ties with them but has a word the string lacks: not a variant.
    expect(describeResolution(resolveModel(real, 'ThinkPad X13 Gen 1', 'Lenovo'))).toBe('variants 20UF,20T2 chosen -');
  });

  it('never makes a line, an unknown model or a device of another processor vendor match', () => {
    for (const [model, brand] of [
      ['Latitude 9999', 'Dell'],
      ['Lattitude 5441', 'Dell'],
      ['ThinkPad X1 Carbon Gen 12', 'Lenovo'],
      ['ThinkPad X1 Carbon Gen 12 i7-1365U', 'Lenovo'],
      ['EliteBook 840 i5', 'HP'],
      ['MacBook Air', 'Apple'],
      ['ThinkPad', 'Lenovo'],
      ['Acme Gizmo 3000', undefined],
    ] as const) {
      expect(describeResolution(resolveModel(index, model, brand)), model).toBe('none');
    }
    // A model without its generation is a family (its devices' family-level specs), never one of them.
    expect(describeResolution(resolveModel(index, 'EliteBook 840', 'HP'))).toBe('family HP EliteBook 840');
    expect(describeResolution(resolveModel(real, 'ThinkPad T14 Gen 9', 'Lenovo'))).toBe('none');
    expect(describeResolution(resolveModel(real, 'ThinkPad T14 Gen 9 Ryzen 5', 'Lenovo'))).toBe('none');
    // The T14s Gen 6 is a Snapdragon device: an Intel processor in the string refuses it.
    expect(describeResolution(resolveModel(real, 'ThinkPad T14s Gen 6 Intel Core Ultra 7', 'Lenovo'))).toBe('none');
  });

  it('agrees with matchModel wherever matchModel is confident, on every device name', () => {
    // resolveModel only adds answers where matchModel has none; the guard against wrong matches stays matchModel's.
    let variants = 0;
    for (const e of loadCatalogue().slice(0, 400)) {
      const model = e.name.replace(new RegExp(`^${e.brand}\\s+`, 'i'), '');
      const m = matchModel(real, model, e.brand);
      const r = resolveModel(real, model, e.brand);
      if (m) expect(r?.kind === 'device' ? r.entry : undefined, model).toBe(m.entry);
      if (r?.kind === 'variants') variants++;
    }
    expect(variants).toBe(0); // every device's own full name is one device
  });
});

describe('CatalogueIndex.build (the warm-up, a few hundred devices per turn)', () => {
  it('answers as the index built in one go, and gives the event loop turns while it builds', async () => {
    const entries = loadCatalogue();
    const whole = new CatalogueIndex(entries);
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const built = await CatalogueIndex.build(entries);
    clearInterval(ticking);
    expect(turns).toBeGreaterThan(0);
    expect(whole.searchPage('latitude 5440').hits.length).toBeGreaterThan(0);
    for (const query of [
      'latitude 5440',
      'thinkpad t14 gen 3',
      'macbook air m2',
      'elitebook 840 g9',
      'poweredge r740',
      'galaxy s23',
      'xyzzy',
    ]) {
      expect([query, built.searchPage(query, 20)]).toEqual([query, whole.searchPage(query, 20)]);
      expect([query, built.exactModel(query)]).toEqual([query, whole.exactModel(query)]);
    }
  });
});
