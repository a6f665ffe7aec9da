import { describe, expect, it } from 'vitest';
import { loadCatalogue, type CatalogueEntry } from './catalogue-data.ts';
import {
  builtInLineCategories,
  builtInReleaseYears,
  builtInScreenReadings,
  lineCategories,
  readCapacities,
  readNameHints,
  releaseYears,
  screenReadings,
} from './name-hints.ts';

const device = (brand: string, name: string, category: string): CatalogueEntry => ({
  brand,
  mpn: name,
  name,
  category,
  release_year: 2022,
  aliases: [],
  specs: {},
  source: {},
});

describe('readNameHints: what a name the catalogue does not know says about the device', () => {
  it('reads the kind of device its words name, most specific first', () => {
    const kind = (name: string) => readNameHints(name).category?.id;
    expect(kind('AW9999H Monitor')).toBe('monitor');
    expect(kind('250 G99 Notebook PC')).toBe('laptop');
    expect(kind('OptiPlex 9990 All-in-One Desktop')).toBe('all_in_one');
    expect(kind('OptiPlex 9970 Micro Form Factor')).toBe('mini_pc');
    expect(kind('OptiPlex 9980 Small Form Factor')).toBe('desktop');
    expect(kind('Precision 3660 Tower Workstation')).toBe('workstation');
    expect(kind('ZBook Fury 16 G9 Mobile Workstation PC')).toBe('mobile_workstation');
    expect(kind('Latitude 9990 2-in-1 Chromebook Enterprise')).toBe('chromebook');
    expect(kind('Inspiron 14 9990 2-in-1')).toBe('convertible');
    expect(kind('EliteDesk 800 G6 Desktop Mini')).toBe('mini_pc');
    expect(kind('ProLiant ML350 Gen10 Tower Server')).toBe('tower_server');
    expect(kind('Wyse 5070 Thin Client')).toBe('thin_client');
    expect(kind('Color LaserJet Pro MFP M479fdw')).toBe('multifunction_printer');
    expect(kind('ThinkVision LT2252p Wide')).toBe('monitor');
    expect(kind('LA2205wg Widescreen LCD')).toBe('monitor');
    expect(kind('DesignJet T650 36-in Wide Format Printer')).toBe('printer');
    expect(kind('Nest Wifi router')).toBe('router');
  });

  it('reads nothing from names without such a word (the default applies), and not inside other words', () => {
    expect(readNameHints('Latitude 5440').category).toBeUndefined();
    expect(readNameHints('Microsoft Surface Pro 9').category).toBeUndefined();
    expect(readNameHints('Studio Display').category).toBeUndefined();
  });

  it('reads a screen size written in the name', () => {
    expect(readNameHints('ProBook 450 15.6 inch G9 Notebook PC')).toEqual({
      category: { id: 'laptop', word: 'notebook' },
      screen_size_inch: 15.6,
    });
    expect(readNameHints('24-inch iMac with 4.5K Retina display').screen_size_inch).toBe(24);
    expect(readNameHints('P24 G4 23.8" Monitor').screen_size_inch).toBe(23.8);
  });
});

