/**
 * The read-only OData v4 interface for BI tools (spec 4.7): GET /v1/odata (service document),
 * /v1/odata/$metadata (CSDL XML) and /v1/odata/{EntitySet} (JSON result with proof headers).
 * Mounted after access control, which has authenticated the key (Bearer, or Basic on these paths:
 * basic-auth.ts) and counted the request against the quota.
 */
import { keyCaller, type Access } from '../auth/access.ts';
import { currentCaller } from '../auth/access-plugin.ts';
import { ApiError } from '../errors/api-error.ts';
import { publicBase } from '../rest/public-url.ts';
import { Router } from '../rest/router.ts';
import type { Services } from '../services.ts';
import { ODATA_BASE } from '../kernel/paths.ts';
import { METADATA_XML } from './csdl.ts';
import { ENTITY_SETS, entitySetNamed } from './entity-sets.ts';
import { ODataNotImplemented, entitySetNotFound } from './errors.ts';
import { FRESHNESS_HEADER, PROOF_HASH_HEADER, PROOF_HEADER } from './proof.ts';
import { MAX_TOP, parseQuery } from './query-options.ts';
import { runEntityQuery } from './query.ts';

const JSON_TYPE = 'application/json; odata.metadata=minimal; odata.streaming=true; IEEE754Compatible=false; charset=utf-8';

/** Spec 5.7: 401 without a key, 402 without bi_enabled, 403 below enterprise (the spec orders 402 before 403). */
const BI_ACCESS: Access = { bi: true, organisation: true, plan: 'odata' };
/** Every query is recorded in the audit log of the organisation it reads: the shared demo sandbox of test keys has none to write to. */
const QUERY_ACCESS: Access = { ...BI_ACCESS, records: 'OData queries are recorded in the audit log of the organisation; use a key with organisation context' };

/** The 401 also invites Basic, which BI tools then offer. */
const missingKey = () =>
  new ApiError(401, 'MISSING_API_KEY', 'Unauthorized', 'OData needs an API key: Authorization: Bearer <key>, or HTTP Basic with the key as the password', {
    'WWW-Authenticate': 'Bearer realm="v1", Basic realm="OData", charset="UTF-8"',
  });

const metadata = () => new Response(METADATA_XML, { headers: { 'Content-Type': 'application/xml; charset=utf-8', 'Cache-Control': 'private, max-age=300' } });

export function createODataRouter(services: Services): Router {
  return new Router(ODATA_BASE, { 'OData-Version': '4.0' }, { missingKey })
    .on('GET', '/', BI_ACCESS, (request) => {
      const base = serviceRoot(services, request);
      return json({ '@odata.context': `${base}/$metadata`, value: ENTITY_SETS.map((s) => ({ name: s.name, kind: 'EntitySet', url: s.name })) }, { 'Cache-Control': 'no-store' });
    })
    .on('GET', '/$metadata', BI_ACCESS, metadata)
    .on('GET', '/:segment', QUERY_ACCESS, (request, { segment }) =>
      // $metadata percent-encoded (%24metadata) is no exact match of the route above.
      segment === '$metadata' ? metadata() : queryEntitySet(services, request, segment!),
    )
    .on('GET', '/:segment/:path', BI_ACCESS, (_request, { segment }) => {
      if (!entitySetNamed(segment!)) throw entitySetNotFound(segment!);
      throw new ODataNotImplemented('Addressing paths below an entity set ($count, keys, properties)');
    });
}

const serviceRoot = (services: Services, request: Request) => `${publicBase(request, services.config)}${ODATA_BASE}`;

const json = (body: unknown, headers: Record<string, string>) => new Response(JSON.stringify(body), { headers: { 'Content-Type': JSON_TYPE, ...headers } });

/** Option names as written ($top, not %24top); values percent-encoded (a space is %20, a + is %2B). */
const queryString = (params: URLSearchParams) => [...params].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');

/** Prefer: odata.maxpagesize=N asks for smaller (or, up to $top's maximum, larger) pages. */
function preferredPageSize(request: Request): number | undefined {
  const match = /(?:^|[,;\s])odata\.maxpagesize\s*=\s*"?(\d{1,9})"?/i.exec(request.headers.get('prefer') ?? '');
  return match ? Math.min(MAX_TOP, Math.max(1, Number(match[1]))) : undefined;
}

async function queryEntitySet(services: Services, request: Request, segment: string): Promise<Response> {
  const caller = keyCaller(currentCaller());
  const set = entitySetNamed(segment);
  if (!set) throw entitySetNotFound(segment);
  const url = new URL(request.url);
  const query = parseQuery(set, url.searchParams);
  const maxPageSize = preferredPageSize(request);
  const result = await runEntityQuery(services.scopes.forCaller(caller), caller, query, maxPageSize);

  const root = serviceRoot(services, request);
  const body = {
    '@odata.context': `${root}/$metadata#${set.name}${query.select ? `(${query.select.map((p) => p.name).join(',')})` : ''}`,
    ...(result.count === undefined ? {} : { '@odata.count': result.count }),
    value: result.rows,
    ...(result.next ? { '@odata.nextLink': `${root}/${set.name}?${queryString(result.next)}` } : {}),
  };
  return json(body, {
    'Cache-Control': 'no-store',
    [PROOF_HEADER]: result.proofId,
    [PROOF_HASH_HEADER]: result.hash,
    [FRESHNESS_HEADER]: result.freshness.toISOString(),
    ...(maxPageSize ? { 'Preference-Applied': `odata.maxpagesize=${result.pageSize}` } : {}),
  });
}
