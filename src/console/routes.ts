import { createHash, randomBytes } from 'node:crypto';
import * as z from 'zod';
import { ApiError, forbidden } from '../errors/api-error.ts';
import { authenticate, type KeyCaller } from '../auth/caller.ts';
import { issueApiKey, revokeApiKey } from '../auth/api-key-store.ts';
import { currentRequest } from '../observability/request-context.ts';
import { Router, type RouteHandler } from '../rest/router.ts';
import { publicBase, publicOrigin } from '../rest/public-url.ts';
import { validateBody } from '../rest/json-body.ts';
import { text } from '../validation/schemas.ts';
import type { Services } from '../services.ts';
import { Dashboard } from '../dashboard/routes.ts';
import { CONTENT_SECURITY_POLICY, FORM_LIMITS, keysPage, layout, loginPage } from './page.ts';

export const CONSOLE_BASE = '/console';
const COOKIE = 'lcf_console';
const SESSION_HOURS = 8;

/** On every console response: no framing (clickjacking), no content sniffing, no Referer leaving the console. */
const SECURITY_HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

const loginForm = z.object({ key: text(FORM_LIMITS.key).transform((key) => key.trim()) });
const newKeyForm = z.object({
  name: text(FORM_LIMITS.name)
    .transform((name) => name.trim() || undefined)
    .optional(),
  environment: z.enum(['live', 'test']).default('live'),
});

/** A refusal of the API (not found, expired, …) said on the dashboard in its words; anything else is a fault. */
const explained = (error: unknown): string => {
  if (error instanceof ApiError) return `${error.message}: ${error.details}`;
  throw error;
};

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');
const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...headers } });
const seeOther = (location: string, headers: Record<string, string> = {}) =>
  new Response(null, { status: 303, headers: { Location: location, ...headers } });

/**
 * A session token names the key that signed in (`<key id>.<random>`): the dashboard acts as that key. The whole
 * token is hashed, so the key id cannot be changed without losing the session.
 */
const sessionKeyId = (token: string) => (token.includes('.') ? token.slice(0, token.indexOf('.')) : undefined);

function sessionToken(request: Request): string | undefined {
  const cookie = request.headers.get('cookie') ?? '';
  return cookie
    .split(/;\s*/)
    .find((c) => c.startsWith(`${COOKIE}=`))
    ?.slice(COOKIE.length + 1);
}

/** A console form: URL-encoded, as its pages send them (415 otherwise), each field held to its schema (400 naming it). */
async function readForm<S extends z.ZodType>(request: Request, schema: S): Promise<z.infer<S>> {
  const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new ApiError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'Unsupported media type',
      'body: console forms are sent as application/x-www-form-urlencoded',
    );
  }
  return validateBody(schema, Object.fromEntries(new URLSearchParams(await request.text())));
}

/**
 * The API-key page: an organisation signs in with one of its live keys (a cookie session of
 * 8 hours, stored as a token hash), lists its keys with today's usage against the daily quota,
 * creates keys (shown once) and revokes them. Hand-written: HTML forms and redirects, not JSON.
 */
