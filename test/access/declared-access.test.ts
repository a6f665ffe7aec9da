import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { schema } from '../../src/graphql/schema.ts';
import { fieldAccess, type RestRoute } from '../../src/graphql/builder.ts';
import type { Access } from '../../src/auth/access.ts';
import { PLAN_RULES } from '../../src/auth/plan-rules.ts';
import type { Plan } from '../../src/auth/caller.ts';
import { REST_BASE } from '../../src/kernel/paths.ts';
import type { Route } from '../../src/kernel/routes.ts';

// Every route of the route table and every GraphQL root field, asked by every kind of caller: refused
// (401, 402, 403 with the access code) exactly where its declared access says, and never for an access
// reason where it lets the caller through (a 400 or 404 for the sample input then is the route's own answer).

interface CallerKind {
  name: string;
  key?: string;
  plan: Plan;
  bi: boolean;
  /** A live key, or a test key of its organisation's sandbox, with organisation context. */
  orgContext: boolean;
  /** A test key without organisation context: the shared demo sandbox, read-only. */
  demo: boolean;
}

const PLANS: readonly Plan[] = ['free', 'pro', 'business', 'enterprise'];
const ACCESS_CODES = new Set(['MISSING_API_KEY', 'BI_NOT_ENABLED', 'NO_ORGANIZATION_CONTEXT', 'PLAN_TOO_LOW', 'SANDBOX_READ_ONLY']);
const UUID = '00000000-0000-4000-8000-000000000000';
/** Path parameters that name something other than a record. */
const SAMPLE_PARAMS: Record<string, string> = { segment: 'Assets', path: '$count', name: 'x.css' };

type Answer = { status: number; code?: string } | 'allowed';

/** The documented rules (docs/api.md, docs/errors.md), in their order, for a caller of this kind. */
function expectedAnswer(access: Access, caller: CallerKind): Answer {
  if (access.public) return 'allowed';
  if (!caller.key) return { status: 401, code: 'MISSING_API_KEY' };
  if (access.bi && !caller.bi) return { status: 402, code: 'BI_NOT_ENABLED' };
  const organisation = access.organisation || access.plan || access.writes || access.records;
  if (organisation && !caller.orgContext && !caller.demo) return { status: 403, code: 'NO_ORGANIZATION_CONTEXT' };
  if (access.plan && PLANS.indexOf(caller.plan) < PLANS.indexOf(PLAN_RULES[access.plan].minimum))
    return { status: 403, code: 'PLAN_TOO_LOW' };
  if (access.writes && caller.demo) return { status: 403, code: 'SANDBOX_READ_ONLY' };
  if (access.records && caller.demo) return { status: 403, code: 'NO_ORGANIZATION_CONTEXT' };
  return 'allowed';
}

/** What the caller met, as comparable to expectedAnswer: a refusal for an access reason, or anything else. */
const answerOf = (status: number, code: unknown): Answer =>
  typeof code === 'string' && ACCESS_CODES.has(code) ? { status, code } : 'allowed';

/** A value GraphQL accepts for an input type: enough for the request to reach the field's access check. */
function sample(type: GraphQLInputType): unknown {
  if (isNonNullType(type)) return sample(type.ofType);
  if (isListType(type)) return [];
  const named = getNamedType(type);
  if (isEnumType(named)) return named.getValues()[0]!.value;
  if (isInputObjectType(named))
    return Object.fromEntries(
      Object.values(named.getFields())
        .filter((f) => isNonNullType(f.type))
        .map((f) => [f.name, sample(f.type)]),
    );
  return { Int: 1, Float: 1, Boolean: true, DateTime: '2024-01-01T00:00:00Z', Date: '2024-01-01', JSON: {}, Long: 1 }[named.name] ?? UUID;
}
const requiredArgs = (args: readonly GraphQLArgument[]) => args.filter((a) => isNonNullType(a.type) && a.defaultValue === undefined);

const rootFields = () =>
  (['query', 'mutation'] as const).flatMap((operation) =>
    Object.values((operation === 'query' ? schema.getQueryType() : schema.getMutationType())!.getFields()).map((field) => ({
      operation,
      field,
    })),
  );
