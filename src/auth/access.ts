import { ApiError, forbidden, unauthorized } from '../errors/api-error.ts';
import type { Caller, KeyCaller } from './caller.ts';
import { PLAN_RULES, planAtLeast, type PlanFeature } from './plan-rules.ts';

/**
 * Who may call a route, declared with the route and enforced before it runs: a GraphQL root field's
 * `authScopes` (src/graphql/builder.ts, the scope-auth plugin), which its SOFA route shares, and a
 * hand-written route's declaration (`Router.on`, enforced by the router). The OpenAPI security of each
 * operation is read from it too. Refusals, in this order (accessRefusal):
 * 401 MISSING_API_KEY, 402 BI_NOT_ENABLED, 403 NO_ORGANIZATION_CONTEXT, 403 PLAN_TOO_LOW,
 * 403 SANDBOX_READ_ONLY, 403 NO_ORGANIZATION_CONTEXT for the demo sandbox (`records`).
 */
export interface Access {
  /** Anyone, with an API key or without (the GraphQL endpoint as a whole still needs a key). Stands alone. */
  public?: true;
  /** An API key. Every requirement below implies it. */
  key?: true;
  /** BI export enabled on the key (OData). */
  bi?: true;
  /**
   * Organisation data: a key with organisation context, or a test key without one, which reads the
   * shared demo sandbox read-only. Implied by `plan`, `writes` and `records`.
   */
  organisation?: true;
  /** The feature's least plan, as src/auth/plan-rules.ts rules it. */
  plan?: PlanFeature;
  /** Changes organisation data, which the read-only demo sandbox refuses. */
  writes?: true;
  /**
   * Keeps a record of the organisation's own (a report, an audit-logged query), which the shared demo
   * sandbox has none of: the refusal's reason.
   */
  records?: string;
}

/** Anyone may call (spec 5.3: the open routes). */
export const PUBLIC: Access = { public: true };

const SCOPES = ['public', 'key', 'bi', 'organisation', 'plan', 'writes', 'records'] as const satisfies readonly (keyof Access)[];

/** The refusal of a caller without a key; an interface may phrase its own (OData also invites Basic). */
export const missingApiKey = () => unauthorized('MISSING_API_KEY', 'This endpoint needs an API key: Authorization: Bearer svc_…');

export const SANDBOX_READ_ONLY_REASON = 'Test keys without organisation context read the demo sandbox and cannot change it';

const needsOrganisation = (access: Access) => Boolean(access.organisation || access.plan || access.writes || access.records);

/** Why `caller` may not call a route that declares `access`, or undefined when it may. */
export function accessRefusal(
  access: Access,
  caller: Caller,
  { missingKey = missingApiKey }: { missingKey?: () => ApiError } = {},
): ApiError | undefined {
  if (access.public) return undefined;
  if (caller.kind !== 'key') return missingKey();
  if (access.bi && !caller.biEnabled)
    return new ApiError(402, 'BI_NOT_ENABLED', 'Payment required', 'BI export is not enabled on this API key');
  if (needsOrganisation(access) && !caller.orgContext && !caller.readOnly)
    return forbidden('NO_ORGANIZATION_CONTEXT', 'This API key has no organisation context');
  if (access.plan) {
    const { minimum, feature } = PLAN_RULES[access.plan];
    if (!planAtLeast(caller.plan, minimum))
      return forbidden('PLAN_TOO_LOW', `${feature} needs the ${minimum} plan or higher; this key's plan is ${caller.plan}`);
  }
  if (access.writes && caller.readOnly) return forbidden('SANDBOX_READ_ONLY', SANDBOX_READ_ONLY_REASON);
  if (access.records && caller.readOnly) return forbidden('NO_ORGANIZATION_CONTEXT', access.records);
  return undefined;
}

/** Refuses `caller` unless `access` lets it call; the one enforcer of hand-written routes. */
export function enforceAccess(access: Access, caller: Caller, options?: { missingKey?: () => ApiError }): void {
  const refusal = accessRefusal(access, caller, options);
  if (refusal) throw refusal;
}

/** The scopes of the scope-auth plugin, one per requirement of Access, each with the parameter a declaration gives it. */
export type AccessScopes = Required<Access>;

/**
 * The scope loaders of one request's caller (the scope-auth plugin's initializer): a scope holds when
 * accessRefusal finds nothing to refuse in a declaration of that scope alone, so the plugin and the
 * hand-written routes apply the same rules.
 */
export function accessScopes(caller: Caller): { [Scope in keyof AccessScopes]: (parameter: AccessScopes[Scope]) => boolean } {
  const allows = (access: Access) => accessRefusal(access, caller) === undefined;
  return {
    public: () => true,
    key: () => allows({ key: true }),
    bi: () => allows({ bi: true }),
    organisation: () => allows({ organisation: true }),
    plan: (plan) => allows({ plan }),
    writes: () => allows({ writes: true }),
    records: (records) => allows({ records }),
  };
}

/**
 * A declaration as Access, checked: at least one requirement, only Access's, `public` alone. Throws
 * for anything else, so that a route without a declaration, or with one the plugin would read
 * differently (`$any`, an empty map, which it lets anyone through), does not start.
 */
export function declaredAccess(declaration: unknown, where: string): Access {
  const names = declaration && typeof declaration === 'object' ? Object.keys(declaration) : [];
  if (
    names.length === 0 ||
    names.some((name) => !(SCOPES as readonly string[]).includes(name)) ||
    (names.includes('public') && names.length > 1)
  ) {
    throw new TypeError(
      `${where} declares no access or an unknown one (${JSON.stringify(declaration)}): declare an Access (src/auth/access.ts)`,
    );
  }
  return declaration as Access;
}

/** The caller of a route whose declared access needs a key: enforced before the route ran, so here only the type narrows. */
export function keyCaller(caller: Caller): KeyCaller {
  if (caller.kind !== 'key') throw new TypeError('A route that needs an API key must declare it (src/auth/access.ts)');
  return caller;
}

declare module '../kernel/routes.ts' {
  interface RouteDeclaration {
    /** Who may call the route; undefined for routes outside API-key access (admin token, console session, signed links, system routes). */
    access?: Access;
    /** How the route's 401 for a caller without a key reads, where its interface phrases its own (accessRefusal). */
    missingKey?: () => ApiError;
  }
}
