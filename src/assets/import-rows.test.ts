import { describe, expect, it } from 'vitest';
import { normaliseRow, parseAssetCsv, purchaseDateProblem, toCsvLine, checkRowCount } from './import-rows.ts';

const today = new Date('2026-03-01T12:00:00Z');

describe('normaliseRow', () => {
  it('trims, lower-cases enums, parses CSV numbers and defaults the status to in_use', () => {
    const { row, problems } = normaliseRow(
      {
        brand: ' Dell ',
        model: 'Latitude 5440',
        serial_number: ' SN1 ',
        country: 'de',
        category: 'Laptop',
        ram_gb: '16',
        weight_kg: 1.4,
        screen_type: 'IPS',
        storage_type: '',
        status: '',
      },
      today,
    );
    expect(problems).toEqual([]);
    expect(row).toEqual({
      brand: 'Dell',
      mpn: null,
      model: 'Latitude 5440',
      serial_number: 'SN1',
      category: 'laptop',
      purchase_date: null,
      country: 'de',
      status: 'in_use',
      specs: { ram_gb: 16, weight_kg: 1.4, screen_type: 'ips' },
    });
    expect(normaliseRow({ serial_number: 'x', status: 'In Repair' }, today).row.status).toBe('in_repair');
  });

  it('names each bad field with the reason', () => {
    const { problems } = normaliseRow({ status: 'lost', purchase_date: '01/02/2024', ram_gb: 'lots' }, today);
    expect(problems.map((p) => p.field)).toEqual(['serial_number', 'status', 'purchase_date', 'ram_gb']);
    expect(problems[3]!.reason).toBe("must be a number, got 'lots'");
  });
});

describe('purchaseDateProblem', () => {
  it('accepts real past days only', () => {
    expect(purchaseDateProblem('2024-02-29', today)).toBeUndefined();
    expect(purchaseDateProblem('2026-03-01', today)).toBeUndefined();
    expect(purchaseDateProblem('2023-02-29', today)).toMatch(/not a calendar date/);
    expect(purchaseDateProblem('2026-03-02', today)).toMatch(/future/);
    expect(purchaseDateProblem('1960-01-01', today)).toMatch(/1970/);
  });
});

describe('parseAssetCsv', () => {
  it('maps header names in any case and order; empty lines are not rows', () => {
    const rows = parseAssetCsv('\ufeffSerial_Number,Brand,Model,Country\n1,HP,"EliteBook 840, G9",DE\n\n2,Dell,X,FR\n');
    expect(rows).toEqual([
      { serial_number: '1', brand: 'HP', model: 'EliteBook 840, G9', country: 'DE' },
      { serial_number: '2', brand: 'Dell', model: 'X', country: 'FR' },
    ]);
  });

  it('rejects unknown, repeated and missing columns, and files over 1000 rows', () => {
    expect(() => parseAssetCsv('brand,model,serial,country\nHP,X,1,DE')).toThrow(/Invalid parameter 'csv'/);
    expect(() => parseAssetCsv('brand,brand,model,serial_number,country\n')).toThrow(
      expect.objectContaining({ details: "csv: column 'brand' appears more than once" }),
    );
    expect(() => parseAssetCsv('brand,serial_number,country\nHP,1,DE')).toThrow(
      expect.objectContaining({ details: 'csv: missing column: mpn or model' }),
    );
    expect(() => parseAssetCsv('brand,model,serial_number,country\n')).toThrow(
      expect.objectContaining({ details: 'csv: has a header but no asset rows' }),
    );
    const big = ['brand,model,serial_number,country', ...Array.from({ length: 1001 }, (_, i) => `HP,X,${i},DE`)].join('\n');
    expect(() => parseAssetCsv(big)).toThrow(expect.objectContaining({ code: 'TOO_MANY_ROWS' }));
    expect(() => checkRowCount(1000, 'assets')).not.toThrow();
  });

  it('round-trips cells through toCsvLine', () => {
    const cells = ['a', 'b,c', 'say "hi"', ' pad', 'line\nbreak'];
    expect(parseAssetCsv(`brand,model,serial_number,country,category\n${toCsvLine(cells)}`)[0]).toEqual({
      brand: 'a',
      model: 'b,c',
      serial_number: 'say "hi"',
      country: ' pad',
      category: 'line\nbreak',
    });
  });
});
