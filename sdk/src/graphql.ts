import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { LcfError } from './errors.ts';
import type { Fetch } from './retry.ts';

export const GRAPHQL_PATH = '/v1/graphql';

/** `{}` for a document without variables, else its variables. */
export type VariablesOf<V> = [V] extends [Record<string, never>] ? [variables?: V] : [variables: V];

/**
 * POSTs a typed document (sdk/types.ts: the approved templates) to /v1/graphql as its text and
 * answers its typed `data`. Every plan may send the templates as text (free and pro plans only
 * those); business and enterprise keys may send any document. A refusal, or an answer with
 * `errors`, throws LcfError (`code`: the first error's extensions.code; `body`: `{errors, data}`).
 */
export async function requestGraphql<Result, Variables>(
  fetchImpl: Fetch,
  url: string,
  document: TypedDocumentNode<Result, Variables>,
  variables?: Variables,
): Promise<Result> {
  const response = await fetchImpl(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: print(document), variables: variables ?? {} }),
  });
  const text = await response.text();
  let answer: { data?: Result | null; errors?: { message: string; extensions?: { code?: string } }[] } | undefined;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new LcfError(response.status, undefined, `HTTP ${response.status}: not a GraphQL answer`, text);
  }
  const first = answer?.errors?.[0];
  if (first || !response.ok || answer?.data == null)
    throw new LcfError(response.status, first?.extensions?.code, first?.message ?? `HTTP ${response.status}`, answer);
  return answer.data;
}
