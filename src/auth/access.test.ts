import { describe, expect, it } from 'vitest';
import type { Caller } from './caller.ts';
import { accessRefusal, accessScopes, declaredAccess, type Access } from './access.ts';
import { planAtLeast } from './plan-rules.ts';

const key = (over: Partial<Extract<Caller, { kind: 'key' }>> = {}): Caller => ({
  kind: 'key',
  ip: '127.0.0.1',
  keyId: 'k',
  orgId: 'o',
  keyOrgId: 'o',
  plan: 'pro',
  environment: 'live',
  biEnabled: false,
  orgContext: true,
  readOnly: false,
  ...over,
});
const anonymous: Caller = { kind: 'anonymous', ip: 'x', plan: 'free' };
const refusal = (access: Access, caller: Caller) => {
  const error = accessRefusal(access, caller);
  return error && { status: error.status, code: error.code, details: error.details };
};

describe('plan rules', () => {
  it('orders plans', () => {
    expect(planAtLeast('business', 'pro')).toBe(true);
    expect(planAtLeast('free', 'pro')).toBe(false);
    expect(planAtLeast('pro', 'pro')).toBe(true);
  });
});

describe('access', () => {
  it('a plan: 401 without a key, 403 without organisation context, 403 below the plan naming the feature', () => {
    const report: Access = { organisation: true, plan: 'report' };
    expect(refusal(report, anonymous)).toMatchObject({ status: 401, code: 'MISSING_API_KEY' });
    expect(refusal(report, key({ orgContext: false }))).toMatchObject({ status: 403, code: 'NO_ORGANIZATION_CONTEXT' });
    expect(refusal(report, key({ plan: 'free' }))).toEqual({
      status: 403,
      code: 'PLAN_TOO_LOW',
      details: "POST /v1/report needs the pro plan or higher; this key's plan is free",
    });
    expect(refusal(report, key({ plan: 'business' }))).toBeUndefined();
  });

  it('BI: 402 when BI is not enabled, before the plan (403 below enterprise), passes otherwise', () => {
    const bi: Access = { bi: true, organisation: true, plan: 'odata' };
    expect(refusal(bi, key({ plan: 'free' }))).toMatchObject({ status: 402, code: 'BI_NOT_ENABLED' });
    expect(refusal(bi, key({ plan: 'business', biEnabled: true }))).toMatchObject({ status: 403, code: 'PLAN_TOO_LOW' });
    expect(refusal(bi, key({ plan: 'enterprise', biEnabled: true }))).toBeUndefined();
  });

  it('the demo sandbox (a test key without organisation context) reads, but neither writes nor keeps records', () => {
    const demo = key({ environment: 'test', orgContext: false, readOnly: true, plan: 'enterprise' });
    expect(refusal({ organisation: true }, demo)).toBeUndefined();
    expect(refusal({ organisation: true, writes: true }, demo)).toMatchObject({ status: 403, code: 'SANDBOX_READ_ONLY' });
    expect(refusal({ organisation: true, records: 'Reports need an organisation' }, demo)).toEqual({
      status: 403,
      code: 'NO_ORGANIZATION_CONTEXT',
      details: 'Reports need an organisation',
    });
    // Without organisation context and not the sandbox: refused before the sandbox rules.
    expect(refusal({ writes: true }, key({ orgContext: false }))).toMatchObject({
      code: 'NO_ORGANIZATION_CONTEXT',
      details: 'This API key has no organisation context',
    });
  });

  it('public lets anyone through; the scopes hold exactly where the refusal finds nothing', () => {
    expect(refusal({ public: true }, anonymous)).toBeUndefined();
    const scopes = accessScopes(key({ plan: 'pro' }));
    expect([
      scopes.public(true),
      scopes.key(true),
      scopes.organisation(true),
      scopes.plan('report'),
      scopes.plan('sbtiTargets'),
      scopes.bi(true),
    ]).toEqual([true, true, true, true, false, false]);
    expect(accessScopes(anonymous).key(true)).toBe(false);
  });

  it('refuses a declaration the plugin would read differently: none, empty, unknown scopes, public with others', () => {
    for (const declaration of [undefined, {}, { $any: { key: true } }, { public: true, key: true }]) {
      expect(() => declaredAccess(declaration, 'Query.x'), JSON.stringify(declaration)).toThrow(/declares no access or an unknown one/);
    }
    expect(declaredAccess({ organisation: true, writes: true }, 'Mutation.y')).toEqual({ organisation: true, writes: true });
  });
});
