import { readFile, readdir } from 'node:fs/promises';
import { Kind, parse, validate, type OperationDefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { schema } from '../../src/graphql/schema.ts';
import { seedDemo } from '../../src/assets/seed-demo.ts';

const dir = new URL('../../templates/', import.meta.url);
const template = (name: string) => readFile(new URL(`${name}.graphql`, dir), 'utf8');
const NAMES = ['asset-detail', 'factor-lookup', 'methodology-audit', 'organization-overview', 'refurbishment-simulation'];

let t: TestApp;
let key: string;
let assetIds: string[];

beforeAll(async () => {
  t = await createTestApp();
  const org = await t.createOrg('free', 'Free Org');
  key = (await t.createKey(org.id)).key;
  await seedDemo(t.app.services.db.prisma, org.id, 150, undefined, { seed: 3 });
  assetIds = (
    await t.app.services.db.prisma.asset.findMany({ where: { org_id: org.id }, select: { id: true }, orderBy: { id: 'asc' } })
  ).map((a) => a.id);
});
afterAll(() => t?.close());

describe('templates/*.graphql', () => {
  it('are the five approved templates, each one named operation with variables, valid against the schema', async () => {
    expect((await readdir(dir)).filter((f) => f.endsWith('.graphql')).sort()).toEqual(NAMES.map((n) => `${n}.graphql`));
    for (const name of NAMES) {
      const doc = parse(await template(name));
      expect(validate(schema, doc), name).toEqual([]);
      const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
      expect(ops, name).toHaveLength(1);
      const expected = name
        .split('-')
        .map((w) => w[0]!.toUpperCase() + w.slice(1))
        .join('');
      expect(ops[0]!.name?.value).toBe(expected);
      expect(ops[0]!.variableDefinitions?.length, name).toBeGreaterThan(0);
    }
  });
});

describe(`approved templates on a free-plan key on ${TEST_DATABASE_KIND}`, () => {
  const run = async (name: string, variables: Record<string, unknown>) => {
    const res = await t.graphql(await template(name), variables, key);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    expect(res.status).toBe(200);
    return res.body.data;
  };

  it('asset-detail', async () => {
    const { asset } = await run('asset-detail', { id: assetIds[0] });
    expect(asset.id).toBe(assetIds[0]);
    expect(asset.total_kg_co2e).toBeGreaterThan(0);
    expect(asset.active_calculation.total_kg_co2e).toBe(asset.total_kg_co2e);
    expect(asset.active_calculation.emission_factor.unit).toBe('kg CO2e/kWh');
  });

  it('methodology-audit', async () => {
    const { asset } = await run('methodology-audit', { assetId: assetIds[1] });
    const c = asset.active_calculation;
    expect(c.methodology_card.engine_version).toMatch(/^4\./);
    expect(c.boundary.length).toBe(4);
    expect(c.emission_factor.registry.display_name).toMatch(/\w/);
    expect(c.emission_factor.source_version).toMatch(/\w/);
  });

  it('organization-overview, paging with the after cursor', async () => {
    const first = await run('organization-overview', {});
    expect(first.organization).toMatchObject({ plan: 'free', asset_count: 150 });
    expect(first.organization.total_kg_co2e).toBeGreaterThan(0);
    expect(first.assets.edges).toHaveLength(100);
    expect(first.assets.pageInfo.hasNextPage).toBe(true);
    const second = await run('organization-overview', { after: first.assets.pageInfo.endCursor });
    expect(second.assets.edges).toHaveLength(50);
    expect(second.assets.pageInfo.hasNextPage).toBe(false);
    const filtered = await run('organization-overview', { first: 10, status: ['in_use'] });
    for (const e of filtered.assets.edges) expect(e.node.status).toBe('in_use');
  });

  it('factor-lookup', async () => {
    const { factorByRegion } = await run('factor-lookup', { regionCode: 'DE', atDate: '2022-06-01T00:00:00Z' });
    expect(factorByRegion).toMatchObject({ unit: 'kg CO2e/kWh', valid_from: '2022-01-01', valid_to: '2022-12-31' });
    expect(factorByRegion.registry.current_version).toMatch(/\w/);
  });

  it('refurbishment-simulation', async () => {
    const { simulateRefurbish } = await run('refurbishment-simulation', { assetIds: assetIds.slice(0, 20) });
    expect(simulateRefurbish.affected_assets_count).toBe(20);
    expect(simulateRefurbish.current_quarterly_co2e).toBeGreaterThan(0);
    expect(simulateRefurbish.delta_kg_co2e).toBeCloseTo(
      simulateRefurbish.scenario_quarterly_co2e - simulateRefurbish.current_quarterly_co2e,
      1,
    );
  });
});
