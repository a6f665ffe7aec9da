import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalCodeShape, editDistance, normaliseText, rankClosestCodes } from './grid-codes.ts';
import { vintageAt } from '../factors/lookup.ts';
import {
  closestRegionCodes,
  factorBasisProvenance,
  loadGridFactors,
  loadRegions,
  loadRegistries,
  normaliseRegionCode,
} from './grid-data.ts';
import type { GridFactorRecord } from './grid-build.ts';
import { installedVersion } from './grid-sources.ts';

/** The record of `code` valid at `date`, by the service's one vintage rule (vintageAt, used by lookups and calculations). */
function factorAt(records: readonly GridFactorRecord[], code: string, date: Date): GridFactorRecord | undefined {
  const region = canonicalCodeShape(code) ?? code;
  const dated = records
    .filter((r) => r.region_code === region)
    .map((record) => ({
      record,
      valid_from: new Date(record.valid_from),
      valid_to: record.valid_to === null ? null : new Date(record.valid_to),
    }));
  if (Number.isNaN(date.getTime())) throw new RangeError('invalid date');
  return vintageAt(dated, date)?.record;
}

const US_STATES = [
  'AL',
  'AK',
  'AZ',
  'AR',
  'CA',
  'CO',
  'CT',
  'DE',
  'DC',
  'FL',
  'GA',
  'HI',
  'ID',
  'IL',
  'IN',
  'IA',
  'KS',
  'KY',
  'LA',
  'ME',
  'MD',
  'MA',
  'MI',
  'MN',
  'MS',
  'MO',
  'MT',
  'NE',
  'NV',
  'NH',
  'NJ',
  'NM',
  'NY',
  'NC',
  'ND',
  'OH',
  'OK',
  'OR',
  'PA',
  'RI',
  'SC',
  'SD',
  'TN',
  'TX',
  'UT',
  'VT',
  'VA',
  'WA',
  'WV',
  'WI',
  'WY',
];
const CN_PROVINCES_WITH_MEE_FIGURES = [
  'AH',
  'BJ',
  'CQ',
  'FJ',
  'GD',
  'GS',
  'GX',
  'GZ',
  'HA',
  'HB',
  'HE',
  'HI',
  'HL',
  'HN',
  'JL',
  'JS',
  'JX',
  'LN',
  'NM',
  'NX',
  'QH',
  'SC',
  'SD',
  'SH',
  'SN',
  'SX',
  'TJ',
  'XJ',
  'YN',
  'ZJ',
];

const factors = loadGridFactors();
const regions = loadRegions();
const registries = loadRegistries();
const countries = regions.filter((r) => r.kind === 'country');
const subdivisions = regions.filter((r) => r.kind === 'subdivision');

function vintages(code: string): GridFactorRecord[] {
  return factors.filter((f) => f.region_code === code);
}

