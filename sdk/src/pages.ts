import { type ApiResult, LcfError, unwrap } from './errors.ts';
import type { Fetch } from './retry.ts';

/** A page of the REST lists paged by limit and offset (webhook deliveries, export jobs, erasure sync runs). */
export interface OffsetPage {
  total: number;
  limit: number;
  offset: number;
}

/**
 * The pages of a list paged by limit and offset, from `offset` (default 0) until `total` is reached.
 * `call` requests one page, as openapi-fetch does:
 * `offsetPages((page) => client.GET('/webhooks/deliveries', { params: { query: page } }), { limit: 100 })`.
 * The next offset is the answered offset plus the answered limit (the service's, when it clamps
 * the one asked). A refusal throws LcfError.
 */
export async function* offsetPages<T extends OffsetPage>(
  call: (page: { limit?: number; offset: number }) => Promise<ApiResult<T>>,
  { limit, offset = 0 }: { limit?: number; offset?: number } = {},
): AsyncGenerator<T, void, undefined> {
  for (let next = offset; ; ) {
    const page = await unwrap(await call(limit === undefined ? { offset: next } : { limit, offset: next }));
    yield page;
    next = page.offset + page.limit;
    if (page.limit <= 0 || next >= page.total) return;
  }
}

/**
 * The pages of a list paged by cursor: `call` requests the page after `cursor` (undefined: the
 * first) and answers it, `next` reads the cursor of the page after it (null or undefined: this was
 * the last). A GraphQL connection:
 * `cursorPages((after) => client.graphql(OrganizationOverviewDocument, { first: 100, after }),
 *   (page) => (page.assets.pageInfo.hasNextPage ? page.assets.pageInfo.endCursor : null))`;
 * a REST route answers through `unwrap`: `(cursor) => client.GET(path, { params: { query: { cursor } } }).then(unwrap)`.
 */
export async function* cursorPages<T>(
  call: (cursor: string | undefined) => Promise<T>,
  next: (page: T) => string | null | undefined,
): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string>();
  for (let cursor: string | undefined; ; ) {
    const page = await call(cursor);
    yield page;
    const after = next(page);
    if (after === null || after === undefined) return;
    // A server answering the same cursor again would page forever.
    if (seen.has(after)) throw new Error(`cursorPages: the cursor ${after} came back a second time`);
    seen.add(after);
    cursor = after;
  }
}

/** A page of an OData collection. */
export interface ODataPage<T> {
  value: T[];
  '@odata.context'?: string;
  '@odata.count'?: number;
  '@odata.nextLink'?: string;
}

/**
 * The pages of an OData query (`/v1/odata/Assets?$filter=...`), following `@odata.nextLink` until a
 * page has none. `init` goes with every request, e.g. `{ headers: { prefer: 'odata.maxpagesize=500' } }`.
 * The links are absolute (docs/odata.md); one to another origin than the first request's is refused
 * rather than sent the API key. A refusal throws LcfError.
 */
export async function* odataPages<T = Record<string, unknown>>(
  fetchImpl: Fetch,
  url: string | URL,
  init: RequestInit = {},
): AsyncGenerator<ODataPage<T>, void, undefined> {
  const origin = new URL(url).origin;
  const headers = new Headers(init.headers);
  if (!headers.has('accept')) headers.set('accept', 'application/json');
  for (let link: string | undefined = String(url); link !== undefined; ) {
    if (new URL(link).origin !== origin) throw new Error(`odataPages: @odata.nextLink ${link} leaves ${origin}`);
    const response = await fetchImpl(link, { ...init, headers });
    if (!response.ok) throw await LcfError.from(response);
    const page = (await response.json()) as ODataPage<T>;
    yield page;
    link = page['@odata.nextLink'];
  }
}
