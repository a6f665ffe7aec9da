import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generate } from '@graphql-codegen/cli';
import { Client, cacheExchange, fetchExchange } from '@urql/core';
import { persistedExchange } from '@urql/exchange-persisted';
import { parse, print } from 'graphql';
import { GraphQLClient } from 'graphql-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { seedDemo } from '../../src/assets/seed-demo.ts';
import { loadApprovedOperations } from '../../src/graphql/approved-operations.ts';

// The approved templates as standard GraphQL clients send them, with a free-plan key over HTTP:
// graphql-codegen's client preset (persisted documents by id), urql's default exchanges (which add
// __typename everywhere), urql's APQ exchange, graphql-request (docs/api.md, "GraphQL").

const REPO = new URL('../../', import.meta.url).pathname;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const templates = loadApprovedOperations();
const template = (name: string) => templates.find((op) => op.name === name)!.text;

let t: TestApp;
let url: string;
let key: string;
let variables: Record<string, Record<string, unknown>>;
let outDir: string;
let manifest: Record<string, string>;
beforeAll(async () => {
  t = await createTestApp();
  const org = await t.createOrg('free', 'Free Org');
  key = (await t.createKey(org.id)).key;
  await seedDemo(t.app.services.db.prisma, org.id, 5, undefined, { seed: 11 });
  const ids = (
    await t.app.services.db.prisma.asset.findMany({ where: { org_id: org.id }, select: { id: true }, orderBy: { id: 'asc' } })
  ).map((a) => a.id);
  // By operation name: each template's variables.
  variables = {
    AssetDetail: { id: ids[0] },
    FactorLookup: { regionCode: 'DE' },
    MethodologyAudit: { assetId: ids[1] },
    OrganizationOverview: { first: 3 },
    RefurbishmentSimulation: { assetIds: ids.slice(0, 2) },
  };
  url = `${await t.listen()}/v1/graphql`;
  // What a client project generates from the printed schema and the templates (as `npm run codegen` does for sdk/graphql/).
  outDir = await mkdtemp(path.join(tmpdir(), 'lcf-client-preset-'));
  await generate(
    {
      cwd: REPO,
      silent: true,
      schema: 'schema/schema.graphql',
      documents: 'templates/*.graphql',
      generates: { [`${outDir}/`]: { preset: 'client', presetConfig: { persistedDocuments: true } } },
    },
    true,
  );
  manifest = JSON.parse(await readFile(path.join(outDir, 'persisted-documents.json'), 'utf8'));
}, 60_000);
afterAll(async () => {
  await t?.close();
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

const headers = () => ({ authorization: `Bearer ${key}` });
const operationOf = (text: string) => /^(query|mutation) (\w+)/m.exec(text)!.slice(1) as ['query' | 'mutation', string];

async function post(body: object) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function get(params: Record<string, string>) {
  const res = await fetch(`${url}?${new URLSearchParams(params)}`, { headers: { ...headers(), accept: 'application/json' } });
  return { status: res.status, body: (await res.json()) as any };
}

/** The answer to a template sent as its text: what every other way of sending it must answer. */
const byText = async (text: string) => {
  const res = await post({ query: text, variables: variables[operationOf(text)[1]] });
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
};

/** `data` without the __typename fields a client asked for. */
const withoutTypename = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withoutTypename)
    : value && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([k]) => k !== '__typename')
            .map(([k, v]) => [k, withoutTypename(v)]),
        )
      : value;

