import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors/api-error.ts';
import type { Caller } from './caller.ts';
import { planAtLeast, requireBiAccess, requirePlan } from './plan-rules.ts';

const key = (over: Partial<Extract<Caller, { kind: 'key' }>> = {}): Caller => ({
  kind: 'key', ip: '127.0.0.1', keyId: 'k', orgId: 'o', keyOrgId: 'o', plan: 'pro', environment: 'live', biEnabled: false, orgContext: true, readOnly: false, ...over,
});
const failure = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, code: error.code, details: error.details };
    throw error;
  }
  throw new Error('expected an ApiError');
};

describe('plan rules', () => {
  it('orders plans', () => {
    expect(planAtLeast('business', 'pro')).toBe(true);
    expect(planAtLeast('free', 'pro')).toBe(false);
    expect(planAtLeast('pro', 'pro')).toBe(true);
  });

  it('requirePlan: 401 without a key, 403 without organisation context, 403 below the plan', () => {
    expect(failure(() => requirePlan({ kind: 'anonymous', ip: 'x', plan: 'free' }, 'pro', 'Reports'))).toMatchObject({ status: 401, code: 'MISSING_API_KEY' });
    expect(failure(() => requirePlan(key({ orgContext: false }), 'pro', 'Reports'))).toMatchObject({ status: 403, code: 'NO_ORGANIZATION_CONTEXT' });
    expect(failure(() => requirePlan(key({ plan: 'free' }), 'pro', 'Reports'))).toEqual({
      status: 403, code: 'PLAN_TOO_LOW', details: "Reports needs the pro plan or higher; this key's plan is free",
    });
    expect(requirePlan(key({ plan: 'business' }), 'pro', 'Reports')).toMatchObject({ plan: 'business' });
  });

  it('requireBiAccess: 402 when BI is not enabled, 403 below enterprise, passes otherwise', () => {
    expect(failure(() => requireBiAccess(key({ plan: 'enterprise' })))).toMatchObject({ status: 402, code: 'BI_NOT_ENABLED' });
    expect(failure(() => requireBiAccess(key({ plan: 'business', biEnabled: true })))).toMatchObject({ status: 403, code: 'PLAN_TOO_LOW' });
    expect(requireBiAccess(key({ plan: 'enterprise', biEnabled: true }))).toMatchObject({ plan: 'enterprise' });
  });
});
