/**
 * BI clients (Excel, Power BI) send a credential as HTTP Basic: on /v1/odata paths the API key is
 * accepted as the password of Basic authentication (any user name) and handed on as a bearer key.
 * Every 401 there offers both schemes, and every error body is in the OData error shape, whichever
 * layer refused the request (access control, quota, route table or the OData router).
 */
import type { Plugin } from 'graphql-yoga';
import { unauthorized } from '../errors/api-error.ts';
import { errorResponse } from '../errors/render.ts';
import { ODATA_BASE } from '../kernel/paths.ts';
import { odataErrorBody } from './errors.ts';

const isODataPath = (pathname: string) => pathname === ODATA_BASE || pathname.startsWith(`${ODATA_BASE}/`);

/** The challenge of every OData 401: BI tools ask for Basic credentials only when it is offered. */
export const ODATA_CHALLENGE = 'Bearer realm="v1", Basic realm="OData", charset="UTF-8"';

/** The Authorization header access control should read: Basic turned into Bearer on OData paths, anything else unchanged. */
function odataAuthorization(pathname: string, authorization: string | null): string | null {
  const basic = authorization === null ? null : /^Basic\s+(\S+)\s*$/i.exec(authorization);
  if (!basic || !isODataPath(pathname)) return authorization;
  const credentials = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = credentials.indexOf(':');
  const password = colon === -1 ? '' : credentials.slice(colon + 1);
  if (password === '')
    throw unauthorized('INVALID_AUTHORIZATION', 'Basic credentials must carry the API key as the password (any user name)');
  if (/\s/.test(password)) throw unauthorized('INVALID_API_KEY', 'API key is malformed: expected svc_live_… or svc_test_…');
  return `Bearer ${password}`;
}

/** An error response of the service as OData clients read it: the OData error shape, headers kept, 401s with both challenges. */
async function asODataError(response: Response): Promise<Response> {
  let body: unknown;
  try {
    body = await response.clone().json();
  } catch {
    body = undefined;
  }
  const headers = new Headers(response.headers);
  if (response.status === 401) headers.set('WWW-Authenticate', ODATA_CHALLENGE);
  const isServiceBody =
    typeof body === 'object' && body !== null && !Array.isArray(body) && typeof (body as { error?: unknown }).error === 'string';
  if (!isServiceBody) return new Response(response.body, { status: response.status, headers });
  headers.delete('content-length');
  headers.set('Content-Type', 'application/json; charset=utf-8');
  return new Response(JSON.stringify(odataErrorBody(body as Record<string, unknown>, response.status)), {
    status: response.status,
    headers,
  });
}

/**
 * Before access control: an OData request's Basic credentials become the bearer key access control
 * reads, so that access control knows one scheme only; malformed ones are a 401 that costs no quota.
 * After every layer: error responses on OData paths become OData errors (asODataError).
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
    async onResponse({ request, response, setResponse }) {
      if (response.status < 400 || !isODataPath(new URL(request.url).pathname)) return;
      setResponse(await asODataError(response));
    },
  };
}
