import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { checkProof, proofHash } from '../../src/odata/proof.ts';

/** X-Service-Proof-Hash: SHA-256 of the RFC 8785 serialisation of the returned rows, and its check from a saved response. */
const rows = [
  { asset_id: '5a1d3c2b-0000-4000-8000-000000000001', brand: 'Dell', total_kg_co2e: 310.5, purchase_date: '2023-01-15', mpn: null },
  { asset_id: '5a1d3c2b-0000-4000-8000-000000000002', brand: 'Bäcker "€"', total_kg_co2e: 1e21, purchase_date: null, mpn: 'x' },
];
const expected = createHash('sha256').update(canonicalize(rows)!).digest('hex');

describe('proof hash', () => {
  it('is the SHA-256 of the canonical JSON (RFC 8785) of the value array', () => {
    expect(proofHash(rows)).toBe(expected);
    expect(proofHash([])).toBe(createHash('sha256').update('[]').digest('hex'));
    // Documented example (docs/odata.md): the canonical text of one row.
    expect(canonicalize([{ mpn: null, brand: 'Dell', total_kg_co2e: 310.5 }])).toBe('[{"brand":"Dell","mpn":null,"total_kg_co2e":310.5}]');
  });

  it('does not depend on key order or formatting, but on every value and on the row order', () => {
    const reordered = rows.map((r) => Object.fromEntries(Object.entries(r).reverse()));
    expect(proofHash(JSON.parse(JSON.stringify(reordered, null, 2)))).toBe(expected);
    expect(proofHash([{ ...rows[0], total_kg_co2e: 310.50000000001 }, rows[1]])).not.toBe(expected);
    expect(proofHash([rows[1], rows[0]])).not.toBe(expected);
    expect(proofHash(rows.slice(0, 1))).not.toBe(expected);
  });

  it('is checked from a saved body, or from a saved response with headers (curl -i, also after 100 Continue)', () => {
    const body = JSON.stringify({ '@odata.context': 'x', value: rows });
    expect(checkProof(body)).toEqual({ hash: expected, rows: 2, claimed: undefined, proof: undefined, matches: undefined });
    expect(checkProof(body, expected.toUpperCase()).matches).toBe(true);
    const saved = `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Service-Proof: 11111111-2222-4333-8444-555555555555\r\nx-service-proof-hash: ${expected}\r\n\r\n${body}`;
    expect(checkProof(saved)).toEqual({
      hash: expected,
      rows: 2,
      claimed: expected,
      proof: '11111111-2222-4333-8444-555555555555',
      matches: true,
    });
    expect(checkProof(saved.replace(expected, '0'.repeat(64))).matches).toBe(false);
    expect(() => checkProof('<html>')).toThrow(/no JSON body/);
    expect(() => checkProof('{"error":"x"}')).toThrow(/no "value" array/);
  });
});
