import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import createOpenApiClient, { type Client } from 'openapi-fetch';
import type { Jwks } from './certificates.ts';
import { LcfError } from './errors.ts';
import { GRAPHQL_PATH, requestGraphql, type VariablesOf } from './graphql.ts';
import { type paths, serverPath } from './openapi.ts';
import { type Fetch, type RetryOptions, withRetry } from './retry.ts';

export const JWKS_PATH = '/.well-known/jwks.json';

export interface ClientOptions {
  /** The service's address, e.g. https://lcf.example.com (without /v1; a path prefix is kept). */
  baseUrl: string;
  /** The API key (`svc_live_…` or `svc_test_…`), sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** The fetch to send with (default globalThis.fetch). */
  fetch?: Fetch;
  /** Sent as User-Agent, e.g. `my-erp-sync/2.1`. */
  userAgent?: string;
  /** Retrying 429 and 503 answers (withRetry); false sends every request once. Default: withRetry's defaults. */
  retry?: RetryOptions | false;
}

export interface LcfClient extends Client<paths, 'application/json'> {
  /** The service's address as given. */
  readonly baseUrl: string;
  /**
   * fetch with the key, User-Agent and retries, for routes outside the REST document (OData, /verify, PDFs): a path
   * (`/v1/odata/Assets`) is taken from baseUrl; the key is sent to baseUrl's origin only.
   */
  readonly fetch: Fetch;
  /** Runs a typed GraphQL document (sdk/graphql/) and answers its data (see requestGraphql). */
  graphql<Result, Variables>(document: TypedDocumentNode<Result, Variables>, ...variables: VariablesOf<Variables>): Promise<Result>;
  /** The service's public keys (/.well-known/jwks.json), fetched once. */
  jwks(): Promise<Jwks>;
}

/**
 * A typed client of the service: openapi-fetch's GET, POST, ... over the REST paths of
 * sdk/openapi.json (relative to its server: the origin), GraphQL documents, and the authorised fetch.
 */
export function createClient(options: ClientOptions): LcfClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const origin = new URL(base).origin;
  const send = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const authorised: Fetch = (input, init) => {
    const request = new Request(input, init);
    // The key goes to the service only, never to another host a URL names (a signed storage link, a webhook receiver).
    const ours = new URL(request.url).origin === origin;
    if (options.apiKey && ours && !request.headers.has('authorization')) request.headers.set('Authorization', `Bearer ${options.apiKey}`);
    if (options.userAgent) request.headers.set('User-Agent', options.userAgent);
    return send(request);
  };
  const retrying = options.retry === false ? authorised : withRetry(authorised, options.retry);
  const fetchImpl: Fetch = (input, init) => retrying(typeof input === 'string' && input.startsWith('/') ? `${base}${input}` : input, init);
  let jwks: Promise<Jwks> | undefined;
  const rest = createOpenApiClient<paths, 'application/json'>({
    baseUrl: `${base}${serverPath}`,
    fetch: (request: Request) => fetchImpl(request),
  });
  return Object.assign(rest, {
    baseUrl: base,
    fetch: fetchImpl,
    graphql: <Result, Variables>(document: TypedDocumentNode<Result, Variables>, ...[variables]: VariablesOf<Variables>) =>
      requestGraphql(fetchImpl, `${base}${GRAPHQL_PATH}`, document, variables),
    jwks: () =>
      (jwks ??= fetchImpl(`${base}${JWKS_PATH}`)
        .then(async (response) => {
          if (!response.ok) throw await LcfError.from(response);
          return (await response.json()) as Jwks;
        })
        .catch((error: unknown) => {
          jwks = undefined;
          throw error;
        })),
  });
}
