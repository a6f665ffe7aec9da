import { currentRequest } from '../observability/request-context.ts';

/** PUBLIC_BASE_URL's origin; else the scheme and host of this request, as a trusted proxy reports them or as received. */
export function publicOrigin(request: Request, publicBaseUrl: string | undefined): string {
  if (publicBaseUrl) return new URL(publicBaseUrl).origin;
  const url = new URL(request.url);
  const forwarded = currentRequest()?.forwarded;
  const proto = forwarded?.proto === 'https' || forwarded?.proto === 'http' ? forwarded.proto : url.protocol.slice(0, -1);
  try {
    return new URL(`${proto}://${forwarded?.host ?? url.host}`).origin;
  } catch {
    return url.origin; // an X-Forwarded-Host that is no host
  }
}

/** The absolute base of links in responses: PUBLIC_BASE_URL (a path prefix kept, no trailing slash), else publicOrigin. */
export function publicBase(request: Request, publicBaseUrl: string | undefined): string {
  return publicBaseUrl ? publicBaseUrl.replace(/\/+$/, '') : publicOrigin(request, undefined);
}
