/**
 * The read-only OData v4 interface for BI tools (spec 4.7): GET /v1/odata (service document),
 * /v1/odata/$metadata (CSDL XML), /v1/odata/{EntitySet} (JSON result with proof headers), one entity
 * by its key (/v1/odata/{EntitySet}(<guid>)) and the count (/v1/odata/{EntitySet}/$count).
 * Mounted after access control, which has authenticated the key (Bearer, or Basic on these paths:
 * basic-auth.ts) and counted the request against the quota.
 */
import { keyCaller, type Access } from '../auth/access.ts';
import { currentCaller } from '../auth/access-plugin.ts';
import { ApiError, invalidParameter } from '../errors/api-error.ts';
import { publicBase } from '../rest/public-url.ts';
import { Router } from '../rest/router.ts';
import type { Services } from '../services.ts';
import { ODATA_BASE } from '../kernel/paths.ts';
import { METADATA_XML } from './csdl.ts';
import { ENTITY_SETS, entitySetNamed, type EntitySetDef } from './entity-sets.ts';
import { ODataNotImplemented, entityNotFound, entitySetNotFound, notAcceptable } from './errors.ts';
import { FRESHNESS_HEADER, PROOF_HASH_HEADER, PROOF_HEADER } from './proof.ts';
import { countQuery, entityQuery, MAX_TOP, parseQuery } from './query-options.ts';
import { runEntityQuery, type QueryResult } from './query.ts';

const JSON_TYPE = 'application/json; odata.metadata=minimal; odata.streaming=true; IEEE754Compatible=false; charset=utf-8';

/** Spec 5.7: 401 without a key, 402 without bi_enabled, 403 below enterprise (the spec orders 402 before 403). */
const BI_ACCESS: Access = { bi: true, organisation: true, plan: 'odata' };
/** Every query (of a set, an entity or a count) is recorded in the audit log of the organisation it reads: the shared demo sandbox of test keys has none to write to. */
const QUERY_ACCESS: Access = {
  ...BI_ACCESS,
  records: 'OData queries are recorded in the audit log of the organisation; use a key with organisation context',
};

/** Its challenge, Bearer and Basic as on every OData 401, is set by the OData plugin (basic-auth.ts). */
const missingKey = () =>
  new ApiError(
    401,
    'MISSING_API_KEY',
    'Unauthorized',
    'OData needs an API key: Authorization: Bearer <key>, or HTTP Basic with the key as the password',
  );

/** $metadata; older XML clients ask for text/xml: the same document. */
function metadata(request: Request): Response {
  negotiate(request, 'application/xml', ['text/xml']);
  return new Response(METADATA_XML, {
    headers: { 'Content-Type': 'application/xml; charset=utf-8', 'Cache-Control': 'private, max-age=300' },
  });
}

export function createODataRouter(services: Services): Router {
  return new Router(ODATA_BASE, { 'OData-Version': '4.0' }, { missingKey })
    .on('GET', '/', BI_ACCESS, (request) => {
      negotiate(request, 'application/json');
      const base = serviceRoot(services, request);
      return json(
        { '@odata.context': `${base}/$metadata`, value: ENTITY_SETS.map((s) => ({ name: s.name, kind: 'EntitySet', url: s.name })) },
        { 'Cache-Control': 'no-store' },
      );
    })
    .on('GET', '/$metadata', BI_ACCESS, metadata)
    .on('GET', '/:segment', QUERY_ACCESS, (request, { segment }) => {
      // $metadata percent-encoded (%24metadata) is no exact match of the route above.
      if (segment === '$metadata') return metadata(request);
      const { set, key } = resourceOf(segment!);
      return key === undefined ? queryEntitySet(services, request, set) : readEntity(services, request, set, key);
    })
    .on('GET', '/:segment/:path', QUERY_ACCESS, (request, { segment, path }) => {
      const { set, key } = resourceOf(segment!);
      if (key === undefined && path === '$count') return countEntitySet(services, request, set);
      throw new ODataNotImplemented('Addressing paths below an entity set or entity (properties, navigation, $value, $ref)');
    });
}

/** 406 unless the Accept header admits `type` (or one of its `aliases`): no header, a matching range or a wildcard, with q above 0. */
function negotiate(request: Request, type: string, aliases: readonly string[] = []): void {
  const header = request.headers.get('accept')?.trim();
  if (!header) return;
  const types = [type, ...aliases];
  const admitted = header.split(',').some((range) => {
    const [mediaRange, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) return false;
    return mediaRange === '*/*' || types.some((t) => mediaRange === t || mediaRange === `${t.split('/')[0]}/*`);
  });
  if (!admitted) throw notAcceptable(type);
}

