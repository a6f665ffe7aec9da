import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { startFakeBlancco, type FakeBlancco } from '../support/fake-blancco.ts';
import { blanccoReport } from './fixtures.ts';

// Erasure sync resolves devices as every footprint does (docs/catalogue.md "Brands", "Category given and device found").
let t: TestApp;
let fake: FakeBlancco;

/** A manufacturer written in a script the catalogue does not use, with a number a catalogue device has. */
const unreadableBrand = blanccoReport({
  uuid: '7a1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7d01',
  manufacturer: '日本',
  model: 'ノート 13',
  serial: 'JP-13',
  chassis: 'Notebook',
});
/** A firmware chassis (notebook) of another kind than the device its model names (a smartphone). */
const otherKind = blanccoReport({
  uuid: '7a1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7d02',
  manufacturer: 'Apple Inc.',
  model: 'iPhone XR',
  serial: 'AP-XR',
  chassis: 'Notebook',
});

beforeAll(async () => {
  t = await createTestApp({ ERASURE_ALLOW_PRIVATE_URLS: 'true' });
  fake = await startFakeBlancco({ reports: [unreadableBrand, otherKind], pageSize: 5 });
});
afterAll(async () => {
  await fake?.close();
  await t?.close();
});

describe(`erasure sync on ${TEST_DATABASE_KIND}`, () => {
  it("never takes another brand's device, and says when the chassis and the named device disagree", async () => {
    const org = await t.createOrg('business', 'Erasure brands');
    const { key } = await t.createKey(org.id);
    const call = (method: string, route: string, body: unknown) =>
      t.json(`/v1${route}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      });
    expect((await call('PUT', '/blancco/connection', { base_url: fake.url, api_key: fake.apiKey })).status).toBe(200);
    const res = await call('POST', '/blancco/sync', {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ synced: 2, errors: 0 });
    const prisma = t.app.services.db.prisma;
    const calculation = async (serial: string) => {
      const asset = await prisma.asset.findFirstOrThrow({
        where: { org_id: org.id, serial_number: serial },
        include: { active_calculation: true },
      });
      return { asset, result: asset.active_calculation!.result as any };
    };
    const jp = await calculation('JP-13');
    expect(jp.asset).toMatchObject({ brand: '日本', category: 'laptop', product_id: null });
    expect(jp.result.methodology.match.status).toBe('none');
    expect(jp.result.methodology.data_sources).toEqual(
      expect.arrayContaining([expect.stringMatching(/^brand '日本' has no Latin letters or digits/)]),
    );
    const xr = await calculation('AP-XR');
    expect(xr.asset).toMatchObject({ brand: 'Apple', category: 'laptop', product_id: null });
    expect(xr.result.methodology.warnings).toEqual([
      "category 'laptop' given, but the model name matched Apple iPhone XR (Apple), a smartphone: that device is not used and the estimate is for a laptop; send category 'smartphone' or none to use it",
    ]);
  });
});