describe('lineCategories: the category of a brand product line', () => {
  it('a line word of one brand with enough devices of (nearly) one category', () => {
    const lines = lineCategories([
      ...['T24i-10', 'T27i-10', 'P24q-20', 'P27h-20', 'E24-28', 'T32p-20', 'P40w-20', 'T23i-20', 'L24q-35', 'T27q-20'].map((m) =>
        device('Lenovo', `ThinkVision ${m}`, 'monitor'),
      ),
      device('Lenovo', 'ThinkVision M14', 'monitor'),
      ...['X1', 'T14', 'P16'].map((m) => device('Lenovo', `ThinkPad ${m}`, 'laptop')),
      device('Lenovo', 'ThinkPad X1 Yoga', 'convertible'),
      // "Pro" is a word of several brands: not a line
      ...['Pro 1', 'Pro 2', 'Pro 3'].map((m) => device('Logitech', m, 'webcam')),
      device('Apple', 'MacBook Pro 14', 'laptop'),
      // two devices are not a line
      ...['Nuc 1', 'Nuc 2'].map((m) => device('Intel', m, 'mini_pc')),
    ]);
    expect(lines.get('lenovo|thinkvision')?.id).toBe('monitor');
    // 3 laptops and a convertible: one kind (calibration group notebook), its most common category
    expect(lines.get('lenovo|thinkpad')?.id).toBe('laptop');
    expect(lines.get('logitech|pro')).toBeUndefined();
    expect(lines.get('intel|nuc')).toBeUndefined();
  });

  it('a line of several kinds is none; a line of one kind stands for its most common category', () => {
    const lines = lineCategories([
      ...['3581', '5680', '7680'].map((m) => device('Dell', `Precision ${m}`, 'mobile_workstation')),
      ...['3680 Tower', '7960 Tower'].map((m) => device('Dell', `Precision ${m}`, 'workstation')),
      ...['R660', 'R760', 'R860'].map((m) => device('Dell', `PowerEdge ${m}`, 'server')),
      device('Dell', 'PowerEdge T560', 'tower_server'),
      device('Dell', 'PowerEdge MX760c', 'blade_server'),
    ]);
    expect(lines.get('dell|precision')).toBeUndefined(); // notebooks and desktops
    expect(lines.get('dell|poweredge')?.id).toBe('server');
    expect(lines.get('dell|')).toBeUndefined(); // the brand: several kinds
  });

  it('a line of desk computers of several forms (tiny, tower, all-in-one) stands for a desktop, and says which forms', () => {
    const lines = lineCategories([
      ...['M90q Tiny', 'M70q Tiny', 'M75q Tiny'].map((m) => device('Lenovo', `ThinkCentre ${m}`, 'mini_pc')),
      ...['M90s SFF', 'M70t Tower'].map((m) => device('Lenovo', `ThinkCentre ${m}`, 'desktop')),
      device('Lenovo', 'ThinkCentre M90a AIO', 'all_in_one'),
      ...['T14', 'T16', 'X13'].map((m) => device('Lenovo', `ThinkPad ${m}`, 'laptop')),
      device('Lenovo', 'ThinkPad X1 Fold', 'convertible'),
      ...['P16', 'P1'].map((m) => device('Lenovo', `ThinkPad ${m}`, 'mobile_workstation')),
    ]);
    expect(lines.get('lenovo|thinkcentre')).toEqual({ id: 'desktop', forms: ['mini_pc', 'desktop', 'all_in_one'] });
    expect(lines.get('lenovo|thinkpad')).toEqual({ id: 'laptop' }); // one group: its most common category
    expect(readNameHints('ThinkCentre M99z', 'Lenovo', lines).category).toEqual({
      id: 'desktop',
      word: 'thinkcentre',
      basis:
        "the built-in catalogue's Lenovo thinkcentre devices are desk computers (mini_pc, desktop, all_in_one): estimated as a desktop",
    });
  });

  it("a line's models of the same letters, where they are of another kind than the line (ThinkPad P…: mobile workstations)", () => {
    const lines = lineCategories([
      ...['T14', 'T16', 'X13', 'E14', 'L15'].map((m) => device('Lenovo', `ThinkPad ${m}`, 'laptop')),
      ...['P16', 'P1 Gen 6', 'P14s', 'P16v'].map((m) => device('Lenovo', `ThinkPad ${m}`, 'mobile_workstation')),
      ...['Fury 16 G9', 'Power 15 G10', 'Firefly 14 G9'].map((m) => device('HP', `ZBook ${m}`, 'mobile_workstation')),
    ]);
    expect(lines.get('lenovo|thinkpad')?.id).toBe('laptop');
    expect(lines.get('lenovo|thinkpad|p')?.id).toBe('mobile_workstation');
    expect(readNameHints('ThinkPad P52', 'Lenovo', lines).category).toEqual({
      id: 'mobile_workstation',
      word: 'thinkpad p…',
      basis: "the built-in catalogue's Lenovo thinkpad p… devices are of this kind",
    });
    // the line's kind, said as before, where the models of its letters are of that kind or too few
    expect(readNameHints('ThinkPad T99', 'Lenovo', lines).category).toMatchObject({ id: 'laptop', word: 'thinkpad' });
    expect(readNameHints('ThinkPad Z13', 'Lenovo', lines).category).toMatchObject({ id: 'laptop', word: 'thinkpad' });
    // a generation ("G9") numbers no model
    expect(lines.get('hp|zbook|g')).toBeUndefined();
    expect(readNameHints('ZBook Studio 16 G9', 'HP', lines).category).toMatchObject({ id: 'mobile_workstation', word: 'zbook' });
  });

  it('a name without a line word: the kind of the brand names of its pattern, else of the brand', () => {
    const lines = lineCategories([
      ...['E24 G4', 'E27 G5', 'P24 G4', 'Z24n G3', 'E24i G4', 'Z27k G3', 'P24h G5'].map((m) => device('HP', `HP ${m} Monitor`, 'monitor')),
      ...['250 G9', '255 G9', '240 G8'].map((m) => device('HP', `HP ${m}`, 'laptop')),
      ...['t640', 't740', 't540'].map((m) => device('HP', `HP ${m} Thin Client`, 'thin_client')),
      ...['B2236dw', 'C3224dw', 'MS431dn'].map((m) => device('Lexmark', `Lexmark ${m}`, 'printer')),
    ]);
    expect(lines.get('hp|#a##a g')?.id).toBe('monitor');
    expect(lines.get('hp|#### g')?.id).toBe('laptop'); // the pattern '### g' of 250 G9, 255 G9, 240 G8
    expect(readNameHints('245 G99', 'HP', lines).category?.id).toBe('laptop');
    expect(readNameHints('P22a G4', 'HP', lines).category).toEqual({
      id: 'monitor',
      word: 'a##a g',
      basis: "the built-in catalogue's HP devices named in the same pattern (a##a g) are of this kind",
    });
    expect(readNameHints('E99 G9', 'HP', lines).category?.id).toBe('monitor');
    expect(readNameHints('t999', 'HP', lines).category?.id).toBe('thin_client');
    expect(readNameHints('B9999dw', 'Lexmark', lines).category).toEqual({
      id: 'printer',
      word: 'lexmark',
      basis: "the built-in catalogue's Lexmark devices are of this kind",
    });
    // HP's devices are of several kinds; a line word the catalogue does not know is no hint either
    expect(readNameHints('999', 'HP', lines).category).toBeUndefined();
    expect(readNameHints('Optra 9', 'Lexmark', lines).category).toBeUndefined();
  });

  it('names the line category when the words name no kind, the brand given', () => {
    const lines = builtInLineCategories();
    expect(readNameHints('ThinkVision T99i-10', 'Lenovo', lines).category).toEqual({
      id: 'monitor',
      word: 'thinkvision',
      basis: "the built-in catalogue's Lenovo thinkvision devices are of this kind",
    });
    expect(readNameHints('24-inch iMac with 4.5K Retina display', 'Apple', lines).category).toMatchObject({
      id: 'all_in_one',
      word: 'imac',
    });
    expect(readNameHints('PowerEdge R9999', 'Dell', lines).category?.id).toBe('server');
    expect(readNameHints('P29a G9', 'HP', lines).category?.id).toBe('monitor');
    expect(readNameHints('B9999dw', 'Lexmark', lines).category?.id).toBe('printer');
    // a word naming the kind comes first; another brand's line is not this one
    expect(readNameHints('ThinkVision Notebook 9', 'Lenovo', lines).category?.id).toBe('laptop');
    expect(readNameHints('ThinkVision T99i-10', 'Dell', lines).category).toBeUndefined();
  });
});