const restRouteOf = (field: GraphQLField<unknown, unknown>) => field.extensions?.rest as RestRoute | undefined;

let t: TestApp;
const callers: CallerKind[] = [{ name: 'no key', plan: 'free', bi: false, orgContext: false, demo: false }];

beforeAll(async () => {
  t = await createTestApp();
  const orgs = Object.fromEntries(await Promise.all(PLANS.map(async (plan) => [plan, (await t.createOrg(plan)).id] as const)));
  const key = async (
    name: string,
    plan: Plan,
    options: { environment?: 'live' | 'test'; bi_enabled?: boolean; org_context?: boolean } = {},
  ) => {
    const { key } = await t.createKey(orgs[plan]!, options);
    const orgContext = options.org_context ?? true;
    callers.push({ name, key, plan, bi: options.bi_enabled ?? false, orgContext, demo: options.environment === 'test' && !orgContext });
  };
  for (const plan of PLANS) await key(plan, plan);
  await key('enterprise with BI', 'enterprise', { bi_enabled: true });
  // With BI and the highest plan, so that the missing organisation context is the only reason left.
  await key('enterprise with BI, no organisation context', 'enterprise', { bi_enabled: true, org_context: false });
  await key('svc_test_ without organisation context (demo sandbox)', 'enterprise', {
    environment: 'test',
    bi_enabled: true,
    org_context: false,
  });
  await key('svc_test_ with organisation context (its sandbox)', 'business', { environment: 'test' });
});
afterAll(() => t.close());

/** A minimal request of a route of the table: sample path parameters and, for SOFA's routes, the field's required arguments. */
function requestOf(route: Route): { path: string; init: RequestInit } {
  const path = route.pattern.replace(/:(\w+)/g, (_, name: string) => SAMPLE_PARAMS[name] ?? UUID);
  const field = rootFields().find(({ field }) => {
    const rest = restRouteOf(field);
    return rest && rest.method === route.method && `${REST_BASE}${rest.path}` === route.pattern;
  })?.field;
  const pathParams = new Set([...route.pattern.matchAll(/:(\w+)/g)].map((m) => m[1]));
  const args = Object.fromEntries(
    requiredArgs(field?.args ?? [])
      .filter((a) => !pathParams.has(a.name))
      .map((a) => [a.name, sample(a.type)]),
  );
  if (route.method === 'GET') {
    const query = new URLSearchParams(Object.entries(args).map(([name, value]) => [name, String(value)])).toString();
    return { path: query ? `${path}?${query}` : path, init: { method: 'GET' } };
  }
  return { path, init: { method: route.method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(args) } };
}