export function createConsoleRouter(services: Services): Router {
  const { prisma } = services.db;

  async function session(request: Request) {
    const token = sessionToken(request);
    if (!token) return undefined;
    const row = await prisma.consoleSession.findUnique({ where: { token_hash: tokenHash(token) }, include: { organization: true } });
    return row && row.expires_at > new Date() ? { ...row, key_id: sessionKeyId(token) } : undefined;
  }

  async function page(orgId: string, newKey?: { key: string; prefix: string }) {
    const org = await prisma.organization.findUniqueOrThrow({ where: { id: orgId } });
    const keys = await prisma.apiKey.findMany({ where: { org_id: orgId }, orderBy: { created_at: 'asc' } });
    const usage = await services.quota.usageToday(keys.map((k) => ({ keyId: k.id, orgId, plan: k.plan })));
    return html(
      keysPage(
        org,
        keys.map((k, i) => ({ ...k, used_today: usage[i]!.used, daily_limit: usage[i]!.limit })),
        newKey,
      ),
    );
  }

  const ownOrigin = (request: Request) => publicOrigin(request, services.config);

  /** Secure whenever the console is served over https: directly, behind a trusted proxy, or as PUBLIC_BASE_URL says. */
  const sessionCookie = (request: Request, value: string, maxAgeSeconds: number) =>
    `${COOKIE}=${value}; Path=${CONSOLE_BASE}; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${ownOrigin(request).startsWith('https:') ? '; Secure' : ''}`;

  /**
   * CSRF defence of every state-changing route, sign-in included: the browser must vouch that the form
   * comes from the console's own origin, by Origin or by Sec-Fetch-Site. A request with neither is refused
   * too; the SameSite cookie alone covers neither sign-in (login CSRF) nor browsers without SameSite.
   */
  const sameOriginForm =
    (fn: RouteHandler): RouteHandler =>
    (request, params) => {
      const origin = request.headers.get('origin');
      if (request.headers.get('sec-fetch-site') !== 'same-origin' && origin !== ownOrigin(request)) {
        throw forbidden(
          'CROSS_ORIGIN_FORM',
          origin === null
            ? 'Console forms must come from the console: the request has neither an Origin header nor Sec-Fetch-Site: same-origin'
            : `Console forms must come from the console: Origin is not ${ownOrigin(request)}`,
        );
      }
      return fn(request, params);
    };

  /** A signed-in organisation's route; without a session, the sign-in page (GET) or a redirect to it. */
  const authed =
    (fn: (request: Request, orgId: string, params: Record<string, string>, keyId?: string) => Promise<Response>): RouteHandler =>
    async (request, params) => {
      const s = await session(request);
      if (!s) return request.method === 'GET' ? html(loginPage()) : seeOther(CONSOLE_BASE);
      return fn(request, s.org_id, params, s.key_id);
    };

  const dashboard = new Dashboard(services);
  /** A dashboard route: acts as the session's key; a session whose key is revoked (or unnamed) signs in again. */
  const asKey = (fn: (request: Request, caller: KeyCaller, params: Record<string, string>) => Promise<Response>): RouteHandler =>
    authed(async (request, orgId, params, keyId) => {
      const caller = await dashboard.caller(orgId, keyId, currentRequest()?.ip ?? 'unknown');
      if (!caller) return html(loginPage('Sign in again with a live key to open the dashboard.'), 401);
      return fn(request, caller, params);
    });
  const dashboardPage = async (caller: KeyCaller, message?: string, status = 200) => {
    const org = await services.scopes.forCaller(caller).organization.findFirstOrThrow({ select: { name: true } });
    return html(layout(`Dashboard · ${org.name}`, await dashboard.page(caller, message)), status);
  };

  return new Router(CONSOLE_BASE, SECURITY_HEADERS)
    .on(
      'GET',
      '/',
      authed((_request, orgId) => page(orgId)),
    )
    .on(
      'POST',
      '/login',
      sameOriginForm(async (request) => {
        const ip = currentRequest()?.ip ?? 'unknown';
        // Brute-force guard: asked before the key is looked at; only failed sign-ins count.
        const wait = await services.quota.signInWait('console', ip);
        if (wait !== undefined) {
          return html(loginPage(`Too many failed sign-ins from your address: try again in ${wait} seconds.`), 429, {
            'Retry-After': String(wait),
          });
        }
        const { key } = await readForm(request, loginForm);
        const caller = await authenticate(`Bearer ${key}`, ip, services.keys).catch(() => undefined);
        if (caller?.kind !== 'key' || !caller.orgContext || caller.environment !== 'live') {
          await services.quota.countFailedSignIn('console', ip);
          return html(loginPage('That is not a live API key with organisation context.'), 401);
        }
        const token = `${caller.keyId}.${randomBytes(32).toString('base64url')}`;
        await prisma.consoleSession.create({
          data: { org_id: caller.orgId, token_hash: tokenHash(token), expires_at: new Date(Date.now() + SESSION_HOURS * 3_600_000) },
        });
        return seeOther(CONSOLE_BASE, { 'Set-Cookie': sessionCookie(request, token, SESSION_HOURS * 3600) });
      }),
    )
    .on(
      'GET',
      '/dashboard',
      asKey((_request, caller) => dashboardPage(caller)),
    )
    .on(
      'POST',
      '/dashboard/certificates/:id/revoke',
      sameOriginForm(
        asKey(async (_request, caller, params) => {
          const message = await dashboard.revokeCertificate(caller, params.id!).catch(explained);
          return dashboardPage(caller, message);
        }),
      ),
    )
    .on(
      'GET',
      '/dashboard/exports/:id/download',
      asKey(async (request, caller, params) => {
        try {
          const url = await dashboard.exportUrl(caller, params.id!, publicBase(request, services.config));
          return new Response(null, { status: 302, headers: { Location: url } });
        } catch (error) {
          return dashboardPage(caller, explained(error), (error as ApiError).status);
        }
      }),
    )
    .on(
      'POST',
      '/logout',
      sameOriginForm(
        authed(async (request) => {
          await prisma.consoleSession.deleteMany({ where: { token_hash: tokenHash(sessionToken(request)!) } });
          return seeOther(CONSOLE_BASE, { 'Set-Cookie': sessionCookie(request, '', 0) });
        }),
      ),
    )
    .on(
      'POST',
      '/keys',
      sameOriginForm(
        authed(async (request, orgId) => {
          const form = await readForm(request, newKeyForm);
          const issued = await issueApiKey(prisma, orgId, form);
          return page(orgId, issued);
        }),
      ),
    )
    .on(
      'POST',
      '/keys/:id/revoke',
      sameOriginForm(
        authed(async (_request, orgId, params) => {
          await revokeApiKey(prisma, services.keys, params.id!, orgId).catch(() => undefined);
          return seeOther(CONSOLE_BASE);
        }),
      ),
    );
}
