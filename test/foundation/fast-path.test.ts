import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, qs, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app.ts';
import { schema } from '../../src/graphql/schema.ts';
import type { RestRoute } from '../../src/graphql/builder.ts';
import { vintageChoiceHoldsUntil } from '../../src/factors/lookup.ts';

// One query string per fast route (RestRoute.fastPath): a route declared fast without one here fails the walk below.
const SAMPLES: Record<string, string> = {
  '/v1/footprint': `/v1/footprint?${qs({ brand: 'Dell', model: 'Latitude 5440', country: 'FR', ram_gb: 16 })}`,
  '/v1/reference/categories': '/v1/reference/categories',
  '/v1/reference/countries': '/v1/reference/countries',
  '/v1/search': `/v1/search?${qs({ q: 'thinkpad t14', limit: 5 })}`,
};

let t: TestApp;
let base: string;
let keyA: string;
let keyA2: string;
let keyB: string;
let testKeyA: string;
beforeAll(async () => {
  t = await createTestApp();
  const [a, b] = [await t.createOrg('enterprise'), await t.createOrg('pro')];
  keyA = (await t.createKey(a.id)).key;
  keyA2 = (await t.createKey(a.id)).key;
  keyB = (await t.createKey(b.id)).key;
  testKeyA = (await t.createKey(a.id, { environment: 'test' })).key;
  base = await t.listen();
});
afterAll(() => t.close());

const get = async (path: string, key?: string) => {
  const res = await fetch(`${base}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

async function fastAnswers(route: string, answer: 'memory' | 'resolver'): Promise<number> {
  const text = await (await t.request('/metrics', { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).text();
  const line = text.split('\n').find((l) => l.startsWith(`lcf_fast_path_answers_total{route="${route}",answer="${answer}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('the REST fast path (repeated GETs answered on node:http)', () => {
  it('has a sample for every route that declares fastPath', () => {
    const declared = Object.values(schema.getQueryType()!.getFields())
      .map((f) => f.extensions.rest as RestRoute | undefined)
      .filter((r) => r?.fastPath)
      .map((r) => `/v1${r!.path}`);
    expect(declared.sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  for (const [route, path] of Object.entries(SAMPLES)) {
    it(`${route}: the repeat is the fast path's, then memory's, byte for byte the pipeline's answer with its headers`, async () => {
      const first = await get(path, keyA); // the pipeline (SOFA), which teaches the fast path the query
      expect(first.status, first.text).toBe(200);
      const [resolvedBefore, memoryBefore] = [await fastAnswers(route, 'resolver'), await fastAnswers(route, 'memory')];
      const second = await get(path, keyA);
      const third = await get(path, keyA);
      expect(await fastAnswers(route, 'resolver')).toBe(resolvedBefore + 1);
      expect(await fastAnswers(route, 'memory')).toBe(memoryBefore + 1);
      for (const repeat of [second, third]) {
        expect(repeat.status).toBe(200);
        expect(repeat.text).toBe(first.text);
        for (const name of ['content-type', 'content-length', 'cache-control', 'vary', 'x-ratelimit-limit', 'x-ratelimit-plan']) {
          expect(repeat.headers.get(name), name).toBe(first.headers.get(name));
        }
        expect(repeat.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      }
      // Each repeat is counted against the quota, as the pipeline counts it.
      expect(Number(third.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-remaining')) - 2);
    });
  }

  it('gives each organisation its own footprint answer (its calculation), shared by the keys of that organisation', async () => {
    const path = `/v1/footprint?${qs({ brand: 'HP', model: 'EliteBook 840 G10', country: 'DE' })}`;
    const a = JSON.parse((await get(path, keyA)).text);
    const a2 = JSON.parse((await get(path, keyA2)).text); // fast path, resolved for organisation A
    const b = JSON.parse((await get(path, keyB)).text); // fast path, resolved for organisation B
    const sandbox = JSON.parse((await get(path, testKeyA)).text); // fast path, A's sandbox
    const anonymous = JSON.parse((await get(path)).text);
    const bAgain = JSON.parse((await get(path, keyB)).text); // from memory
    expect(a2).toEqual(a);
    expect(b.calculation_id).not.toBe(a.calculation_id);
    expect(bAgain).toEqual(b);
    expect(sandbox.calculation_id).not.toBe(a.calculation_id);
    expect(sandbox.calculation_id).not.toBe(b.calculation_id);
    expect(anonymous.calculation_id).toBeNull();
    for (const answer of [a2, b, sandbox, anonymous]) expect(answer.total_kg_co2e).toBe(a.total_kg_co2e);
    await t.app.services.calculations.flush();
    const ids = [a.calculation_id, b.calculation_id, sandbox.calculation_id];
    expect(await t.app.services.db.prisma.calculation.count({ where: { id: { in: ids } } })).toBe(3);
  });

  it('leaves refusals to the pipeline: a bad key is 401 there, and spends nothing', async () => {
    const path = SAMPLES['/v1/reference/categories']!;
    expect((await get(path, keyA)).status).toBe(200);
    const bad = await get(path, 'svc_live_notakeyatall0000000000000000');
    expect(bad.status).toBe(401);
    expect(JSON.parse(bad.text).code).toBe('INVALID_API_KEY');
  });

  it('reuses an answer no longer than the grid factor vintage chosen for it holds: until the next UTC day', () => {
    expect(vintageChoiceHoldsUntil(new Date('2026-12-31T23:59:59.999Z'))).toBe(Date.parse('2027-01-01T00:00:00Z'));
    expect(vintageChoiceHoldsUntil(new Date('2027-01-01T00:00:00Z'))).toBe(Date.parse('2027-01-02T00:00:00Z'));
  });
});

describe('GET /healthz on node:http', () => {
  it('answers as the pipeline answers its other forms: the same body, content type and request id rule', async () => {
    const plain = await fetch(`${base}/healthz`, { headers: { 'x-request-id': 'probe-7' } });
    const piped = await fetch(`${base}/healthz?from=pipeline`, { headers: { 'x-request-id': 'probe-8' } });
    expect(plain.status).toBe(200);
    expect(await plain.text()).toBe(await piped.text());
    expect(plain.headers.get('content-type')).toBe(piped.headers.get('content-type'));
    expect(plain.headers.get('x-request-id')).toBe('probe-7');
    const head = await fetch(`${base}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});
