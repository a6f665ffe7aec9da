import type { Plan } from './caller.ts';

const PLAN_ORDER: readonly Plan[] = ['free', 'pro', 'business', 'enterprise'];

export const planAtLeast = (plan: Plan, minimum: Plan) => PLAN_ORDER.indexOf(plan) >= PLAN_ORDER.indexOf(minimum);

/**
 * Which plan may use what (spec 5 and 7): each feature's least plan, and how its refusal
 * (403 PLAN_TOO_LOW) names it. Routes declare the feature (src/auth/access.ts, `plan`).
 */
export const PLAN_RULES = {
  report: { minimum: 'pro', feature: 'POST /v1/report' },
  odata: { minimum: 'enterprise', feature: 'The OData interface' },
  // An IT-asset-disposal workload (docs/erasure-sync.md).
  erasureSync: { minimum: 'business', feature: 'Erasure-report sync' },
  sbtiTargets: { minimum: 'business', feature: 'Managing SBTi targets' },
} as const satisfies Record<string, { minimum: Plan; feature: string }>;

export type PlanFeature = keyof typeof PLAN_RULES;

const HOUR = 3_600;
/** The shortest time between two organisation exports, per plan (spec 8: export frequency). */
export const EXPORT_INTERVAL_SECONDS: Readonly<Record<Plan, number>> = {
  free: 30 * 24 * HOUR,
  pro: 7 * 24 * HOUR,
  business: 24 * HOUR,
  enterprise: HOUR,
};