const KEY_SEGMENT = /^([^()]+)\((.*)\)$/s;
const GUID_KEY = /^(?:([A-Za-z_]\w*)=)?('?)([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\2$/;

/** `Assets` addresses the set; `Assets(<guid>)` or `Assets(asset_id=<guid>)` one entity of it by its key. */
function resourceOf(segment: string): { set: EntitySetDef; key?: string } {
  const keyed = KEY_SEGMENT.exec(segment);
  const name = keyed ? keyed[1]! : segment;
  const set = entitySetNamed(name);
  if (!set) throw entitySetNotFound(name);
  if (!keyed) return { set };
  const key = GUID_KEY.exec(keyed[2]!.trim());
  if (!key || (key[1] !== undefined && key[1] !== set.key)) {
    throw invalidParameter(
      'key',
      `${set.name} is addressed by its key ${set.key}, a GUID: ${set.name}(<guid>) or ${set.name}(${set.key}=<guid>), got (${keyed[2]!.slice(0, 60)})`,
    );
  }
  return { set, key: key[3]!.toLowerCase() };
}

const serviceRoot = (services: Services, request: Request) => `${publicBase(request, services.config)}${ODATA_BASE}`;

const json = (body: unknown, headers: Record<string, string>) =>
  new Response(JSON.stringify(body), { headers: { 'Content-Type': JSON_TYPE, ...headers } });

/** Option names as written ($top, not %24top); values percent-encoded (a space is %20, a + is %2B). */
const queryString = (params: URLSearchParams) => [...params].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');

/** Prefer: odata.maxpagesize=N asks for smaller (or, up to $top's maximum, larger) pages. */
function preferredPageSize(request: Request): number | undefined {
  const match = /(?:^|[,;\s])odata\.maxpagesize\s*=\s*"?(\d{1,9})"?/i.exec(request.headers.get('prefer') ?? '');
  return match ? Math.min(MAX_TOP, Math.max(1, Number(match[1]))) : undefined;
}

/** The proof headers of a query; the hash only where rows are returned. */
const proofHeaders = (result: QueryResult, { rowsReturned = true } = {}) => ({
  'Cache-Control': 'no-store',
  [PROOF_HEADER]: result.proofId,
  ...(rowsReturned ? { [PROOF_HASH_HEADER]: result.hash } : {}),
  [FRESHNESS_HEADER]: result.freshness.toISOString(),
});

async function queryEntitySet(services: Services, request: Request, set: EntitySetDef): Promise<Response> {
  const caller = keyCaller(currentCaller());
  negotiate(request, 'application/json');
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
  return json(body, { ...proofHeaders(result), ...(maxPageSize ? { 'Preference-Applied': `odata.maxpagesize=${result.pageSize}` } : {}) });
}

/** One entity by its key, read (and scoped, and recorded) as the set's query for that key: another organisation's key is as missing as an unknown one. */
async function readEntity(services: Services, request: Request, set: EntitySetDef, key: string): Promise<Response> {
  const caller = keyCaller(currentCaller());
  negotiate(request, 'application/json');
  const query = entityQuery(set, key, new URL(request.url).searchParams);
  const result = await runEntityQuery(services.scopes.forCaller(caller), caller, query);
  const entity = result.rows[0];
  if (!entity) throw entityNotFound(set, key);
  const context = `${serviceRoot(services, request)}/$metadata#${set.name}${query.select ? `(${query.select.map((p) => p.name).join(',')})` : ''}/$entity`;
  return json({ '@odata.context': context, ...entity }, proofHeaders(result));
}

/** /{Set}/$count: the number of entities (matching $filter) as text/plain, recorded like any query (the proof hash covers no rows, so none is sent). */
async function countEntitySet(services: Services, request: Request, set: EntitySetDef): Promise<Response> {
  const caller = keyCaller(currentCaller());
  negotiate(request, 'text/plain');
  const result = await runEntityQuery(services.scopes.forCaller(caller), caller, countQuery(set, new URL(request.url).searchParams));
  return new Response(String(result.count), {
    headers: { 'Content-Type': 'text/plain; charset=utf-8', ...proofHeaders(result, { rowsReturned: false }) },
  });
}
