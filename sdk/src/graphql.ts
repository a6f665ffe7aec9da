import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { LcfError } from './errors.ts';
import type { Fetch } from './retry.ts';

export const GRAPHQL_PATH = '/v1/graphql';

/** `{}` for a document without variables, else its variables. */
export type VariablesOf<V> = [V] extends [Record<string, never>] ? [variables?: V] : [variables: V];

/** Documents the server did not know by their id (not a template): sent as text from then on. */
const notPersisted = new WeakSet<object>();

/** The persisted-document id of a document: the SHA-256 (hex) of its graphql-js print, which the server accepts for its templates. */
async function documentIdOf(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

type Answer<Result> = { data?: Result | null; errors?: { message: string; extensions?: { code?: string } }[] };

/**
 * POSTs a typed document (sdk/graphql/: the approved templates) to /v1/graphql and answers its
 * typed `data`. It is sent by its `documentId` first (a template's id: a smaller request, and what
 * free and pro keys may send); a document the server does not know by id (an ad hoc query of a
 * business or enterprise key) is sent as its text, then and from then on. A refusal, or an answer
 * with `errors`, throws LcfError (`code`: the first error's extensions.code; `body`: `{errors, data}`).
 */
export async function requestGraphql<Result, Variables>(
  fetchImpl: Fetch,
  url: string,
  document: TypedDocumentNode<Result, Variables>,
  variables?: Variables,
): Promise<Result> {
  const text = print(document);
  const send = async (request: { documentId: string } | { query: string }) => {
    const response = await fetchImpl(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ ...request, variables: variables ?? {} }),
    });
    const body = await response.text();
    try {
      return { response, body, answer: JSON.parse(body) as Answer<Result> | undefined };
    } catch {
      throw new LcfError(response.status, undefined, `HTTP ${response.status}: not a GraphQL answer`, body);
    }
  };
  let sent = notPersisted.has(document) ? undefined : await send({ documentId: await documentIdOf(text) });
  if (!sent || sent.answer?.errors?.[0]?.extensions?.code === 'PERSISTED_QUERY_NOT_FOUND') {
    notPersisted.add(document);
    sent = await send({ query: text });
  }
  const { response, answer } = sent;
  const first = answer?.errors?.[0];
  if (first || !response.ok || answer?.data == null)
    throw new LcfError(response.status, first?.extensions?.code, first?.message ?? `HTTP ${response.status}`, answer);
  return answer.data;
}
