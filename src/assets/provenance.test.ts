import { describe, expect, it } from 'vitest';
import { INTERVAL_METHOD } from '../footprint/engine/index.ts';
import { assumptionsOf, boundaryOf, impactsOf, methodologyCard } from './provenance.ts';

const base = { engine_version: '4.2.0', confidence: 'estimated_high', country: 'DE', total_kg_co2e: 252 };
const footprintResult = {
  country: 'DE',
  breakdown: { production_kg: 200, transport_kg: 10, use_phase_kg: 40, end_of_life_kg: 2 },
  methodology: {
    standard: 'ISO 14067',
    data_sources: ['a', 'b'],
    confidence: 'estimated_medium',
    uncertainty_pct: 20,
    engine_version: '4.1.1',
    lifetime_years: 4,
    annual_kwh: 25,
    grid_factor_kg_per_kwh: 0.4,
  },
};

describe('methodologyCard', () => {
  it('reads the methodology stored with the result', () => {
    expect(methodologyCard({ ...base, result: footprintResult })).toEqual({
      standard: 'ISO 14067',
      engine_version: '4.1.1',
      confidence: 'estimated_medium',
      uncertainty_pct: 20,
      interval: { low_kg: 210, high_kg: 302.4, method: INTERVAL_METHOD },
      data_sources: ['a', 'b'],
      lifetime_years: 4,
      annual_kwh: 25,
      grid_factor_kg_per_kwh: 0.4,
    });
  });

  it('states the interval of the recorded total multiplicatively: above zero at +/-110 %', () => {
    const wide = { ...footprintResult, methodology: { ...footprintResult.methodology, uncertainty_pct: 110 } };
    // 252 / 2.1 and 252 x 2.1; a symmetric band would start at -25.2 kg
    expect(methodologyCard({ ...base, result: wide })?.interval).toEqual({ low_kg: 120, high_kg: 529.2, method: INTERVAL_METHOD });
  });

  it('is null without a methodology, and null per missing part rather than invented', () => {
    expect(methodologyCard({ ...base, result: {} })).toBeNull();
    expect(methodologyCard({ ...base, result: null })).toBeNull();
    expect(methodologyCard({ ...base, result: { methodology: { data_sources: 'x' } } })).toEqual({
      standard: null,
      engine_version: '4.2.0',
      confidence: 'estimated_high',
      uncertainty_pct: null,
      interval: null,
      data_sources: null,
      lifetime_years: null,
      annual_kwh: null,
      grid_factor_kg_per_kwh: null,
    });
  });
});

describe('boundaryOf and assumptionsOf', () => {
  it('derives the stages from the stored breakdown', () => {
    const b = boundaryOf({ ...base, result: footprintResult })!;
    expect(b).toHaveLength(4);
    expect(b[0]).toMatch(/^production: /);
    expect(b[2]).toBe('use: electricity over 4 years on the DE grid');
    expect(b[3]).toMatch(/^end of life: .*cut-off/);
  });

  it('prefers a stated boundary and is null when nothing is stored', () => {
    expect(boundaryOf({ ...base, result: { boundary: ['x'] } })).toEqual(['x']);
    expect(boundaryOf({ ...base, result: { breakdown: {} } })).toBeNull();
    expect(boundaryOf({ ...base, result: 'nope' })).toBeNull();
    expect(assumptionsOf({ ...base, result: footprintResult })).toBeNull();
    expect(assumptionsOf({ ...base, result: { assumptions: ['grade B'] } })).toEqual(['grade B']);
  });
});

describe('impactsOf', () => {
  const criterion = (total: number) => ({ unit: 'u', phases: { production: total, transport: 0, use: 0, end_of_life: 0 }, total });
  const impacts = { gwp: criterion(252), adpe: criterion(0.012), pe: criterion(3100) };

  it('reads GWP, ADPe and PE stored with the result', () => {
    expect(impactsOf({ ...base, result: { ...footprintResult, impacts } })).toEqual(impacts);
  });

  it('is null for a record stored before them, and for one that carries them only in part', () => {
    expect(impactsOf({ ...base, result: footprintResult })).toBeNull();
    expect(impactsOf({ ...base, result: null })).toBeNull();
    expect(impactsOf({ ...base, result: { impacts: { gwp: impacts.gwp, adpe: impacts.adpe } } })).toBeNull();
    expect(impactsOf({ ...base, result: { impacts: { ...impacts, pe: { ...impacts.pe, total: '3100' } } } })).toBeNull();
  });
});
