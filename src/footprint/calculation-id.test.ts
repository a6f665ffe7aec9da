import { describe, expect, it } from 'vitest';
import { calculationId, CalculationContent, type CalculationRecord, type SameResult } from './calculation-writer.ts';

// Calculation ids are a contract: certificates and clients cite them, and a repeat is recognised by
// its id. The ids below were computed before CalculationContent existed; they must never change.
const record = (scope?: string): CalculationRecord => ({
  org_id: '7d4f3a52-1c1e-4b8e-9a43-2f6c0d8e5b11',
  api_key_id: '0b7e9c1d-5f2a-4e3b-8c6d-9a1b2c3d4e5f',
  kind: 'footprint',
  engine_version: '2.4.0',
  country: 'DE',
  category: 'laptop',
  product_id: null,
  confidence: 'estimated_medium',
  total_kg_co2e: 312.4,
  production_kg: 251.1,
  transport_kg: 6.3,
  use_phase_kg: 49.9,
  end_of_life_kg: 5.1,
  inputs: { brand: 'Dell', mpn: null, model: 'Latitude 5440', country: 'DE', ram_gb: 16, storage_gb: undefined },
  result: {
    product: { brand: 'Dell', mpn: null, name: 'Latitude 5440', category: 'laptop', weight_kg: 1.5 },
    country: 'DE',
    total_kg_co2e: 312.4,
    breakdown: { production_kg: 251.1, transport_kg: 6.3, use_phase_kg: 49.9, end_of_life_kg: 5.1 },
    methodology: { data_sources: ['built-in catalogue: Latitude 5440', 'grid factor DE: "2023" ✓'], warnings: [], scope: 'nested' },
    calculated_at: new Date(),
    calculation_id: null,
    production_components: [{ component: 'mainboard', kg: 100.25 }],
  },
  grid_factor_id: '5e8a1f3c-2b4d-4c6e-8f0a-1b2c3d4e5f60',
  factors: [{ factor_id: '5e8a1f3c-2b4d-4c6e-8f0a-1b2c3d4e5f60', role: 'use_grid' }],
  created_at: new Date(),
  scope,
});

describe('calculation ids', () => {
  it('are the ids calculations have always had, with and without a scope', () => {
    expect(calculationId(record())).toBe('731f4e65-c51e-8d19-abbd-60e4bcbc8d0c');
    expect(calculationId(record('asset:SN-1'))).toBe('068aa0a2-16b5-89cf-b9af-4636cb0839f8');
  });

  it('are the same from content shared by records that differ only in scope', () => {
    const content = new CalculationContent(record('asset:SN-1'));
    for (const scope of ['asset:SN-1', 'asset:SN-2', 'asset:"quoted"', undefined])
      expect(content.id(scope)).toBe(calculationId(record(scope)));
    expect(content.id('asset:SN-1')).not.toBe(content.id('asset:SN-2'));
  });

  it('are the same from a result shared by records whose inputs differ', () => {
    const sameResult: SameResult = {};
    const bought = (date: string): CalculationRecord => ({ ...record('asset:SN-1'), inputs: { ...record().inputs, purchase_date: date } });
    const first = new CalculationContent(bought('2021-03-01'), sameResult).id('asset:SN-1');
    expect(sameResult.canonical).toBeDefined();
    const second = new CalculationContent(bought('2022-06-15'), sameResult).id('asset:SN-1');
    expect(first).toBe(calculationId(bought('2021-03-01')));
    expect(second).toBe(calculationId(bought('2022-06-15')));
    expect(first).not.toBe(second);
  });
});
