import { describe, expect, it } from 'vitest';
import { factorCitation, loadGridFactors } from './grid-data.ts';
import { repeatedPhrases } from '../../test/support/phrases.ts';

describe('factor citations', () => {
  it('the detector finds the repeats the citations used to have', () => {
    expect(repeatedPhrases('US EPA eGRID2022, state rate eGRID2022 (data year 2022)')).toEqual(['egrid2022']);
    expect(repeatedPhrases('Ember, DEU; via @tgwf/co2 0.19.0 averageIntensity @tgwf/co2 0.19.0 averageIntensity: Ember latest')).toContain('@tgwf/co2 0.19.0');
    expect(repeatedPhrases('Electricity Maps, zone DE (Germany); via @tgwf/co2 0.19.0, version 2024 yearly (electricityMaps.yearly2024)')).toEqual([]);
  });

  it('no grid factor citation repeats a phrase (source, then version)', () => {
    const repeats = new Map<string, string>();
    for (const f of loadGridFactors()) {
      const found = repeatedPhrases(factorCitation(f));
      if (found.length) repeats.set(`${f.region_code} ${f.valid_from}`, `${found.join(' | ')} in: ${factorCitation(f)}`);
    }
    expect([...repeats].slice(0, 5)).toEqual([]);
  });
});
