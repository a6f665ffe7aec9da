import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GraphQLError, parse, print } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { currentRequest } from '../observability/request-context.ts';
import type { Plan } from '../auth/caller.ts';

export const TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));

/** Plans that may run any query; the others run only the approved templates (spec 8). */
export const AD_HOC_PLANS: ReadonlySet<Plan> = new Set(['business', 'enterprise']);

export interface ApprovedOperation {
  name: string;
  /** The template as written in templates/<name>.graphql. */
  text: string;
  /** SHA-256 (hex) of `text`: the persisted-operation id clients may send instead of the text. */
  sha256: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
// Whitespace, commas and comments do not make a different query.
const canonical = (text: string) => print(parse(text));

export function loadApprovedOperations(dir = TEMPLATES_DIR): ApprovedOperation[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((file) => {
      const text = readFileSync(`${dir}/${file}`, 'utf8');
      return { name: file.replace(/\.graphql$/, ''), text, sha256: sha256(text) };
    });
}

const rejection = (code: string, message: string, details: string, status: number) =>
  new GraphQLError(message, { extensions: { code, details, http: { status } } });

/**
 * GraphQL access by plan. Every plan may send an approved template by its hash (persisted
 * operation: extensions.persistedQuery.sha256Hash or documentId). Free and pro plans may run
 * only those templates, sent as hash or as their text; business and enterprise run any query.
 */
export function useApprovedOperations(operations: ApprovedOperation[]): Plugin[] {
  const byHash = new Map(operations.map((op) => [op.sha256, op]));
  const canonicalTexts = new Set(operations.map((op) => canonical(op.text)));
  const planOfRequest = () => {
    const caller = currentRequest()?.caller;
    return caller?.kind === 'key' ? caller.plan : 'free';
  };
  return [
    usePersistedOperations({
      getPersistedOperation: (hash) => byHash.get(hash)?.text ?? null,
      // Text queries are allowed here and checked against the templates below, after the hash (if any) is resolved.
      allowArbitraryOperations: true,
      customErrors: {
        notFound: {
          message: 'No approved query template has this hash (GET the templates from the API documentation)',
          extensions: {
            code: 'PERSISTED_QUERY_NOT_FOUND',
            http: { status: 400 },
            details: 'extensions.persistedQuery.sha256Hash: not the hash of an approved query template',
          },
        },
        keyNotFound: {
          message: 'The persisted operation id is missing',
          extensions: {
            code: 'PERSISTED_QUERY_ID_MISSING',
            http: { status: 400 },
            details: 'extensions.persistedQuery.sha256Hash: is required (or documentId), or send the query text',
          },
        },
      },
    }),
    {
      onParams({ params }) {
        const plan = planOfRequest();
        if (AD_HOC_PLANS.has(plan) || typeof params.query !== 'string') return;
        let text: string;
        try {
          text = canonical(params.query);
        } catch {
          return; // Yoga answers the syntax error itself.
        }
        if (!canonicalTexts.has(text)) {
          throw rejection(
            'OPERATION_NOT_APPROVED',
            `The ${plan} plan may run only the approved query templates (${operations.map((o) => o.name).join(', ')}); ad-hoc queries need the business or enterprise plan`,
            `query: not one of the approved query templates of the ${plan} plan (send a template's text or its hash; the business and enterprise plans run any query)`,
            403,
          );
        }
      },
    },
  ];
}
