import { ApiError, forbidden } from '../errors/api-error.ts';
import { requireKey, requireOrgContext, type Caller, type KeyCaller, type Plan } from './caller.ts';

const PLAN_ORDER: readonly Plan[] = ['free', 'pro', 'business', 'enterprise'];

export const planAtLeast = (plan: Plan, minimum: Plan) => PLAN_ORDER.indexOf(plan) >= PLAN_ORDER.indexOf(minimum);

/**
 * The access rules of the keyed routes (spec 5 and 7), in one place for every route that needs
 * them: 401 without a key, 403 NO_ORGANIZATION_CONTEXT for keys without an organisation,
 * 403 PLAN_TOO_LOW below the route's plan, and for BI (OData) 402 BI_NOT_ENABLED.
 */
export function requirePlan(caller: Caller, minimum: Plan, feature: string): KeyCaller {
  const key = requireOrgContext(caller);
  if (!planAtLeast(key.plan, minimum)) {
    throw forbidden('PLAN_TOO_LOW', `${feature} needs the ${minimum} plan or higher; this key's plan is ${key.plan}`);
  }
  return key;
}

/** OData: a key with bi_enabled on an enterprise organisation. The spec orders 402 (BI) before 403 (plan). */
export function requireBiAccess(caller: Caller): KeyCaller {
  const key = requireKey(caller);
  if (!key.biEnabled) throw new ApiError(402, 'BI_NOT_ENABLED', 'Payment required', 'BI export is not enabled on this API key');
  return requirePlan(key, 'enterprise', 'The OData interface');
}

const HOUR = 3_600;
/** The shortest time between two organisation exports, per plan (spec 8: export frequency). */
export const EXPORT_INTERVAL_SECONDS: Readonly<Record<Plan, number>> = { free: 30 * 24 * HOUR, pro: 7 * 24 * HOUR, business: 24 * HOUR, enterprise: HOUR };

/** Erasure-report sync and its connection (docs/erasure-sync.md): an IT-asset-disposal workload, business plan and above. */
export const ERASURE_SYNC_MIN_PLAN: Plan = 'business';
