import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, qs, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { repeatedPhrases } from '../support/phrases.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const COUNTRIES = ['DE', 'FR', 'PL', 'NL', 'SE', 'US-CA'];

describe(`numbers are rounded once, at the edge (${TEST_DATABASE_KIND})`, () => {
  // Before: savings computed the extra electricity as annual x penalty x years x grid, refurbishment
  // as (annual x (1 + penalty) - annual) x years x grid, both from an already rounded annual_kwh:
  // a Dell laptop in DE over 2 years answered 2.57 on /savings and 2.56 on /refurbishment.
  it('/savings and /refurbishment report the same avoided production, transport and extra use phase', async () => {
    const mismatches: string[] = [];
    for (const country of COUNTRIES) {
      for (const remaining_years of [1, 2, 3, 5]) {
        const device = { brand: 'Dell', model: 'Latitude Test', category: 'laptop', country, remaining_years };
        const s = (await t.json(`/v1/savings?${qs(device)}`)).body;
        const r = (await t.json(`/v1/refurbishment?${qs({ ...device, grade: 'B' })}`)).body;
        const pairs: [string, number, number][] = [
          ['production', s.avoided_production_kg, r.new_device.production_kg],
          ['transport', s.avoided_transport_kg, r.new_device.transport_kg],
          ['additional_use_phase', s.additional_use_phase_kg, r.adjusted_use_phase.additional_use_phase_kg],
        ];
        for (const [name, a, b] of pairs)
          if (a !== b) mismatches.push(`${country} ${remaining_years}y ${name}: savings ${a} vs refurbishment ${b}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('derives use-phase figures from the unrounded annual consumption', async () => {
    // Over the footprint's own lifetime, in the same country, the new device's use phase in
    // /refurbishment is the footprint's use phase: both are rounded once from the same unrounded value.
    const mismatches: string[] = [];
    for (const country of COUNTRIES) {
      const device = { brand: 'Dell', model: 'Latitude Test', category: 'laptop', country };
      const f = (await t.json(`/v1/footprint?${qs(device)}`)).body;
      const years = f.methodology.lifetime_years;
      const r = (await t.json(`/v1/refurbishment?${qs({ ...device, grade: 'B', remaining_years: years })}`)).body;
      if (r.adjusted_use_phase.new_device_use_phase_kg !== f.breakdown.use_phase_kg) {
        mismatches.push(
          `${country}: refurbishment ${r.adjusted_use_phase.new_device_use_phase_kg} vs footprint ${f.breakdown.use_phase_kg}`,
        );
      }
      for (const v of [
        r.gross_avoided_kg,
        r.net_savings_kg,
        r.adjusted_use_phase.additional_use_phase_kg,
        r.adjusted_use_phase.new_device_use_phase_kg,
      ]) {
        expect(Math.round(v * 100) / 100).toBe(v);
      }
    }
    expect(mismatches).toEqual([]);
  });
});

/** Every object's keys in order, depth first, as `path: k1,k2,...` lines. */
function keyOrder(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => keyOrder(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  const entries = Object.entries(value);
  return [`${path}: ${entries.map(([k]) => k).join(',')}`, ...entries.flatMap(([k, v]) => keyOrder(v, `${path}.${k}`))];
}

describe('one JSON key order per type', () => {
  it('GET /v1/footprint answers the same key order from the fast path as from the GraphQL-executed path', async () => {
    const base = await t.listen();
    const path = `/v1/footprint?${qs({ brand: 'Lenovo', model: 'Key Order 14', category: 'laptop', country: 'DE', ram_gb: 16 })}`;
    const first = await (await fetch(`${base}${path}`)).text();
    const second = await (await fetch(`${base}${path}`)).text();
    expect(keyOrder(JSON.parse(second))).toEqual(keyOrder(JSON.parse(first)));
    // and the order is the schema's field order
    expect(Object.keys(JSON.parse(second))).toEqual([
      'product',
      'country',
      'total_kg_co2e',
      'breakdown',
      'impacts',
      'methodology',
      'calculated_at',
      'calculation_id',
    ]);
  });
});

/** Header names exactly as sent on the wire (node:http rawHeaders), without the ones Node adds itself. */
const NODE_HEADERS = new Set(['Date', 'Connection', 'Keep-Alive', 'Transfer-Encoding']);
const rawHeaderNames = (url: string) =>
  new Promise<string[]>((resolve, reject) => {
    const req = request(url, (res) => {
      res.resume();
      res.on('end', () => resolve(res.rawHeaders.filter((_, i) => i % 2 === 0).filter((n) => !NODE_HEADERS.has(n))));
    });
    req.on('error', reject);
    req.end();
  });

describe('one header casing', () => {
  it('sends every header name of its own in lower case, on the fast path as on the GraphQL-executed one', async () => {
    const base = await t.listen();
    const path = `/v1/footprint?${qs({ brand: 'HP', model: 'Header Case 840', category: 'laptop', country: 'FR' })}`;
    const first = await rawHeaderNames(`${base}${path}`);
    const second = await rawHeaderNames(`${base}${path}`); // answered by the fast path
    const others = await Promise.all(
      ['/v1/savings?brand=HP&model=X&country=FR', '/v1/footprint?brand=HP', '/', '/v1/openapi.json'].map((p) =>
        rawHeaderNames(`${base}${p}`),
      ),
    );
    for (const names of [first, second, ...others]) for (const name of names) expect(name).toBe(name.toLowerCase());
    expect([...second].sort()).toEqual([...first].sort());
    expect(second).toEqual(
      expect.arrayContaining(['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-plan', 'cache-control', 'vary']),
    );
  });
});

describe('factor sources as the API cites them', () => {
  it('repeat no phrase in data_sources or grid_factor_source', async () => {
    const texts: string[] = [];
    for (const country of ['DE', 'US-CA', 'CN-GD', 'AD', 'RU']) {
      const f = (await t.json(`/v1/footprint?${qs({ brand: 'Dell', model: 'Sources 5', category: 'laptop', country })}`)).body;
      texts.push(...f.methodology.data_sources);
    }
    const { countries } = (await t.json('/v1/reference/countries')).body;
    texts.push(...countries.map((c: { grid_factor_source: string }) => c.grid_factor_source));
    const repeats = texts.map((text) => ({ text, repeats: repeatedPhrases(text) })).filter((r) => r.repeats.length);
    expect(repeats.slice(0, 3)).toEqual([]);
    const us = texts.find((s) => s.startsWith('grid factor US-CA: '));
    expect(us).toMatch(
      /^grid factor US-CA: US EPA, .*; converted to lifecycle CO2e: published value 0\.207512 x uplift 1\.162442, version eGRID2022 \(data year 2022/,
    );
  });
});

describe('calculation_id of anonymous calls', () => {
  it('is null, and the README and the API description say why (nothing is stored without an organisation)', async () => {
    const f = (await t.json(`/v1/footprint?${qs({ brand: 'Dell', model: 'Anon 5', category: 'laptop', country: 'DE' })}`)).body;
    expect(f.calculation_id).toBeNull();
    const { readFile } = await import('node:fs/promises');
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toMatch(
      /Anonymous calls \(no API key\) and keys\s+without organisation context[^.]*get `calculation_id: null`\s+because nothing is stored for them/,
    );
    const openapi = (await t.json('/v1/openapi.json')).body;
    const description = openapi.components.schemas.FootprintResult.properties.calculation_id.description;
    expect(description).toMatch(/Null for anonymous calls and keys without organisation context: nothing is stored/);
  });
});