describe(`persisted templates and standard clients, free-plan key on ${TEST_DATABASE_KIND}`, () => {
  it("graphql-codegen's client preset: every document of persisted-documents.json by its documentId (POST, and GET for queries)", async () => {
    expect(Object.keys(manifest)).toHaveLength(templates.length);
    // The ids the SDK ships are the ones a client project generates.
    expect(JSON.parse(await readFile(path.join(REPO, 'sdk/graphql/persisted-documents.json'), 'utf8'))).toEqual(manifest);
    for (const [documentId, document] of Object.entries(manifest)) {
      const [kind, name] = operationOf(document);
      expect(documentId).toMatch(/^sha256:[0-9a-f]{64}$/);
      const res = await post({ documentId, variables: variables[name] });
      expect(res.body.errors, name).toBeUndefined();
      expect(res.status, name).toBe(200);
      expect(res.body.data, name).toEqual(await byText(templates.find((op) => operationOf(op.text)[1] === name)!.text));
      if (kind === 'query') {
        const viaGet = await get({ documentId, variables: JSON.stringify(variables[name]) });
        expect(viaGet.status, name).toBe(200);
        expect(viaGet.body.data, name).toEqual(res.body.data);
      }
    }
  });

  it('documentId also takes the SHA-256 of the template file and of its printed document, with or without sha256:', async () => {
    const text = template('factor-lookup');
    const expected = await byText(text);
    for (const documentId of [sha256(text), `sha256:${sha256(text)}`, sha256(print(parse(text)))]) {
      const res = await post({ documentId, variables: variables.FactorLookup });
      expect(res.status, documentId).toBe(200);
      expect(res.body.data).toEqual(expected);
    }
  });

  it('an unknown documentId is PERSISTED_QUERY_NOT_FOUND naming the field, by POST and GET', async () => {
    for (const res of [await post({ documentId: `sha256:${'f'.repeat(64)}` }), await get({ documentId: 'nope' })]) {
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions).toMatchObject({
        code: 'PERSISTED_QUERY_NOT_FOUND',
        details: 'documentId: not the hash of an approved query template',
      });
    }
  });

  it("urql's default exchanges (cacheExchange adds __typename to every selection) run every template", async () => {
    const client = new Client({ url, exchanges: [cacheExchange, fetchExchange], fetchOptions: { headers: headers() } });
    for (const { name, text } of templates) {
      const [kind, operation] = operationOf(text);
      const result =
        kind === 'query'
          ? await client.query(text, variables[operation]!).toPromise()
          : await client.mutation(text, variables[operation]!).toPromise();
      expect(result.error, name).toBeUndefined();
      // urql asked for __typename: the answer has it, and is otherwise the template's.
      expect(JSON.stringify(result.data), name).toContain('"__typename"');
      expect(withoutTypename(result.data), name).toEqual(await byText(text));
    }
  });

  it("urql's persisted exchange (APQ): a miss, then the text, remembered for the next request by hash alone", async () => {
    const sent: string[] = [];
    const client = new Client({
      url,
      requestPolicy: 'network-only',
      exchanges: [cacheExchange, persistedExchange(), fetchExchange],
      fetchOptions: { headers: headers() },
      fetch: (input, init) => {
        sent.push(
          init?.body
            ? `POST ${JSON.parse(init.body as string).query ? 'text' : 'hash'}`
            : `GET ${new URL(String(input)).searchParams.has('query') ? 'text' : 'hash'}`,
        );
        return fetch(input, init);
      },
    });
    const text = template('asset-detail');
    const expected = await byText(text);
    const first = await client.query(text, variables.AssetDetail!).toPromise();
    expect(first.error).toBeUndefined();
    expect(withoutTypename(first.data)).toEqual(expected);
    expect(sent).toEqual(['GET hash', 'GET text']);
    const again = await client.query(text, variables.AssetDetail!).toPromise();
    expect(withoutTypename(again.data)).toEqual(expected);
    expect(sent).toEqual(['GET hash', 'GET text', 'GET hash']);
  });

  it('APQ: the hash of the printed template is known at once; a registration whose hash is not its text is answered, not remembered', async () => {
    const text = template('factor-lookup');
    const expected = await byText(text);
    const byHash = await post({
      variables: variables.FactorLookup,
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256(print(parse(text))) } },
    });
    expect(byHash.status).toBe(200);
    expect(byHash.body.data).toEqual(expected);
    const wrongHash = 'a'.repeat(64);
    const register = await post({
      query: text,
      variables: variables.FactorLookup,
      extensions: { persistedQuery: { version: 1, sha256Hash: wrongHash } },
    });
    expect(register.status).toBe(200);
    const later = await post({ variables: variables.FactorLookup, extensions: { persistedQuery: { version: 1, sha256Hash: wrongHash } } });
    expect(later.status).toBe(400);
    expect(later.body.errors[0].message).toBe('PersistedQueryNotFound');
  });

  it('only plain __typename is ignored: a non-template query, an aliased __typename or an extra field is OPERATION_NOT_APPROVED', async () => {
    const text = template('factor-lookup');
    const queries = [
      '{ factorByRegion(type: GRID, regionCode: "DE") { __typename value unit } }',
      text.replace('value', 'kind: __typename value'),
      text.replace('value', '__typename value unit'),
    ];
    for (const query of queries) {
      const res = await post({ query, variables: variables.FactorLookup });
      expect(res.status, query).toBe(403);
      expect(res.body.errors[0].extensions.code, query).toBe('OPERATION_NOT_APPROVED');
    }
    const client = new Client({ url, exchanges: [cacheExchange, fetchExchange], fetchOptions: { headers: headers() } });
    const refused = await client.query(queries[0]!, {}).toPromise();
    expect(refused.error?.graphQLErrors[0]?.extensions.code).toBe('OPERATION_NOT_APPROVED');
  });

  it('graphql-request sends a template as text', async () => {
    const client = new GraphQLClient(url, { headers: headers() });
    const text = template('methodology-audit');
    expect(await client.request(text, variables.MethodologyAudit)).toEqual(await byText(text));
  });
});
