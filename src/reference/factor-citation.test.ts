import { describe, expect, it } from 'vitest';
import { factorCitation, loadGridFactors } from './grid-data.ts';
import { repeatedPhrases } from '../../test/support/phrases.ts';

describe('factor citations', () => {
  it('the detector finds the repeats the citations used to have', () => {
    expect(repeatedPhrases('US EPA eGRID2022, state rate eGRID2022 (data year 2022)')).toEqual(['egrid2022']);
    expect(repeatedPhrases('Ember, DEU; via @tgwf/co2 0.19.0 averageIntensity @tgwf/co2 0.19.0 averageIntensity: Ember latest')).toContain(
      '@tgwf/co2 0.19.0',
    );
    expect(
      repeatedPhrases('Electricity Maps, zone DE (Germany); via @tgwf/co2 0.19.0, version 2024 yearly (electricityMaps.yearly2024)'),
    ).toEqual([]);
  });

  it('no grid factor citation repeats a phrase (source, then version)', () => {
    const repeats = new Map<string, string>();
    for (const f of loadGridFactors()) {
      const found = repeatedPhrases(factorCitation(f));
      if (found.length) repeats.set(`${f.region_code} ${f.valid_from}`, `${found.join(' | ')} in: ${factorCitation(f)}`);
    }
    expect([...repeats].slice(0, 5)).toEqual([]);
  });

  it('names publisher, series and vintage once in a state, province and subdivision citation', () => {
    const cite = (code: string) =>
      factorCitation(
        loadGridFactors()
          .filter((f) => f.region_code === code)
          .at(-1)!,
      );
    const count = (text: string, word: string) => text.split(word).length - 1;
    const us = cite('US-CA');
    expect([count(us, 'eGRID'), count(us, 'EPA'), count(us, 'lifecycle')]).toEqual([1, 1, 1]);
    const cn = cite('CN-BJ');
    expect([count(cn, 'MEE'), count(cn, '电力二氧化碳排放因子'), count(cn, '2022')]).toEqual([1, 1, 2]);
    expect(cn).toMatch(
      /^China MEE & NBS, .*, version data year 2022, announcement of 2024-12-20 \(关于发布2022年电力二氧化碳排放因子的公告\)$/,
    );
    const sub = cite('AU-NSW');
    expect([count(sub, 'yearly'), count(sub, 'Electricity Maps'), count(sub, 'lifecycle')]).toEqual([2, 1, 1]);
    expect(sub).toMatch(
      /^Electricity Maps carbon intensity, lifecycle, zone AU-NSW \(New South Wales\); via @tgwf\/co2 [\d.]+, version 2025 yearly average \(electricityMaps\.yearly2025\)$/,
    );
  });
});
