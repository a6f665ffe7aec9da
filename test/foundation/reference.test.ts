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
    expect(res.body.servers).toEqual([{ url: '/v1' }]);
    expect(Object.keys(res.body.paths).sort()).toEqual([
      '/assets',
      '/assets/csv',
      '/assets/{id}',
      '/blancco/connection',
      '/blancco/sync',
      '/blancco/sync/runs',
      '/certificate',
      '/certificate/revoke',
      '/footprint',
      '/footprint/batch',
      '/identify',
      '/org/export/jobs',
      '/org/export/jobs/{id}',
      '/org/export/jobs/{id}/download',
      '/reference/categories',
      '/reference/countries',
      '/refurbishment',
      '/report',
      '/savings',
      '/search',
      '/webhooks/deliveries',
      '/webhooks/endpoints',
      '/webhooks/endpoints/{id}',
      '/webhooks/endpoints/{id}/rotate-secret',
    ]);
    expect(res.body.paths['/reference/countries'].get.responses['200']).toBeDefined();
    // The export's contract as generators read it: 202 on submit, integers for sizes.
    expect(Object.keys(res.body.paths['/org/export/jobs'].post.responses)).toContain('202');
    expect(res.body.components.schemas.ExportJob.properties.bytes).toMatchObject({ type: 'integer', format: 'int64' });
  });
});