describe(`declared access on ${TEST_DATABASE_KIND}`, () => {
  it('every API route of the table and every GraphQL root field declares who may call it; nothing outside the API does', () => {
    for (const route of t.app.routes.routes) {
      const ofTheApi = route.pattern === REST_BASE || route.pattern.startsWith(`${REST_BASE}/`);
      expect([route.method, route.pattern, route.access !== undefined]).toEqual([route.method, route.pattern, ofTheApi]);
    }
    for (const { field } of rootFields()) expect(() => fieldAccess(field), field.name).not.toThrow();
    const sofaRoutes = t.app.routes.routes.filter((r) => r.owner === 'sofa');
    expect(sofaRoutes.length).toBe(rootFields().filter(({ field }) => restRouteOf(field)).length);
    for (const route of sofaRoutes) {
      const { field } = rootFields().find(
        ({ field }) => `${REST_BASE}${restRouteOf(field)?.path}` === route.pattern && restRouteOf(field)?.method === route.method,
      )!;
      expect(route.access, route.pattern).toEqual(fieldAccess(field));
    }
  });

  it('every route of the table refuses exactly the callers its declaration refuses, with the declared code', async () => {
    const mismatches: string[] = [];
    const refusalsSeen = new Set<string>();
    for (const route of t.app.routes.routes) {
      if (!route.access) continue;
      const { path, init } = requestOf(route);
      for (const caller of callers) {
        const headers = { ...(init.headers as Record<string, string>), ...(caller.key ? { authorization: `Bearer ${caller.key}` } : {}) };
        const res = await t.request(path, { ...init, headers });
        // Refusals are JSON: the ApiError body, the OData error shape on /v1/odata, or GraphQL's error body on its endpoint. Pages, PDFs and XML are no refusal.
        const body = /json/.test(res.headers.get('content-type') ?? '') ? await res.json() : await res.text();
        const code = body?.code ?? body?.error?.code ?? body?.errors?.[0]?.extensions?.code;
        const expected = expectedAnswer(route.access, caller);
        const actual = answerOf(res.status, code);
        if (actual !== 'allowed') refusalsSeen.add(`${actual.status} ${actual.code}`);
        if (JSON.stringify(actual) !== JSON.stringify(expected)) {
          mismatches.push(
            `${route.method} ${path} as ${caller.name}: expected ${JSON.stringify(expected)}, got ${res.status} ${JSON.stringify(body).slice(0, 200)}`,
          );
        }
      }
    }
    expect(mismatches).toEqual([]);
    // Every refusal of the rules was met on some route.
    expect([...refusalsSeen].sort()).toEqual([
      '401 MISSING_API_KEY',
      '402 BI_NOT_ENABLED',
      '403 NO_ORGANIZATION_CONTEXT',
      '403 PLAN_TOO_LOW',
      '403 SANDBOX_READ_ONLY',
    ]);
  });

  it('every GraphQL root field refuses exactly the callers its authScopes refuse', async () => {
    const mismatches: string[] = [];
    // Free and pro keys run only the approved templates (OPERATION_NOT_APPROVED before any field); without a key, GraphQL answers 401 (above).
    const adHoc = callers.filter((c) => c.key && (c.plan === 'business' || c.plan === 'enterprise'));
    for (const { operation, field } of rootFields()) {
      const args = requiredArgs(field.args);
      const variables = args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
      const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
      const query = `${operation}${variables ? ` (${variables})` : ''} { ${field.name}${args.length ? `(${args.map((a) => `${a.name}: $${a.name}`).join(', ')})` : ''}${selection} }`;
      const values = Object.fromEntries(args.map((a) => [a.name, sample(a.type)]));
      for (const caller of adHoc) {
        const res = await t.graphql(query, values, caller.key);
        const expected = expectedAnswer(fieldAccess(field), caller);
        const actual = answerOf(res.status, res.body?.errors?.[0]?.extensions?.code);
        if (JSON.stringify(actual) !== JSON.stringify(expected)) {
          mismatches.push(
            `${field.name} as ${caller.name}: expected ${JSON.stringify(expected)}, got ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`,
          );
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('the OpenAPI document states each operation’s declared access: security, plan, 402 and 403', async () => {
    const doc = (await t.json('/v1/openapi.json')).body;
    const documented = Object.entries(
      doc.paths as Record<string, Record<string, { security: unknown; description?: string; responses: Record<string, unknown> }>>,
    ).flatMap(([p, operations]) =>
      Object.entries(operations).map(([method, op]) => ({
        key: `${method.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}`,
        op,
      })),
    );
    const routes = new Map(t.app.routes.routes.map((r) => [`${r.method} ${r.pattern}`, r]));
    // Every SOFA route is documented, and every documented operation is a route with a declaration.
    for (const route of t.app.routes.routes.filter((r) => r.owner === 'sofa'))
      expect(documented.map((d) => d.key)).toContain(`${route.method} ${route.pattern}`);
    for (const { key, op } of documented) {
      expect(routes.has(key), key).toBe(true);
      const access = routes.get(key)?.access;
      // A route outside API keys (verification, JWKS, signed export links) documents that it takes none.
      if (!access) {
        expect([key, op.security]).toEqual([key, []]);
        continue;
      }
      expect(op.security, key).toEqual(access.public ? [{ bearer: [] }, {}] : [{ bearer: [] }]);
      if (access.plan) expect(op.description, key).toContain(`Requires the ${PLAN_RULES[access.plan].minimum} plan or above.`);
      else expect(op.description ?? '', key).not.toMatch(/Requires the \w+ plan/);
      expect([key, '402' in op.responses], key).toEqual([key, Boolean(access.bi)]);
      const refusesKeys = Boolean(access.organisation || access.plan || access.writes || access.records);
      expect([key, '403' in op.responses], key).toEqual([key, refusesKeys]);
    }
  });
});
