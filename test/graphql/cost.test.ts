import { readFile } from 'node:fs/promises';
import { buildSchema, getNamedType, isObjectType, parse, type GraphQLSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { schema } from '../../src/graphql/schema.ts';
import { MAX_COST, operationCost, PAGE_SIZE_ARGUMENTS, pageSizeOf, UNSIZED_LIST_LENGTH, type PageSize } from '../../src/graphql/cost.ts';
import { loadApprovedOperations } from '../../src/graphql/approved-operations.ts';
import { seedDemo } from '../../src/assets/seed-demo.ts';

const assetDetail = await readFile(new URL('../../templates/asset-detail.graphql', import.meta.url), 'utf8');
/** Every field the asset-detail template selects on its asset. */
const ASSET_FIELDS = assetDetail.slice(
  assetDetail.indexOf('{', assetDetail.indexOf('asset(')) + 1,
  assetDetail.lastIndexOf('}', assetDetail.lastIndexOf('}') - 1),
);
const assetPage = (args = 'first: 100') =>
  `assets(${args}) { totalCount pageInfo { endCursor hasNextPage } edges { cursor node { ${ASSET_FIELDS} } } }`;
// 1 connection + 1 pageInfo + 100 × (edge, asset, product, calculation, emission factor).
const PAGE_COST = 502;

describe('operationCost', () => {
  const cost = (query: string, variables?: Record<string, unknown>) => operationCost(schema, parse(query), undefined, variables);

  it('prices a connection by its page size: given, its default when absent, at most its maximum', () => {
    expect(cost(`{ ${assetPage()} }`)).toBe(PAGE_COST);
    expect(cost(`{ ${assetPage('first: 10')} }`)).toBe(2 + 10 * 5);
    expect(cost(`{ ${assetPage('last: 10')} }`)).toBe(2 + 10 * 5);
    expect(cost(`{ ${assetPage('first: 5000')} }`)).toBe(PAGE_COST);
    expect(cost(`{ ${assetPage('status: [in_use]')} }`)).toBe(2 + 20 * 5);
    expect(cost(`query($n: Int) { ${assetPage('first: $n')} }`, { n: 30 })).toBe(2 + 30 * 5);
    expect(cost(`query($n: Int = 40) { ${assetPage('first: $n')} }`)).toBe(2 + 40 * 5);
    // Page objects sized by limit; a list without a page size counts UNSIZED_LIST_LENGTH items.
    expect(cost('{ search(q: "latitude", limit: 3) { count results { name specs { ram_gb } } } }')).toBe(1 + 3 * 2);
    expect(cost('{ webhookEndpoints { id url } }')).toBe(UNSIZED_LIST_LENGTH);
  });

  it('counts fragments, costs nothing for scalars and introspection, and leaves uncoercible variables to execution', () => {
    expect(cost('query { ...F } fragment F on Query { organization { id name } }')).toBe(1);
    expect(cost('{ assets(first: 2) { edges { node { ... on Asset { product { id } } } } } }')).toBe(1 + 2 * 3);
    expect(cost('{ __typename __schema { types { name fields { name } } } }')).toBe(0);
    expect(cost(`query($n: Int) { ${assetPage('first: $n')} }`, { n: 'many' })).toBeUndefined();
  });

  it('multiplies nested lists', () => {
    // A connection of calculations on each asset, as GitHub-style schemas have (this one does not yet).
    const nested = withPageSizes(
      buildSchema(`
        type Query { assets(first: Int): AssetConnection! }
        type AssetConnection { edges: [AssetEdge!]! }
        type AssetEdge { node: Asset! }
        type Asset { id: ID! calculations(first: Int): CalculationConnection! }
        type CalculationConnection { edges: [CalculationEdge!]! }
        type CalculationEdge { node: Calculation! }
        type Calculation { id: ID! }
      `),
      { 'Query.assets': { default: 20, max: 100 }, 'Asset.calculations': { default: 20, max: 100 } },
    );
    const query = '{ assets(first: 100) { edges { node { id calculations(first: 100) { edges { node { id } } } } } } }';
    expect(operationCost(nested, parse(query))).toBe(1 + 100 * (2 + 1 + 100 * 2));
  });

  it('knows the page size of every paged field of the schema', () => {
    const fields = Object.values(schema.getTypeMap()).flatMap((type) =>
      isObjectType(type) && !type.name.startsWith('__')
        ? Object.values(type.getFields()).map((field) => ({ name: `${type.name}.${field.name}`, field }))
        : [],
    );
    const paged = fields.filter(({ field }) =>
      field.args.some((a) => (PAGE_SIZE_ARGUMENTS as readonly string[]).includes(a.name) && getNamedType(a.type).name === 'Int'),
    );
    expect(paged.filter(({ field }) => !pageSizeOf(field)).map((f) => f.name)).toEqual([]);
    expect(fields.filter(({ field }) => pageSizeOf(field) && !paged.some((p) => p.field === field)).map((f) => f.name)).toEqual([]);
  });
});

describe(`GraphQL cost limit on ${TEST_DATABASE_KIND}`, () => {
  let t: TestApp;
  const keys: Record<string, string> = {};
  const assetIds: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp();
    for (const plan of ['business', 'enterprise']) {
      const org = await t.createOrg(plan);
      keys[plan] = (await t.createKey(org.id)).key;
      await seedDemo(t.app.services.db.prisma, org.id, plan === 'enterprise' ? 100 : 1, undefined, { seed: 5 });
      assetIds[plan] = (await t.app.services.db.prisma.asset.findFirstOrThrow({ where: { org_id: org.id }, select: { id: true } })).id;
    }
  });
  afterAll(() => t?.close());

  const send = (plan: string, body: object, accept = 'application/json') =>
    t.json('/v1/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${keys[plan]}` },
      body: JSON.stringify(body),
    });

  it.each(['business', 'enterprise'])('%s: runs every approved template and reports its cost', async (plan) => {
    const assetId = assetIds[plan];
    const variables = { id: assetId, assetId, assetIds: [assetId], regionCode: 'DE' };
    for (const { name, text } of loadApprovedOperations()) {
      const res = await send(plan, { query: text, variables });
      expect(res.body.errors, name).toBeUndefined();
      expect(res.status, name).toBe(200);
      expect(res.body.extensions.cost, name).toEqual({ requested: expect.any(Number), limit: MAX_COST });
    }
  });

  it.each(['business', 'enterprise'])('%s: runs a page of 100 assets with every field of the asset-detail template', async (plan) => {
    const res = await send(plan, { query: `{ ${assetPage()} }` });
    expect(res.body.errors).toBeUndefined();
    expect(res.status).toBe(200);
    expect(res.body.extensions).toEqual({ cost: { requested: PAGE_COST, limit: MAX_COST } });
    if (plan === 'enterprise') {
      expect(res.body.data.assets.edges).toHaveLength(100);
      expect(res.body.data.assets.edges[0].node.active_calculation.emission_factor.unit).toBe('kg CO2e/kWh');
    }
  });

  it.each(['application/json', 'application/graphql-response+json'])(
    'refuses lists that multiply out before execution with 400 MAX_COST_EXCEEDED (Accept: %s)',
    async (accept) => {
      const pages = Array.from({ length: 4 }, (_, i) => `p${i}: ${assetPage()}`).join(' ');
      const res = await send('enterprise', { query: `{ ${pages} }` }, accept);
      expect(res.status).toBe(400);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors).toEqual([
        expect.objectContaining({
          message: 'Query cost limit exceeded',
          extensions: {
            code: 'MAX_COST_EXCEEDED',
            details: expect.stringMatching(`^query: costs ${4 * PAGE_COST}, more than the limit of ${MAX_COST};`),
          },
        }),
      ]);
      expect(res.body.extensions).toEqual({ cost: { requested: 4 * PAGE_COST, limit: MAX_COST } });
    },
  );

  it('prices with the request’s variables: the same text passes or is refused by its page size', async () => {
    const query = `query($n: Int) { ${['a', 'b', 'c', 'd'].map((alias) => `${alias}: ${assetPage('first: $n')}`).join(' ')} }`;
    const large = await send('enterprise', { query, variables: { n: 100 } });
    expect(large.status).toBe(400);
    expect(large.body.errors[0].extensions.code).toBe('MAX_COST_EXCEEDED');
    const small = await send('enterprise', { query, variables: { n: 10 } });
    expect(small.status).toBe(200);
    expect(small.body.extensions.cost.requested).toBe(4 * (2 + 10 * 5));
  });
});

/** The schema with `extensions.pageSize` set on the named fields (`Type.field`), as Pothos sets it from field options. */
function withPageSizes(target: GraphQLSchema, sizes: Record<string, PageSize>): GraphQLSchema {
  for (const [coordinate, pageSize] of Object.entries(sizes)) {
    const [typeName, fieldName] = coordinate.split('.') as [string, string];
    const type = target.getType(typeName);
    if (!isObjectType(type)) throw new Error(`${typeName} is not an object type`);
    Object.assign(type.getFields()[fieldName]!, { extensions: { pageSize } });
  }
  return target;
}