describe('readNameHints: the release year of the catalogue devices numbered like the name', () => {
  const dated = (brand: string, name: string, release_year: number): CatalogueEntry => ({ ...device(brand, name, 'laptop'), release_year });
  const years = releaseYears([
    ...[
      ['3410', 2020],
      ['5410', 2020],
      ['7410', 2020],
      ['5420', 2021],
      ['7420', 2021],
      ['5400', 2019],
      ['7400', 2019],
      ['5414 Rugged', 2016],
    ].map(([m, y]) => dated('Dell', `Dell Latitude ${m}`, y as number)),
    dated('Dell', 'Dell OptiPlex 7090 Micro', 2021),
    dated('Dell', 'Dell OptiPlex 7090 Tower', 2021),
    ...[
      ['830 G6', 2019],
      ['840 G6', 2019],
      ['850 G6', 2019],
      ['840 G5', 2018],
      ['x360 1030 G3', 2018],
    ].map(([m, y]) => dated('HP', `HP EliteBook ${m}`, y as number)),
    ...[
      ['T14 Gen 1', 2020],
      ['P16 Gen 1', 2022],
    ].map(([m, y]) => dated('Lenovo', `Lenovo ThinkPad ${m}`, y as number)),
  ]);
  const year = (brand: string, name: string) => readNameHints(name, brand, undefined, years).release_year;

  it('takes the year of the same model number in another form', () => {
    expect(year('Dell', 'OptiPlex 7090 Ultra')).toEqual({
      year: 2021,
      basis: "the built-in catalogue's Dell OptiPlex 7090 Micro, Dell OptiPlex 7090 Tower (the same model number)",
    });
  });

  it("takes the year of the line's models of the same generation when they agree", () => {
    expect(year('HP', 'EliteBook 845 G6')).toEqual({
      year: 2019,
      basis: "the built-in catalogue's HP EliteBook 830 G6, HP EliteBook 840 G6, HP EliteBook 850 G6 (the same line and generation)",
    });
    // G3 of the x360 1030 (a model number of another shape) does not date an "EliteBook 840 G3"
    expect(year('HP', 'EliteBook 840 G3')).toBeUndefined();
    // ThinkPad's Gen 1 is 2020 for a T14 and 2022 for a P16: the devices disagree, no year
    expect(year('Lenovo', 'ThinkPad X13 Gen 1')).toBeUndefined();
  });

  it('takes the year of the digit place that dates most of the line (the third of a Latitude number)', () => {
    // 7 of the 8 Latitudes have the year of their third digit's devices (the Rugged 5414 of 2016 not): 88 %
    expect(year('Dell', 'Latitude 5411')).toEqual({
      year: 2020,
      basis:
        "the built-in catalogue's Dell Latitude 3410, Dell Latitude 5410, Dell Latitude 7410, … (digit 3 of the model number, 1; that digit dates 88 % of the line's devices)",
    });
    expect(year('Dell', 'Latitude 7421 2-in-1')?.year).toBe(2021);
    // a digit the line's devices do not have, another numbering (E7470), a brand without the line: no year
    expect(year('Dell', 'Latitude 5480')).toBeUndefined();
    expect(year('Dell', 'Latitude E7410')).toBeUndefined();
    expect(year('Acme', 'Latitude 5411')).toBeUndefined();
  });

  it('dates from the built-in catalogue, and not without a brand', () => {
    expect(readNameHints('Latitude 5411', 'Dell', undefined, builtInReleaseYears()).release_year?.year).toBe(2020);
    expect(readNameHints('Latitude 5411', undefined, undefined, builtInReleaseYears()).release_year).toBeUndefined();
  });
});

