import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('GET /v1/reference/countries', () => {
  it('lists every country and region with its grid factor, cacheable for a week', async () => {
    const res = await t.json('/v1/reference/countries');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=604800');
    expect(res.body.total).toBe(res.body.countries.length);
    const codes = res.body.countries.map((c: any) => c.code);
    expect(codes.filter((c: string) => /^[A-Z]{2}$/.test(c)).length).toBeGreaterThanOrEqual(212);
    expect(codes.filter((c: string) => /^[A-Z]{2}-[A-Z0-9]{1,3}$/.test(c)).length).toBeGreaterThanOrEqual(54);
    const de = res.body.countries.find((c: any) => c.code === 'DE');
    expect(de).toMatchObject({ code: 'DE', kind: 'country', parent_code: null });
    expect(de.grid_factor).toBeGreaterThan(0.2);
    expect(de.grid_factor).toBeLessThan(0.6);
    const ca = res.body.countries.find((c: any) => c.code === 'US-CA');
    expect(ca).toMatchObject({ kind: 'subdivision', parent_code: 'US' });
    // Every grid_factor is lifecycle CO2e: eGRID's direct CO2e rate is converted, and the published figure is kept.
    expect(ca).toMatchObject({
      grid_factor: 0.241221,
      grid_factor_published_value: 0.207512,
      grid_factor_published_basis: 'direct_co2e',
      grid_factor_uplift: 1.162442,
    });
    const bj = res.body.countries.find((c: any) => c.code === 'CN-BJ');
    expect(bj).toMatchObject({
      grid_factor: 0.560496,
      grid_factor_published_value: 0.558,
      grid_factor_published_basis: 'direct_co2',
      grid_factor_uplift: 1.004473,
    });
    expect(de).toMatchObject({
      grid_factor_published_value: de.grid_factor,
      grid_factor_published_basis: 'lifecycle_co2e',
      grid_factor_uplift: null,
    });
    for (const c of res.body.countries) {
      expect(typeof c.grid_factor).toBe('number');
      expect(c.grid_factor).toBeGreaterThanOrEqual(0);
      expect(c.grid_factor).toBeLessThan(1.5);
    }
  });
});

describe('GET /v1/reference/categories', () => {
  it('lists the 48 categories with lifetime and fallback energy, cacheable for a week', async () => {
    const res = await t.json('/v1/reference/categories');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=604800');
    expect(res.body.total).toBe(48);
    expect(res.body.categories).toHaveLength(48);
    const laptop = res.body.categories.find((c: any) => c.category === 'laptop');
    expect(laptop.lifetime_years).toBeGreaterThan(2);
    expect(laptop.fallback_kwh_per_year).toBeGreaterThan(5);
    for (const id of [
      'laptop',
      'desktop',
      'all_in_one',
      'workstation',
      'thin_client',
      'monitor',
      'tablet',
      'smartphone',
      'server',
      'printer',
      'network_switch',
      'router',
      'access_point',
      'nas',
      'external_hdd',
      'projector',
      'docking_station',
      'ip_phone',
      'game_console',
    ]) {
      expect(
        res.body.categories.some((c: any) => c.category === id),
        id,
      ).toBe(true);
    }
  });

  it('does not mark error responses cacheable', async () => {
    const res = await t.request('/v1/reference/categories', { headers: { authorization: 'Bearer nonsense' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('cache-control')).toBeNull();
  });
});

describe('OpenAPI', () => {
  it('describes the REST surface generated from the schema', async () => {
    const res = await t.json('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    // Paths are relative to the origin: the routes outside /v1 a client calls are documented too.
    expect(res.body.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect(Object.keys(res.body.paths).sort()).toEqual([
      '/.well-known/jwks.json',
      '/files/exports/{folder}/{name}',
      '/v1/assets',
      '/v1/assets/csv',
      '/v1/assets/{id}',
      '/v1/blancco/connection',
      '/v1/blancco/sync',
      '/v1/blancco/sync/runs',
      '/v1/certificate',
      '/v1/certificate/revoke',
      '/v1/footprint',
      '/v1/footprint/batch',
      '/v1/identify',
      '/v1/inventory',
      '/v1/inventory/instruments',
      '/v1/inventory/instruments/{id}',
      '/v1/org/export/jobs',
      '/v1/org/export/jobs/{id}',
      '/v1/org/export/jobs/{id}/download',
      '/v1/org/settings',
      '/v1/reference/categories',
      '/v1/reference/countries',
      '/v1/refurbishment',
      '/v1/report',
      '/v1/savings',
      '/v1/search',
      '/v1/webhooks/deliveries',
      '/v1/webhooks/endpoints',
      '/v1/webhooks/endpoints/{id}',
      '/v1/webhooks/endpoints/{id}/rotate-secret',
      '/verify/{number}',
    ]);
    expect(res.body.paths['/v1/reference/countries'].get.responses['200']).toBeDefined();
    // The export's contract as generators read it: 202 on submit, integers for sizes.
    expect(Object.keys(res.body.paths['/v1/org/export/jobs'].post.responses)).toContain('202');
    expect(res.body.components.schemas.ExportJob.properties.bytes).toMatchObject({ type: ['integer', 'null'], format: 'int64' });
  });
});
