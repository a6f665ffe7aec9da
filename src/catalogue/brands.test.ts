import { describe, expect, it } from 'vitest';
import { brandMatches, canonicalBrand, latinBrand, successorBrands, unmatchableBrand } from './brands.ts';

describe('brands', () => {
  it("reads a brand written in the company's own name in another script as the catalogue's brand", () => {
    expect(latinBrand('東芝')).toBe('Toshiba');
    expect(latinBrand(' レノボ ')).toBe('Lenovo');
    // the decomposed katakana (ボ as ホ + a combining mark) is the same name
    expect(latinBrand('レノホ\u3099')).toBe('Lenovo');
    expect(latinBrand('戴尔')).toBe('Dell');
    expect(latinBrand('삼성')).toBe('Samsung');
    expect(canonicalBrand('東芝')).toBe('dynabook');
    expect(canonicalBrand('联想')).toBe('lenovo');
    expect(brandMatches('Apple', '苹果')).toBe(true);
    expect(brandMatches('Apple', 'アップル')).toBe(true);
    expect(brandMatches('Xiaomi', '小米')).toBe(true);
    expect(brandMatches('Dell', '联想')).toBe(false);
    // not a company's name: a country, a word
    expect(latinBrand('日本')).toBe('日本');
  });

  it('names no brand with nothing the text analysis keeps, and no other brand with an unknown one', () => {
    for (const b of ['שרת ישראלי', '日本', '---', '  ']) {
      expect(canonicalBrand(b)).toBe('');
      expect(brandMatches('Apple', b)).toBe(false);
      expect(brandMatches('Xiaomi', b)).toBe(false);
    }
    expect(brandMatches('Dell', 'Dellx')).toBe(false);
    expect(brandMatches('HP', 'Hewlett-Packard')).toBe(true);
  });

  it('says why a brand can match no device of the built-in catalogue', () => {
    expect(unmatchableBrand('日本')).toBe(
      "brand '日本' has no Latin letters or digits and is not in the brand alias table (docs/catalogue.md): no catalogue device is used, since one of another brand could be",
    );
    expect(unmatchableBrand('Zorblax')).toBe(
      "brand 'Zorblax' is not a brand of the built-in catalogue: no catalogue device is used, since a device of another brand never is",
    );
    expect(unmatchableBrand('Dell')).toBeUndefined();
    expect(unmatchableBrand('戴尔')).toBeUndefined();
    expect(unmatchableBrand('Palo Alto')).toBeUndefined();
  });

  it("lets HP's server lines match HPE's devices, and nothing else of another brand", () => {
    expect(successorBrands('HP', 'ProLiant DL380 Gen10 server4')).toEqual(['HPE']);
    expect(successorBrands('Hewlett-Packard', 'Synergy 480 Gen10')).toEqual(['HPE']);
    expect(successorBrands('HP', 'EliteBook 840 G9')).toEqual([]);
    expect(successorBrands('Dell', 'ProLiant DL380')).toEqual([]);
  });
});
