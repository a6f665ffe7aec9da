import { currentRequest } from '../observability/request-context.ts';

/** One ALLOWED_HOSTS entry: a host name or address and its port; without a port, any port of that host. */
export interface AllowedHost {
  hostname: string;
  port: string | undefined;
}

/** What links in responses are built from (src/config/config.ts). */
export interface LinkSettings {
  publicBaseUrl: string | undefined;
  allowedHosts: readonly AllowedHost[];
  /** The listen address as an origin: the links of a request addressed to a host outside allowedHosts. */
  listenOrigin: string;
}

/** ALLOWED_HOSTS: comma-separated `host` or `host:port` (IPv6 in brackets). Throws naming the entry that is no host. */
export function parseAllowedHosts(text: string): AllowedHost[] {
  const entries = text.split(',').map((entry) => entry.trim()).filter(Boolean);
  if (entries.length === 0) throw new Error('expected one or more hosts, e.g. "api.example.com,localhost:3000"');
  return entries.map((entry) => {
    let url: URL | undefined;
    try {
      url = /[/?#@\\]/.test(entry) ? undefined : new URL(`http://${entry}`);
    } catch {
      url = undefined;
    }
    if (!url?.hostname) throw new Error(`"${entry}" is not a host or host:port`);
    // The URL parser drops a default port (http://h:80): the written one is kept.
    return { hostname: url.hostname, port: /^(?:\[[^\]]*\]|[^:]*):(\d+)$/.exec(entry)?.[1] };
  });
}

/** The default allow-list: the listen address and the loopback names, at the listen port. */
export function listenHosts(host: string, port: number): { allowedHosts: AllowedHost[]; listenOrigin: string } {
  const wildcard = host === '0.0.0.0' || host === '::';
  const listenHost = wildcard ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const names = [...new Set([listenHost.toLowerCase(), 'localhost', '127.0.0.1', '[::1]'])];
  return { allowedHosts: names.map((hostname) => ({ hostname, port: String(port) })), listenOrigin: `http://${listenHost}:${port}` };
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
