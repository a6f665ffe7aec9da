import type { AllowedHost } from '../config/allowed-hosts.ts';
import { currentRequest } from '../observability/request-context.ts';

/** What links in responses are built from (src/config/config.ts). */
export interface LinkSettings {
  publicBaseUrl: string | undefined;
  allowedHosts: readonly AllowedHost[];
  /** The listen address as an origin: the links of a request addressed to a host outside allowedHosts. */
  listenOrigin: string;
}

const isAllowed = (origin: URL, allowed: readonly AllowedHost[]) => {
  const port = origin.port || (origin.protocol === 'https:' ? '443' : '80');
  return allowed.some((host) => host.hostname === origin.hostname && (host.port === undefined || host.port === port));
};

/**
 * PUBLIC_BASE_URL's origin; else the scheme and host of this request (as a trusted proxy reports them, or as
 * received) when that host is an allowed one, else the listen address. A Host header alone never chooses
 * where links point.
 */
export function publicOrigin(request: Request, links: LinkSettings): string {
  if (links.publicBaseUrl) return new URL(links.publicBaseUrl).origin;
  const url = new URL(request.url);
  const forwarded = currentRequest()?.forwarded;
  const proto = forwarded?.proto === 'https' || forwarded?.proto === 'http' ? forwarded.proto : url.protocol.slice(0, -1);
  let origin: URL;
  try {
    origin = new URL(`${proto}://${forwarded?.host ?? url.host}`);
  } catch {
    return links.listenOrigin; // an X-Forwarded-Host that is no host
  }
  return isAllowed(origin, links.allowedHosts) ? origin.origin : links.listenOrigin;
}

/** The absolute base of links in responses: PUBLIC_BASE_URL (a path prefix kept, no trailing slash), else publicOrigin. */
export function publicBase(request: Request, links: LinkSettings): string {
  return links.publicBaseUrl ? links.publicBaseUrl.replace(/\/+$/, '') : publicOrigin(request, links);
}