describe('screenReadings: the screen size a model number gives', () => {
  const monitor = (brand: string, name: string, inch: number): CatalogueEntry => ({
    ...device(brand, name, 'monitor'),
    specs: { screen_size_inch: inch },
  });
  const dell = [
    monitor('Dell', 'P2219H', 21.5),
    monitor('Dell', 'P2419H', 23.8),
    monitor('Dell', 'P2422H', 23.8),
    monitor('Dell', 'P2720D', 27),
    monitor('Dell', 'P3222QE', 31.5),
  ];

  it("reads two digits of a brand's numbering where they are the screen size of its catalogue devices", () => {
    const readings = screenReadings(dell);
    expect([...readings.keys()]).toEqual(['dell|p|4|0']);
    // the middle size of the devices with the same digits, else the digits
    expect(readNameHints('P2425H', 'Dell', undefined, undefined, readings).screen_from_number).toEqual({
      inch: 23.8,
      basis: 'as for P2419H, P2422H (digits 1-2 give the screen size of 5 of the 5 devices of the built-in catalogue numbered so)',
    });
    expect(readNameHints('P3421W', 'Dell', undefined, undefined, readings).screen_from_number?.inch).toBe(34);
    // another brand, another numbering, or a size written in the name: no reading
    expect(readNameHints('P2425H', 'HP', undefined, undefined, readings).screen_from_number).toBeUndefined();
    expect(readNameHints('U2724D', 'Dell', undefined, undefined, readings).screen_from_number).toBeUndefined();
    expect(readNameHints('P2425H 23.8" Monitor', 'Dell', undefined, undefined, readings)).toMatchObject({ screen_size_inch: 23.8 });
    expect(readNameHints('P2425H 23.8" Monitor', 'Dell', undefined, undefined, readings).screen_from_number).toBeUndefined();
  });

  it('needs 5 devices numbered so, 90 % of them with that screen size', () => {
    expect(screenReadings(dell.slice(0, 4)).size).toBe(0);
    expect(screenReadings([...dell, monitor('Dell', 'P1917S', 27)]).size).toBe(0);
  });

  it("on the built-in catalogue (10-fold: each tenth read with the others' numberings) reads the published screen size within an inch for 95 % of the names it reads", () => {
    // The leave-one-out figure on the whole catalogue: docs/search.md, "Names the catalogue does not know: kind and screen size".
    const entries = loadCatalogue().filter((e) => typeof e.specs?.screen_size_inch === 'number');
    let read = 0;
    let right = 0;
    for (let fold = 0; fold < 10; fold++) {
      const others = screenReadings(entries.filter((_, j) => j % 10 !== fold));
      for (const e of entries.filter((_, j) => j % 10 === fold)) {
        const inch = readNameHints(e.name, e.brand, undefined, undefined, others).screen_from_number?.inch;
        if (inch === undefined) continue;
        read += 1;
        if (Math.abs(inch - (e.specs!.screen_size_inch as number)) <= 1) right += 1;
      }
    }
    expect(read).toBeGreaterThan(300);
    expect(right / read).toBeGreaterThanOrEqual(0.95);
    expect(builtInScreenReadings().size).toBeGreaterThan(10);
  });
});

