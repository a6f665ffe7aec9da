import { createHash, randomBytes } from 'node:crypto';
import { ApiError } from '../errors/api-error.ts';
import { authenticate } from '../auth/caller.ts';
import { issueApiKey, revokeApiKey } from '../auth/api-key-store.ts';
import { currentRequest } from '../observability/request-context.ts';
import { Router } from '../rest/router.ts';
import type { Services } from '../services.ts';
import { keysPage, loginPage } from './page.ts';

export const CONSOLE_BASE = '/console';
const COOKIE = 'lcf_console';
const SESSION_HOURS = 8;

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');
const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...headers } });
const seeOther = (location: string, headers: Record<string, string> = {}) => new Response(null, { status: 303, headers: { Location: location, ...headers } });

function sessionToken(request: Request): string | undefined {
  const cookie = request.headers.get('cookie') ?? '';
  return cookie.split(/;\s*/).find((c) => c.startsWith(`${COOKIE}=`))?.slice(COOKIE.length + 1);
}

/** Forms are only accepted from this origin (with SameSite=Strict cookies, the CSRF defence). */
function sameOrigin(request: Request): boolean {
  const origin = request.headers.get('origin');
  return origin === null || origin === new URL(request.url).origin;
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
    return row && row.expires_at > new Date() ? row : undefined;
  }

  async function page(orgId: string, newKey?: { key: string; prefix: string }) {
    const org = await prisma.organization.findUniqueOrThrow({ where: { id: orgId } });
    const keys = await prisma.apiKey.findMany({ where: { org_id: orgId }, orderBy: { created_at: 'asc' } });
    const usage = await services.quota.usageToday(keys.map((k) => ({ keyId: k.id, orgId, plan: k.plan })));
    return html(keysPage(org, keys.map((k, i) => ({ ...k, used_today: usage[i]!.used, daily_limit: usage[i]!.limit })), newKey));
  }

  const authed =
    (fn: (request: Request, orgId: string, params: Record<string, string>) => Promise<Response>) =>
    async (request: Request, params: Record<string, string>) => {
      if (request.method === 'POST' && !sameOrigin(request)) throw new ApiError(403, 'CROSS_ORIGIN_FORM', 'Forbidden', 'Console forms must come from the console itself');
      const s = await session(request);
      if (!s) return request.method === 'GET' ? html(loginPage()) : seeOther(CONSOLE_BASE);
      return fn(request, s.org_id, params);
    };

  return new Router(CONSOLE_BASE)
    .on('GET', '/', authed((_request, orgId) => page(orgId)))
    .on('POST', '/login', async (request) => {
      if (!sameOrigin(request)) throw new ApiError(403, 'CROSS_ORIGIN_FORM', 'Forbidden', 'Console forms must come from the console itself');
      const key = String((await request.formData()).get('key') ?? '').trim();
      const caller = await authenticate(`Bearer ${key}`, currentRequest()?.ip ?? 'unknown', services.keys).catch(() => undefined);
      if (caller?.kind !== 'key' || !caller.orgContext || caller.environment !== 'live') {
        return html(loginPage('That is not a live API key with organisation context.'), 401);
      }
      const token = randomBytes(32).toString('base64url');
      await prisma.consoleSession.create({
        data: { org_id: caller.orgId, token_hash: tokenHash(token), expires_at: new Date(Date.now() + SESSION_HOURS * 3_600_000) },
      });
      const secure = new URL(request.url).protocol === 'https:' ? '; Secure' : '';
      return seeOther(CONSOLE_BASE, { 'Set-Cookie': `${COOKIE}=${token}; Path=${CONSOLE_BASE}; HttpOnly; SameSite=Strict; Max-Age=${SESSION_HOURS * 3600}${secure}` });
    })
    .on('POST', '/logout', authed(async (request) => {
      await prisma.consoleSession.deleteMany({ where: { token_hash: tokenHash(sessionToken(request)!) } });
      return seeOther(CONSOLE_BASE, { 'Set-Cookie': `${COOKIE}=; Path=${CONSOLE_BASE}; HttpOnly; SameSite=Strict; Max-Age=0` });
    }))
    .on('POST', '/keys', authed(async (request, orgId) => {
      const form = await request.formData();
      const environment = form.get('environment') === 'test' ? 'test' : 'live';
      const name = String(form.get('name') ?? '').trim().slice(0, 200) || undefined;
      const issued = await issueApiKey(prisma, orgId, { environment, name });
      return page(orgId, issued);
    }))
    .on('POST', '/keys/:id/revoke', authed(async (_request, orgId, params) => {
      await revokeApiKey(prisma, services.keys, params.id!, orgId).catch(() => undefined);
      return seeOther(CONSOLE_BASE);
    }));
}
