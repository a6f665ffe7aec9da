import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { seedDemo } from '../../src/assets/seed-demo.ts';

// GraphQL errors as a client of GraphQL over HTTP sees them, with either media type it may accept
// (docs/errors.md, "GraphQL errors over HTTP"): the status, the content type, and extensions.code and
// extensions.details on every error. Sent with fetch over a real HTTP connection, as a client does.

const JSON_TYPE = 'application/json';
const GRAPHQL_RESPONSE = 'application/graphql-response+json';

let t: TestApp;
let server: Server;
let url: string;
const keys: Record<string, string> = {};
beforeAll(async () => {
  t = await createTestApp();
  server = createServer((req, res) => t.app.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/graphql`;
  for (const plan of ['free', 'business']) {
    const org = await t.createOrg(plan);
    keys[plan] = (await t.createKey(org.id)).key;
    if (plan === 'business') await seedDemo(t.app.services.db.prisma, org.id, 3, undefined, { seed: 7 });
  }
  keys.noOrganisation = (await t.createKey((await t.createOrg('business')).id, { org_context: false })).key;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

type GraphQLBody = { data?: unknown; errors?: { message: string; extensions: { code: string; details: string } }[] };

async function post(key: string | undefined, body: object, accept?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (accept) headers.accept = accept;
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, type: res.headers.get('content-type')?.split(';')[0], body: (await res.json()) as GraphQLBody };
}

/** The one error of a refused request, after checking that every error names its code and details. */
function onlyError(body: GraphQLBody) {
  expect(body.errors).toHaveLength(1);
  for (const error of body.errors!) expect(error.extensions).toMatchObject({ code: expect.any(String), details: expect.any(String) });
  return body.errors![0]!;
}

const aliases = `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
const page = (alias: string) => `${alias}: assets(first: 100) { edges { node { id product { id } } } }`;

// [case, plan, body, status with Accept: application/json (or none), status with application/graphql-response+json, code, details]
const REFUSALS: [string, string, object, number, number, string, string | RegExp][] = [
  [
    'a syntax error',
    'business',
    { query: '{ organization {' },
    200,
    400,
    'GRAPHQL_PARSE_FAILED',
    'query: Expected Name, found <EOF>. (line 1, column 17)',
  ],
  [
    'an unknown field',
    'business',
    { query: '{ nope }' },
    200,
    400,
    'GRAPHQL_VALIDATION_FAILED',
    'query: Cannot query field "nope" on type "Query". (line 1, column 3)',
  ],
  ['an armor limit', 'business', { query: aliases }, 400, 400, 'MAX_ALIASES_EXCEEDED', 'query: Aliases limit of 15 exceeded, found 16.'],
  [
    'the cost limit',
    'business',
    { query: `{ ${['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map(page).join(' ')} }` },
    400,
    400,
    'MAX_COST_EXCEEDED',
    /^query: costs 2408, more than the limit of 2000/,
  ],
  [
    'an ad-hoc query of the free plan',
    'free',
    { query: '{ organization { id } }' },
    403,
    403,
    'OPERATION_NOT_APPROVED',
    /^query: not one of the approved query templates of the free plan/,
  ],
  [
    'an unknown persisted hash',
    'free',
    { extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(64) } } },
    400,
    400,
    'PERSISTED_QUERY_NOT_FOUND',
    'extensions.persistedQuery.sha256Hash: not the hash of an approved query template',
  ],
  [
    'a mistyped variable',
    'business',
    { query: 'query($n: Int) { assets(first: $n) { totalCount } }', variables: { n: 'x' } },
    400,
    400,
    'INVALID_PARAMETER',
    "n: must be an integer, got 'x'",
  ],
  [
    'an argument over its length (validation plugin)',
    'business',
    { query: `{ asset(id: "${'x'.repeat(65)}") { id } }` },
    400,
    400,
    'INVALID_PARAMETER',
    'id: must be at most 64 characters, got 65',
  ],
  [
    'a resolver refusal',
    'business',
    { query: '{ asset(id: "x") { id } }' },
    400,
    400,
    'INVALID_PARAMETER',
    "id: must be an asset id (UUID), got 'x'",
  ],
  [
    'a field the key may not call (scope-auth)',
    'noOrganisation',
    { query: '{ asset(id: "x") { id } }' },
    403,
    403,
    'NO_ORGANIZATION_CONTEXT',
    'This API key has no organisation context',
  ],
  [
    'an empty page (first: 0)',
    'business',
    { query: '{ assets(first: 0) { totalCount pageInfo { hasNextPage endCursor } } }' },
    400,
    400,
    'INVALID_PARAMETER',
    'first: must be between 1 and 100, got 0 (totalCount is answered with any page)',
  ],
  [
    'an empty page (last: 0)',
    'business',
    { query: '{ assets(last: 0) { totalCount } }' },
    400,
    400,
    'INVALID_PARAMETER',
    'last: must be between 1 and 100, got 0 (totalCount is answered with any page)',
  ],
];

describe(`GraphQL errors over HTTP on ${TEST_DATABASE_KIND}`, () => {
  it.each(REFUSALS)('%s: code and details, status by Accept', async (_case, plan, body, jsonStatus, responseStatus, code, details) => {
    for (const [accept, status, type] of [
      [JSON_TYPE, jsonStatus, JSON_TYPE],
      [undefined, jsonStatus, JSON_TYPE],
      [GRAPHQL_RESPONSE, responseStatus, GRAPHQL_RESPONSE],
    ] as const) {
      const res = await post(keys[plan], body, accept);
      expect({ accept, status: res.status, type: res.type }).toEqual({ accept, status, type });
      const error = onlyError(res.body);
      expect(error.extensions.code).toBe(code);
      if (typeof details === 'string') expect(error.extensions.details).toBe(details);
      else expect(error.extensions.details).toMatch(details);
    }
  });

  it('refuses a request without a key before GraphQL runs: 401 application/json whatever the Accept header', async () => {
    for (const accept of [JSON_TYPE, GRAPHQL_RESPONSE]) {
      const res = await post(undefined, { query: '{ __typename }' }, accept);
      expect({ status: res.status, type: res.type }).toEqual({ status: 401, type: JSON_TYPE });
      expect(onlyError(res.body).extensions.code).toBe('MISSING_API_KEY');
    }
  });

  it('pages of one asset always carry the cursor to page on while there is a next page', async () => {
    let after: string | null = null;
    const seen: string[] = [];
    for (;;) {
      const res = await post(
        keys.business,
        {
          query:
            'query($after: String) { assets(first: 1, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { node { id } } } }',
          variables: { after },
        },
        GRAPHQL_RESPONSE,
      );
      expect(res.status).toBe(200);
      const assets = (
        res.body.data as {
          assets: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; edges: { node: { id: string } }[] };
        }
      ).assets;
      seen.push(...assets.edges.map((e) => e.node.id));
      if (!assets.pageInfo.hasNextPage) {
        expect(seen).toHaveLength(assets.totalCount);
        break;
      }
      expect(assets.pageInfo.endCursor).toEqual(expect.any(String));
      after = assets.pageInfo.endCursor;
    }
    expect(seen.length).toBeGreaterThan(1);
  });
});
