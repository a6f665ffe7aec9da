import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ApiError, invalidParameter } from '../errors/api-error.ts';
import type { ErrorCode } from '../errors/codes.ts';

/**
 * URLs the service calls on a customer's behalf (webhook endpoints, erasure consoles) must not turn
 * it into a proxy into its own network (SSRF). A URL is checked when it is registered and again on
 * every request, and each request connects only to the addresses that were checked (pinnedLookup),
 * so a DNS answer that changes in between (rebinding) cannot reach an internal address.
 * docs/webhooks.md, "Address policy (SSRF)".
 */

/** How long a host name may take to resolve before the URL counts as unresolvable. */
export const DNS_TIMEOUT_MS = 5_000;

/** Why an address is not a public one, in words that do not echo the address itself. */
function addressProblem(address: string): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() turns IPv4-mapped IPv6 (::ffff:127.0.0.1) into the IPv4 address it carries.
    parsed = ipaddr.process(address);
  } catch {
    return 'resolves to an address that cannot be checked';
  }
  const range = parsed.range();
  switch (range) {
    case 'unicast':
      return undefined;
    case 'loopback':
      return 'resolves to a loopback address';
    case 'private':
    case 'uniqueLocal':
    case 'carrierGradeNat':
      return 'resolves to a private address';
    case 'linkLocal':
      return 'resolves to a link-local address';
    default:
      // Unspecified, multicast, broadcast, reserved, documentation ranges and IPv6 forms that embed
      // an IPv4 address (NAT64, 6to4, Teredo, IPv4-translated): only global unicast is delivered to.
      return `resolves to a non-public address (${range})`;
  }
}

/** The URL of a webhook endpoint: http(s), no credentials, no fragment. Throws 400 INVALID_PARAMETER naming `field`. */
export function parseOutboundUrl(raw: string, field = 'url'): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalidParameter(field, 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidParameter(field, `scheme must be http or https, got '${url.protocol}'`);
  if (url.username || url.password) throw invalidParameter(field, 'must not contain a user name or password');
  if (url.hash) throw invalidParameter(field, 'must not contain a fragment (#…)');
  if (!url.hostname) throw invalidParameter(field, 'must name a host');
  return url;
}

export type HostResolution = { addresses: LookupAddress[] } | { refused: string };

/**
 * Every address the URL's host resolves to, or why the URL is refused: the host does not resolve,
 * or (unless `allowPrivate`) any of its addresses is not a public one — one internal address among
 * public ones is enough, since the connection could use it.
 */
export async function resolvePublicHost(url: URL, allowPrivate: boolean, timeoutMs = DNS_TIMEOUT_MS): Promise<HostResolution> {
  // URL keeps IPv6 literals in brackets; lookup() answers IP literals without asking DNS.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let timer: NodeJS.Timeout | undefined;
  let addresses: LookupAddress[];
  try {
    addresses = await Promise.race([
      lookup(host, { all: true }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      }),
    ]);
  } catch {
    return { refused: 'host could not be resolved' };
  } finally {
    clearTimeout(timer);
  }
  if (addresses.length === 0) return { refused: 'host could not be resolved' };
  if (!allowPrivate) {
    for (const { address } of addresses) {
      const problem = addressProblem(address);
      if (problem) return { refused: problem };
    }
  }
  return { addresses };
}

/**
 * The registration check: the URL's form always; its addresses unless private URLs are allowed
 * (then the host is not resolved at all: the delivery resolves it). Returns the normalised URL.
 */
export async function checkOutboundUrl(
  raw: string,
  allowPrivate: boolean,
  field = 'url',
  refusal: { code: ErrorCode; what: string } = { code: 'WEBHOOK_URL_NOT_ALLOWED', what: 'webhook URLs' },
): Promise<URL> {
  const url = parseOutboundUrl(raw, field);
  if (allowPrivate) return url;
  const resolution = await resolvePublicHost(url, false);
  if ('refused' in resolution) {
    throw new ApiError(
      400,
      refusal.code,
      `Invalid parameter '${field}'`,
      `${field}: ${resolution.refused} (${refusal.what} must resolve to public addresses)`,
    );
  }
  return url;
}

/**
 * A `lookup` for http(s).request that answers the checked addresses whatever DNS says now. All of
 * them when asked for all (Node then tries each in turn, IPv6 and IPv4), else the first.
 */
export function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as LookupFunction;
}
