import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';

const template = readFileSync(new URL('../../templates/factor-lookup.graphql', import.meta.url), 'utf8');
const templateHash = createHash('sha256').update(template).digest('hex');
const AD_HOC = '{ factorByRegion(type: GRID, regionCode: "DE") { value unit } }';

let t: TestApp;
const keys: Record<string, string> = {};
beforeAll(async () => {
  t = await createTestApp();
  for (const plan of ['free', 'pro', 'business', 'enterprise']) keys[plan] = (await t.createKey((await t.createOrg(plan)).id)).key;
});
afterAll(() => t.close());

const send = (key: string, body: object) =>
  t.json('/v1/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });

describe('GraphQL access by plan', () => {
  it.each(['free', 'pro'])('%s: runs an approved template sent as text or as its hash', async (plan) => {
    const byText = await send(keys[plan]!, { query: template, variables: { regionCode: 'DE' } });
    expect(byText.status).toBe(200);
    expect(byText.body.data.factorByRegion.unit).toBe('kg CO2e/kWh');
    // Whitespace and comments do not make another query.
    const reformatted = await send(keys[plan]!, {
      query: template.replace(/^#.*$/gm, '').replace(/\s+/g, ' '),
      variables: { regionCode: 'FR' },
    });
    expect(reformatted.status).toBe(200);
    const byHash = await send(keys[plan]!, {
      variables: { regionCode: 'DE' },
      extensions: { persistedQuery: { version: 1, sha256Hash: templateHash } },
    });
    expect(byHash.status).toBe(200);
    expect(byHash.body.data.factorByRegion).toEqual(byText.body.data.factorByRegion);
  });

  it.each(['free', 'pro'])('%s: refuses ad-hoc queries with OPERATION_NOT_APPROVED', async (plan) => {
    const res = await send(keys[plan]!, { query: AD_HOC });
    expect(res.status).toBe(403);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].extensions.code).toBe('OPERATION_NOT_APPROVED');
    expect(res.body.errors[0].message).toMatch(/approved query templates/);
    // An extra field on a template is a different query.
    const extended = await send(keys[plan]!, {
      query: template.replace('unit', 'unit\n    registry { display_name }'),
      variables: { regionCode: 'DE' },
    });
    expect(extended.status).toBe(403);
  });

  it.each(['business', 'enterprise'])('%s: runs any query', async (plan) => {
    const res = await send(keys[plan]!, { query: AD_HOC });
    expect(res.status).toBe(200);
    expect(res.body.data.factorByRegion.unit).toBe('kg CO2e/kWh');
  });

  it('answers an unknown persisted hash with PERSISTED_QUERY_NOT_FOUND', async () => {
    const res = await send(keys.free!, { extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(64) } } });
    expect(res.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  // Validation errors keep GraphQL-over-HTTP's status for application/json requests (200) and carry extensions.code.
  it('bounds every plan with graphql-armor (depth, aliases, tokens)', async () => {
    const aliases = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: factorByRegion(type: GRID, regionCode: "DE") { value }`).join(' ')} }`;
    const tooManyAliases = await send(keys.enterprise!, { query: aliases });
    expect(tooManyAliases.body.data).toBeUndefined();
    expect(tooManyAliases.body.errors[0].extensions.code).toBe('MAX_ALIASES_EXCEEDED');
    const deep = await send(keys.enterprise!, {
      query:
        '{ organization { id } assets(first: 1) { edges { node { product { id } active_calculation { emission_factor(type: GRID) { registry { display_name } } } } } } }',
    });
    expect(deep.status).toBe(200);
    const tokens = `{ ${'organization { id } '.repeat(700)} }`;
    const tooManyTokens = await send(keys.enterprise!, { query: tokens });
    expect(tooManyTokens.body.data).toBeUndefined();
    expect(tooManyTokens.body.errors[0].extensions.code).toBe('MAX_TOKENS_EXCEEDED');
    const unknownField = await send(keys.enterprise!, { query: '{ organisation { id } }' });
    expect(unknownField.body.data).toBeUndefined();
    expect(unknownField.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});
