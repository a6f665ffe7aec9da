// Issue 40 point 3: a server asked by name without its configuration is estimated with the memory and
// storage manufacturers' footprint sheets assume (16 GB, 2000 GB HDD), not the catalogue's typical
// deployment (PowerEdge R740: 64 GB, 3840 GB SSD), and the answer says which one it used.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, qs, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const footprint = async (params: Record<string, string | number>) => {
  const res = await t.json(`/v1/footprint?${qs({ brand: 'Dell', model: 'PowerEdge R740', country: 'DE', ...params })}`);
  expect(res.status).toBe(200);
  return res.body;
};

describe(`footprint of a server asked by name on ${TEST_DATABASE_KIND}`, () => {
  it("uses the sheets' configuration and names the catalogue's it did not use", async () => {
    const byName = await footprint({});
    expect(byName.methodology.data_sources).toContain(
      "ram_gb, storage_gb, storage_type: the configuration manufacturers' footprint sheets of server products assume (16 GB, 2000 GB hdd: medians of 32 sheets), not the catalogue's typical configuration of this model (ram_gb 64, storage_gb 3840, storage_type ssd); state them for your unit",
    );
    expect(byName.methodology.data_sources.join('\n')).not.toMatch(/catalogue [^:]*ram_gb[^:]*: configuration/);

    // The catalogue's configuration stated by the caller: a larger footprint, and nothing said of the sheets.
    const deployed = await footprint({ ram_gb: 64, storage_gb: 3840, storage_type: 'ssd' });
    expect(deployed.total_kg_co2e).toBeGreaterThan(byName.total_kg_co2e);
    expect(deployed.methodology.data_sources.join('\n')).not.toContain('footprint sheets of server products assume');
    // One field stated: the others still the sheets'.
    const memory = await footprint({ ram_gb: 64 });
    expect(memory.methodology.data_sources).toContain(
      "storage_gb, storage_type: the configuration manufacturers' footprint sheets of server products assume (16 GB, 2000 GB hdd: medians of 32 sheets), not the catalogue's typical configuration of this model (storage_gb 3840, storage_type ssd); state them for your unit",
    );
  });

  it("takes a server's release year as the date its manufacturer's sheet would carry, and says so", async () => {
    const byName = await footprint({});
    expect(byName.methodology.data_sources).toContain(
      "release_year 2017 taken as 2019 by the engine: manufacturers' footprint sheets of server products, which the engine is fitted on, are dated a median 2 years after the model's release (docs/methodology.md section 3.4)",
    );
    // A year the caller states is a release year too; the answer keeps saying the stated one.
    const unit = { brand: 'Dell', model: 'Custom Rack 2U', category: 'server', ram_gb: 32, storage_gb: 2400, storage_type: 'hdd' };
    const stated = await t.json(`/v1/footprint?${qs({ ...unit, country: 'DE', release_year: 2019 })}`);
    expect(stated.status).toBe(200);
    expect(stated.body.methodology.data_sources).toEqual(
      expect.arrayContaining([
        'release_year 2019 stated by the caller',
        expect.stringMatching(/^release_year 2019 taken as 2021 by the engine/),
      ]),
    );
    // Not for other categories: a monitor's year is its sheet's.
    const monitor = await t.json(`/v1/footprint?${qs({ brand: 'Dell', model: 'P2419H', country: 'DE' })}`);
    expect(monitor.body.methodology.data_sources.join('\n')).not.toContain('taken as');
  });
});