describe('counts and coverage', () => {
  it('has at least 212 countries and 54 subdivisions', () => {
    expect(countries.length).toBeGreaterThanOrEqual(212);
    expect(subdivisions.length).toBeGreaterThanOrEqual(54);
    expect(regions.length).toBe(countries.length + subdivisions.length);
  });

  it('has all 50 US states and DC from EPA eGRID', () => {
    expect(US_STATES).toHaveLength(51);
    for (const s of US_STATES) {
      const list = vintages(`US-${s}`);
      expect(list.length, `US-${s}`).toBeGreaterThan(0);
      for (const f of list) expect(f.registry_key).toBe('epa-egrid');
    }
  });

  it('has the Chinese provinces from the MEE provincial factors, 2021 and 2022', () => {
    for (const p of CN_PROVINCES_WITH_MEE_FIGURES) {
      const list = vintages(`CN-${p}`);
      expect(
        list.map((f) => f.valid_from),
        `CN-${p}`,
      ).toEqual(['2021-01-01', '2022-01-01']);
      for (const f of list) expect(f.registry_key).toBe('cn-mee');
    }
    // Published 0.4403 (2022) and 0.4715 (2021) kg CO2/kWh, converted to lifecycle CO2e (see 'one basis' below;
    // the 2021 ratio is below 1, so the published value stays).
    expect(factorAt(factors, 'CN-GD', new Date('2022-07-01'))?.value).toBe(0.442269);
    expect(factorAt(factors, 'CN-GD', new Date('2021-07-01'))?.value).toBe(0.4715);
  });

  it('has ISO 3166-2 subdivisions from Electricity Maps zones', () => {
    for (const code of ['CA-ON', 'CA-QC', 'AU-NSW', 'AU-VIC', 'GB-NIR']) {
      const list = vintages(code);
      expect(list.length, code).toBeGreaterThanOrEqual(5);
      for (const f of list) expect(f.registry_key).toBe('electricity-maps');
    }
  });

  it('lists exactly the regions that have factors, every subdivision under a listed country', () => {
    const withFactors = new Set(factors.map((f) => f.region_code));
    expect(new Set(regions.map((r) => r.code))).toEqual(withFactors);
    const countryCodes = new Set(countries.map((c) => c.code));
    for (const c of countries) {
      expect(c.code).toMatch(/^[A-Z]{2}$/);
      expect(c.parent_code).toBeNull();
      expect(c.name).not.toBe(c.code);
    }
    for (const s of subdivisions) {
      expect(s.code).toMatch(/^[A-Z]{2}-[A-Z0-9]{1,3}$/);
      expect(s.parent_code).toBe(s.code.slice(0, 2));
      expect(countryCodes.has(s.parent_code ?? '')).toBe(true);
      expect(s.name).not.toBe(s.code);
    }
    expect(new Set(regions.map((r) => r.code)).size).toBe(regions.length);
  });
});

