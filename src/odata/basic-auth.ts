/**
 * BI clients (Excel, Power BI) send a credential as HTTP Basic: on /v1/odata paths the API key is
 * accepted as the password of Basic authentication (any user name) and handed on as a bearer key.
 */
import type { Plugin } from 'graphql-yoga';
import { unauthorized } from '../errors/api-error.ts';
import { errorResponse } from '../errors/render.ts';
import { ODATA_BASE } from '../kernel/paths.ts';

const isODataPath = (pathname: string) => pathname === ODATA_BASE || pathname.startsWith(`${ODATA_BASE}/`);

/** The Authorization header access control should read: Basic turned into Bearer on OData paths, anything else unchanged. */
function odataAuthorization(pathname: string, authorization: string | null): string | null {
  const basic = authorization === null ? null : /^Basic\s+(\S+)\s*$/i.exec(authorization);
  if (!basic || !isODataPath(pathname)) return authorization;
  const credentials = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = credentials.indexOf(':');
  const password = colon === -1 ? '' : credentials.slice(colon + 1);
  if (password === '') throw unauthorized('INVALID_AUTHORIZATION', 'Basic credentials must carry the API key as the password (any user name)');
  if (/\s/.test(password)) throw unauthorized('INVALID_API_KEY', 'API key is malformed: expected svc_live_… or svc_test_…');
  return `Bearer ${password}`;
}

/**
 * Before access control: an OData request's Basic credentials become the bearer key access control
 * reads, so that access control knows one scheme only; malformed ones are a 401 that costs no quota.
 */
export function useODataBasicCredentials(): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      if (!isODataPath(url.pathname)) return;
      const presented = request.headers.get('authorization');
      try {
        const bearer = odataAuthorization(url.pathname, presented);
        if (bearer !== presented && bearer !== null) request.headers.set('authorization', bearer);
      } catch (error) {
        endResponse(errorResponse([error], { graphql: false }));
      }
    },
  };
}