describe('readCapacities: memory and storage a model name states', () => {
  // the default memory of the category asked for: 16 GB for a laptop or mini PC, 6 GB for a phone
  const read = (name: string, defaultRamGb = 16) => {
    const { written: _, ...values } = readCapacities(name, defaultRamGb);
    return values;
  };

  it('a capacity with a memory or storage word next to it, the word after it first', () => {
    expect(read('Latitude 5440 256 GB SSD 16 GB RAM')).toEqual({ ram_gb: 16, storage_gb: 256, storage_type: 'ssd' });
    expect(read('Mac Pro (3.5GHz 8-core CPU) with 32GB memory 256GB storage', 32)).toEqual({ ram_gb: 32, storage_gb: 256 });
    expect(read('ThinkPad T14 16GB/512GB SSD')).toEqual({ storage_gb: 512, storage_type: 'ssd' });
    expect(read('OptiPlex 7010 SSD 1TB DDR4 8GB')).toEqual({ ram_gb: 8, storage_gb: 1000, storage_type: 'ssd' });
    expect(read('Pulsar 2 800GB SSD', 0)).toEqual({ storage_gb: 800, storage_type: 'ssd' });
  });

  it('a capacity without such a word is storage only when far above the memory the category usually has, in TB or decimals too', () => {
    expect(read('iPhone 13 Pro 1TB', 6)).toEqual({ storage_gb: 1000 });
    expect(read('iPhone SE - Gen 2 64GB', 6)).toEqual({ storage_gb: 64 });
    expect(read('Galaxy S23 8GB 256GB', 6)).toEqual({ storage_gb: 256 });
    expect(read('13-inch MacBook Air (M1 CPU) 256GB - 2020')).toEqual({ storage_gb: 256 });
    expect(read('Mac Studio with Apple M1 Max 32GB memory and 512GB')).toEqual({ ram_gb: 32, storage_gb: 512 });
    expect(read('Nytro 1551 XA1920ME10083 1.92 TB', 0)).toEqual({ storage_gb: 1920 });
    // a laptop's 16 or 64 GB names its memory as often as its storage
    expect(read('ThinkPad X1 Carbon Gen 11 16GB')).toEqual({});
    expect(read('14-inch MacBook Pro with 64GB')).toEqual({});
  });

  it('reads no one value from two drives or two memory sizes, nor from other units or words', () => {
    expect(read('Precision 3660 512GB SSD 2TB HDD')).toEqual({});
    expect(read('Tower 16GB RAM 32GB RAM 1TB')).toEqual({ storage_gb: 1000 });
    expect(read('Galaxy Watch 4 40mm', 1)).toEqual({});
    expect(read('PowerEdge R740 2.4GHz', 128)).toEqual({});
    expect(read('Model X12GB8', 6)).toEqual({});
    expect(read('1TB constructor')).toEqual({ storage_gb: 1000 });
  });

  it('keeps the capacity as written, for the footprint to say where it came from', () => {
    expect(readCapacities('iPhone 13 Pro 1 TB', 6).written).toEqual({ storage_gb: '1tb' });
    expect(readCapacities('Latitude 5440 16GB RAM', 16).written).toEqual({ ram_gb: '16gb' });
  });
});
