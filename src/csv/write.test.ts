import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { neutraliseFormula, toSpreadsheetCsv } from './write.ts';

describe('toSpreadsheetCsv', () => {
  it('neutralises every formula-leading text cell and keeps the rest as sent', () => {
    const csv = toSpreadsheetCsv(
      ['serial_number', 'brand', 'total_kg_co2e'],
      [
        ["=cmd|' /C calc'!A0", '+SUM(A1:A9)', -12.5],
        ['-2+3', '@HYPERLINK("http://x")', 0],
        ['\tTAB', '\rCR', 1],
        ['SN-1', 'Dell, Inc. "EMEA"', 203.4],
      ],
    );
    const rows = parse(csv) as string[][];
    expect(rows).toEqual([
      ['serial_number', 'brand', 'total_kg_co2e'],
      ["'=cmd|' /C calc'!A0", "'+SUM(A1:A9)", '-12.5'],
      ["'-2+3", '\'@HYPERLINK("http://x")', '0'],
      ["'\tTAB", "'\rCR", '1'],
      ['SN-1', 'Dell, Inc. "EMEA"', '203.4'],
    ]);
  });

  it('writes dates as ISO 8601 and leaves plain text alone', () => {
    expect(toSpreadsheetCsv(['at'], [[new Date('2026-01-02T03:04:05Z')]])).toBe('at\n2026-01-02T03:04:05.000Z\n');
    expect(neutraliseFormula('Latitude 5440')).toBe('Latitude 5440');
    expect(neutraliseFormula('=1+1')).toBe("'=1+1");
  });
});
