import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiJson, openApiTypes, SDK_OPENAPI_JSON, SDK_OPENAPI_TYPES } from '../../scripts/sdk-openapi.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let served: { servers?: { url: string }[] };
beforeAll(async () => {
  t = await createTestApp();
  served = (await t.json('/v1/openapi.json')).body;
});
afterAll(() => t?.close());

describe("the SDK's generated REST files (run `npm run sdk:generate`)", () => {
  it('sdk/openapi.json is the served /v1/openapi.json', async () => {
    expect(await readFile(SDK_OPENAPI_JSON, 'utf8')).toBe(openApiJson(served));
  });

  it('sdk/src/openapi.ts is what openapi-typescript makes of it', async () => {
    const committed = await readFile(SDK_OPENAPI_TYPES, 'utf8');
    expect(committed).toBe(await openApiTypes(served));
    expect(committed).toContain('export const serverPath = "/v1";');
  });
});
