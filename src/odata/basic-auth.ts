/**
 * BI clients (Excel, Power BI) send a credential as HTTP Basic: on /v1/odata paths the API key is
 * accepted as the password of Basic authentication (any user name) and handed on as a bearer key.
 */
import { unauthorized } from '../errors/api-error.ts';
import { ODATA_BASE } from '../kernel/paths.ts';

export const isODataPath = (pathname: string) => pathname === ODATA_BASE || pathname.startsWith(`${ODATA_BASE}/`);

/** The Authorization header access control should read: Basic turned into Bearer on OData paths, anything else unchanged. */
export function odataAuthorization(pathname: string, authorization: string | null): string | null {
  const basic = authorization === null ? null : /^Basic\s+(\S+)\s*$/i.exec(authorization);
  if (!basic || !isODataPath(pathname)) return authorization;
  const credentials = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = credentials.indexOf(':');
  const password = colon === -1 ? '' : credentials.slice(colon + 1);
  if (password === '') throw unauthorized('INVALID_AUTHORIZATION', 'Basic credentials must carry the API key as the password (any user name)');
  if (/\s/.test(password)) throw unauthorized('INVALID_API_KEY', 'API key is malformed: expected svc_live_… or svc_test_…');
  return `Bearer ${password}`;
}