describe('provenance and values', () => {
  it('gives every factor its provenance', () => {
    const keys = new Set(registries.map((r) => r.key));
    for (const f of factors) {
      const id = `${f.region_code} ${f.valid_from}`;
      expect(f.type, id).toBe('GRID');
      expect(f.unit, id).toBe('kg CO2e/kWh');
      expect(keys.has(f.registry_key), id).toBe(true);
      for (const field of ['source', 'source_version', 'valid_from'] as const) {
        expect(f[field].trim(), `${id} ${field}`).not.toBe('');
      }
      // All current sources have a URL and a licence; null is allowed by the interface only for missing provenance.
      expect(f.source_url, id).toMatch(/^https:\/\//);
      expect(f.source_license?.trim(), id).toBeTruthy();
      expect(f.valid_from, id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      if (f.valid_to !== null) {
        expect(f.valid_to, id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(f.valid_to >= f.valid_from, id).toBe(true);
      }
    }
  });

  it('keeps values in a sane range', () => {
    for (const f of factors) {
      expect(Number.isFinite(f.value)).toBe(true);
      expect(f.value, `${f.region_code} ${f.valid_from}`).toBeGreaterThan(0);
      expect(f.value, `${f.region_code} ${f.valid_from}`).toBeLessThan(1.5);
    }
  });

  it('has no duplicate (region, valid_from) and exactly one open-ended vintage per region, the newest', () => {
    const seen = new Set<string>();
    for (const f of factors) {
      const key = `${f.region_code}|${f.valid_from}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
    }
    for (const r of regions) {
      const list = vintages(r.code).sort((a, b) => a.valid_from.localeCompare(b.valid_from));
      const open = list.filter((f) => f.valid_to === null);
      expect(open, r.code).toHaveLength(1);
      expect(open[0], r.code).toBe(list[list.length - 1]);
      // Vintages of one region do not overlap.
      for (let i = 1; i < list.length; i++) {
        const prev = list[i - 1];
        expect(prev?.valid_to !== null && (prev?.valid_to ?? '') < (list[i]?.valid_from ?? ''), r.code).toBe(true);
      }
    }
  });

  it('uses one lifecycle series per country: Electricity Maps when it has the country', () => {
    for (const c of countries) {
      const keys = new Set(vintages(c.code).map((f) => f.registry_key));
      expect(keys.size, c.code).toBe(1);
    }
    const de = vintages('DE');
    expect(de.map((f) => f.valid_from)).toEqual(['2021-01-01', '2022-01-01', '2023-01-01', '2024-01-01', '2025-01-01']);
    expect(de.map((f) => f.valid_to)).toEqual(['2021-12-31', '2022-12-31', '2023-12-31', '2024-12-31', null]);
    for (const f of de) expect(f.source).toMatch(/lifecycle/);
  });

  it('marks regional proxies in the source', () => {
    const proxies = factors.filter((f) => f.source.startsWith('REGIONAL PROXY'));
    expect(proxies.length).toBeGreaterThan(0);
    const mc = vintages('MC');
    expect(mc).toHaveLength(1);
    expect(mc[0]?.source).toMatch(/^REGIONAL PROXY: Ember 'EUROPE'/);
    // Countries the packages cover are never proxies.
    for (const code of ['DE', 'US', 'CN', 'RU', 'CL']) {
      expect(
        vintages(code).some((f) => f.source.startsWith('REGIONAL PROXY')),
        code,
      ).toBe(false);
    }
  });

  it('excludes territories without a public grid', () => {
    for (const code of ['AQ', 'BV', 'HM', 'TF']) expect(normaliseRegionCode(code)).toBeUndefined();
  });
});

describe('registries', () => {
  it('has one record per registry with the expected fields', () => {
    expect(registries.map((r) => r.key).sort()).toEqual(['boavizta', 'cn-mee', 'electricity-maps', 'ember', 'epa-egrid']);
    for (const r of registries) {
      expect(Object.keys(r).sort()).toEqual(['current_version', 'display_name', 'key', 'license', 'next_check_after', 'url']);
      expect(r.url).toMatch(/^https:\/\//);
      if (r.next_check_after !== null) expect(r.next_check_after).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('names the installed @tgwf/co2 version in the package-backed registries and factors', () => {
    const version = installedVersion('@tgwf/co2');
    for (const key of ['electricity-maps', 'ember']) {
      expect(registries.find((r) => r.key === key)?.current_version).toContain(`@tgwf/co2 ${version}`);
    }
    for (const f of factors.filter((x) => x.registry_key === 'electricity-maps' || x.registry_key === 'ember')) {
      expect(f.source).toContain(`@tgwf/co2 ${version}`);
    }
  });

  it('types every typed-in record with its citation', () => {
    for (const file of ['us-egrid2022-states.json', 'cn-mee-provincial.json']) {
      const doc = JSON.parse(readFileSync(new URL(`../../data/grid-factors/${file}`, import.meta.url), 'utf8')) as {
        records: Record<string, unknown>[];
      };
      for (const r of doc.records) {
        for (const field of ['source', 'source_version', 'source_url', 'source_license', 'valid_from']) {
          expect(typeof r[field], `${file} ${String(r.region_code)} ${field}`).toBe('string');
        }
        expect('valid_to' in r).toBe(true);
      }
    }
  });
});

describe('one grid-factor basis: lifecycle CO2e', () => {
  const at = (code: string, from: string) => factors.find((f) => f.region_code === code && f.valid_from === from);

  it('every factor is lifecycle CO2e and keeps its published value and basis', () => {
    for (const f of factors) {
      expect(f.basis).toBe('lifecycle_co2e');
      expect(f.unit).toBe('kg CO2e/kWh');
      if (f.published_basis === 'lifecycle_co2e') {
        expect([f.uplift, f.uplift_source, f.published_value]).toEqual([null, null, f.value]);
      } else {
        expect(f.value, `${f.region_code} ${f.valid_from}`).toBeCloseTo(f.published_value * f.uplift!, 6);
      }
    }
    const byBasis = (b: string) => factors.filter((f) => f.published_basis === b).length;
    expect(byBasis('direct_co2e')).toBe(51);
    expect(byBasis('direct_co2')).toBe(60);
  });

  it('converts an eGRID state (direct CO2e) with the US national ratio', () => {
    // 0.434 (Electricity Maps US 2022, lifecycle) / (823.1 lb/MWh x 0.453592 / 1000 = 0.373352, eGRID2022 national) = 1.162442
    expect(at('US-CA', '2022-01-01')).toMatchObject({
      published_value: 0.207512,
      published_basis: 'direct_co2e',
      uplift: 1.162442,
      value: 0.241221,
    });
    expect(at('US-CA', '2022-01-01')?.uplift_source).toBe(
      'Electricity Maps US 2022 lifecycle average (0.434 kg CO2e/kWh) / US EPA eGRID2022 national CO2 total output emission rate 823.1 lb/MWh (0.373352 kg/kWh)',
    );
    expect(at('US-WV', '2022-01-01')?.value).toBeCloseTo(0.895538 * 1.162442, 6);
  });

  it('converts a Chinese province (direct CO2 only) with the CN national ratio of the same data year', () => {
    // 2022: 0.539 / 0.5366 = 1.004473; 2021: 0.552 / 0.5568 = 0.991379, floored at 1 (never below the direct figure)
    expect(at('CN-BJ', '2022-01-01')).toMatchObject({
      published_value: 0.558,
      published_basis: 'direct_co2',
      uplift: 1.004473,
      value: 0.560496,
    });
    expect(at('CN-BJ', '2021-01-01')).toMatchObject({ published_value: 0.5688, published_basis: 'direct_co2', uplift: 1, value: 0.5688 });
  });

  it('cites the conversion in the source text', () => {
    expect(at('US-CA', '2022-01-01')?.source).toMatch(
      /direct combustion emissions .*; converted to lifecycle CO2e: published value 0\.207512 x uplift 1\.162442$/,
    );
    expect(at('CN-BJ', '2022-01-01')?.source).toMatch(
      /CO2 only, direct combustion; converted to lifecycle CO2e: published value 0\.558 x uplift 1\.004473$/,
    );
  });

  it('answers the provenance of a stored row by region and valid_from', () => {
    expect(factorBasisProvenance('US-CA', new Date('2022-01-01T00:00:00Z'))).toMatchObject({
      published_basis: 'direct_co2e',
      uplift: 1.162442,
    });
    expect(factorBasisProvenance('DE', '2025-01-01')).toMatchObject({ published_basis: 'lifecycle_co2e', uplift: null });
    expect(factorBasisProvenance('US-CA', '1999-01-01')).toBeUndefined();
  });
});

describe('normaliseRegionCode', () => {
  it('normalises case and whitespace', () => {
    expect(normaliseRegionCode('de')).toBe('DE');
    expect(normaliseRegionCode(' De ')).toBe('DE');
    expect(normaliseRegionCode('us-ca')).toBe('US-CA');
    expect(normaliseRegionCode('US-CA')).toBe('US-CA');
    expect(normaliseRegionCode('cn-gd')).toBe('CN-GD');
    expect(normaliseRegionCode('ca-on')).toBe('CA-ON');
  });

  it('returns undefined for unknown or malformed codes', () => {
    expect(normaliseRegionCode('DX')).toBeUndefined();
    expect(normaliseRegionCode('')).toBeUndefined();
    expect(normaliseRegionCode('Germany')).toBeUndefined();
    expect(normaliseRegionCode('DEU')).toBeUndefined();
    expect(normaliseRegionCode('US-ZZ')).toBeUndefined();
  });
});

describe('closestRegionCodes', () => {
  it('suggests near codes for a mistyped code', () => {
    const out = closestRegionCodes('DX');
    expect(out).toHaveLength(3);
    expect(out).toContain('DE');
    for (const code of out) expect(normaliseRegionCode(code)).toBe(code);
    expect(closestRegionCodes('DX', 5)).toHaveLength(5);
    expect(closestRegionCodes('US-CX')[0]).toMatch(/^US-C/);
  });

  it('matches names, aliases and alpha-3 codes', () => {
    expect(closestRegionCodes('germany')[0]).toBe('DE');
    expect(closestRegionCodes('Germny')[0]).toBe('DE');
    expect(closestRegionCodes('DEU')[0]).toBe('DE');
    expect(closestRegionCodes('united kingdom')[0]).toBe('GB');
    expect(closestRegionCodes('california')[0]).toBe('US-CA');
    expect(closestRegionCodes('Québec')[0]).toBe('CA-QC');
    expect(closestRegionCodes('广东')[0]).toBe('CN-GD');
  });

  it('still finds a name with a slip when long input rules most names out by length', () => {
    expect(closestRegionCodes('Unitd Kingdm')[0]).toBe('GB');
    expect(closestRegionCodes('x'.repeat(64))).toEqual([]);
  });

  it('handles empty input and n', () => {
    expect(closestRegionCodes('')).toEqual([]);
    expect(closestRegionCodes('DX', 0)).toEqual([]);
  });
});

describe('factorAt', () => {
  it('picks the vintage valid at the date', () => {
    const in2022 = factorAt(factors, 'DE', new Date('2022-06-15T00:00:00Z'));
    const in2025 = factorAt(factors, 'DE', new Date('2025-03-01T00:00:00Z'));
    expect(in2022?.valid_from).toBe('2022-01-01');
    expect(in2025?.valid_from).toBe('2025-01-01');
    expect(in2022).not.toBe(in2025);
    expect(in2022?.value).not.toBe(in2025?.value);
  });

  it('uses the newest vintage after it and the oldest before the first', () => {
    expect(factorAt(factors, 'DE', new Date('2031-01-01'))?.valid_from).toBe('2025-01-01');
    expect(factorAt(factors, 'DE', new Date('1999-01-01'))?.valid_from).toBe('2021-01-01');
    expect(factorAt(factors, 'US-CA', new Date('2010-01-01'))?.valid_from).toBe('2022-01-01');
  });

  it('treats valid_to as inclusive, by UTC day', () => {
    expect(factorAt(factors, 'DE', new Date('2022-12-31T23:59:59Z'))?.valid_from).toBe('2022-01-01');
    expect(factorAt(factors, 'DE', new Date('2023-01-01T00:00:00Z'))?.valid_from).toBe('2023-01-01');
  });

  it('is pure and tolerant of the code case; undefined for unknown regions', () => {
    const sample: GridFactorRecord[] = [mk('XX', '2020-01-01', '2020-12-31', 0.5), mk('XX', '2021-01-01', null, 0.4)];
    expect(factorAt(sample, 'xx', new Date('2020-05-01'))?.value).toBe(0.5);
    expect(factorAt(sample, 'XX', new Date('2024-05-01'))?.value).toBe(0.4);
    expect(factorAt(sample, 'YY', new Date('2024-05-01'))).toBeUndefined();
    expect(() => factorAt(sample, 'XX', new Date('not a date'))).toThrow(RangeError);
    expect(sample.map((f) => f.valid_from)).toEqual(['2020-01-01', '2021-01-01']);
  });
});

describe('grid-codes helpers', () => {
  it('computes edit distance with transpositions', () => {
    expect(editDistance('DE', 'DE')).toBe(0);
    expect(editDistance('DX', 'DE')).toBe(1);
    expect(editDistance('ED', 'DE')).toBe(1);
    expect(editDistance('', 'ABC')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('normalises text', () => {
    expect(normaliseText('  Côte d’Ivoire ')).toBe('cote d ivoire');
  });

  it('ranks on a small index deterministically', () => {
    const index = [
      { code: 'AA', kind: 'country' as const, names: ['Alpha'] },
      { code: 'AB', kind: 'country' as const, names: ['Beta'] },
      { code: 'AA-X', kind: 'subdivision' as const, names: ['Gamma'] },
    ];
    expect(rankClosestCodes('beta', index)).toEqual(['AB']);
    expect(rankClosestCodes('AC', index, 2)).toEqual(['AA', 'AB']);
  });
});

function mk(region: string, from: string, to: string | null, value: number): GridFactorRecord {
  return {
    type: 'GRID',
    region_code: region,
    value,
    unit: 'kg CO2e/kWh',
    basis: 'lifecycle_co2e',
    published_value: value,
    published_basis: 'lifecycle_co2e',
    uplift: null,
    uplift_source: null,
    registry_key: 'test',
    source: 'test',
    source_version: 'test',
    source_url: null,
    source_license: null,
    valid_from: from,
    valid_to: to,
  };
}
