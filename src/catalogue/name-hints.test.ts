import { describe, expect, it } from 'vitest';
import type { CatalogueEntry } from './catalogue-data.ts';
import { builtInLineCategories, lineCategories, readNameHints } from './name-hints.ts';

const device = (brand: string, name: string, category: string): CatalogueEntry => ({ brand, mpn: name, name, category, release_year: 2022, aliases: [], specs: {}, source: {} });

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
  });

  it('reads nothing from names without such a word (the default applies), and not inside other words', () => {
    expect(readNameHints('Latitude 5440').category).toBeUndefined();
    expect(readNameHints('Microsoft Surface Pro 9').category).toBeUndefined();
    expect(readNameHints('Studio Display').category).toBeUndefined();
  });

  it('reads a screen size written in the name', () => {
    expect(readNameHints('ProBook 450 15.6 inch G9 Notebook PC')).toEqual({ category: { id: 'laptop', word: 'notebook' }, screen_size_inch: 15.6 });
    expect(readNameHints('24-inch iMac with 4.5K Retina display').screen_size_inch).toBe(24);
    expect(readNameHints('P24 G4 23.8" Monitor').screen_size_inch).toBe(23.8);
  });
});

describe('lineCategories: the category of a brand product line', () => {
  it('a line word of one brand with enough devices of (nearly) one category', () => {
    const lines = lineCategories([
      ...['T24i-10', 'T27i-10', 'P24q-20', 'P27h-20', 'E24-28', 'T32p-20', 'P40w-20', 'T23i-20', 'L24q-35', 'T27q-20'].map((m) => device('Lenovo', `ThinkVision ${m}`, 'monitor')),
      device('Lenovo', 'ThinkVision M14', 'monitor'),
      ...['X1', 'T14', 'P16'].map((m) => device('Lenovo', `ThinkPad ${m}`, 'laptop')),
      device('Lenovo', 'ThinkPad X1 Yoga', 'convertible'),
      // "Pro" is a word of several brands: not a line
      ...['Pro 1', 'Pro 2', 'Pro 3'].map((m) => device('Logitech', m, 'webcam')),
      device('Apple', 'MacBook Pro 14', 'laptop'),
      // two devices are not a line
      ...['Nuc 1', 'Nuc 2'].map((m) => device('Intel', m, 'mini_pc')),
    ]);
    expect(lines.get('lenovo|thinkvision')).toBe('monitor');
    expect(lines.get('lenovo|thinkpad')).toBeUndefined(); // 3 of 4 laptops: below 90 %
    expect(lines.get('logitech|pro')).toBeUndefined();
    expect(lines.get('intel|nuc')).toBeUndefined();
  });

  it('names the line category when the words name no kind, the brand given', () => {
    const lines = builtInLineCategories();
    expect(readNameHints('ThinkVision T99i-10', 'Lenovo', lines).category).toEqual({ id: 'monitor', word: 'thinkvision', line: true });
    expect(readNameHints('24-inch iMac with 4.5K Retina display', 'Apple', lines).category).toEqual({ id: 'all_in_one', word: 'imac', line: true });
    // a word naming the kind comes first; another brand's line is not this one
    expect(readNameHints('ThinkVision Notebook 9', 'Lenovo', lines).category?.id).toBe('laptop');
    expect(readNameHints('ThinkVision T99i-10', 'Dell', lines).category).toBeUndefined();
  });
});
