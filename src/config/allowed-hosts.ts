/** One ALLOWED_HOSTS entry: a host name or address and its port; without a port, any port of that host. */
export interface AllowedHost {
  hostname: string;
  port: string | undefined;
}

/** ALLOWED_HOSTS: comma-separated `host` or `host:port` (IPv6 in brackets). Throws naming the entry that is no host. */
export function parseAllowedHosts(text: string): AllowedHost[] {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
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
