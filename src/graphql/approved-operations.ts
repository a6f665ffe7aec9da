import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type DocumentNode, parse, print, visit } from 'graphql';
import type { GraphQLParams, Plugin, YogaInitialContext } from 'graphql-yoga';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { printExecutableGraphQLDocument } from '@graphql-tools/documents';
import { ApiError } from '../errors/api-error.ts';
import { currentRequest } from '../observability/request-context.ts';
import type { Plan } from '../auth/caller.ts';

export const TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));

/** Plans that may run any query; the others run only the approved templates (spec 8). */
export const AD_HOC_PLANS: ReadonlySet<Plan> = new Set(['business', 'enterprise']);

export interface ApprovedOperation {
  name: string;
  /** The template as written in templates/<name>.graphql. */
  text: string;
  /**
   * The persisted-document ids (hex SHA-256) clients may send instead of the text: of `text` itself, of
   * its printed form (`print(parse(text))`, what APQ clients hash) and of graphql-codegen's client
   * preset's normalised print (`printExecutableGraphQLDocument`: sorted selections, the ids of sdk/graphql/).
   */
  ids: string[];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** An id with or without the `sha256:` prefix of the GraphQL over HTTP persisted documents (graphql-codegen's form). */
const hexOf = (id: string) => (id.startsWith('sha256:') ? id.slice('sha256:'.length) : id);

/**
 * A document as its operation is approved: printed (whitespace, commas and comments make no other
 * query) without the `__typename` selections clients add for their caches (urql, Apollo). Only a plain
 * `__typename` goes: an aliased one, or one with directives, is a selection like any other.
 */
const approvedForm = (document: DocumentNode) =>
  print(
    visit(document, {
      Field: (field) => (field.name.value === '__typename' && !field.alias && !field.directives?.length ? null : undefined),
    }),
  );

export function loadApprovedOperations(dir = TEMPLATES_DIR): ApprovedOperation[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((file) => {
      const text = readFileSync(`${dir}/${file}`, 'utf8');
      const document = parse(text);
      return {
        name: file.replace(/\.graphql$/, ''),
        text,
        ids: [sha256(text), sha256(print(document)), sha256(printExecutableGraphQLDocument(document))],
      };
    });
}

/** The id field a request used: graphql-codegen's and urql's `documentId` (body or URL), or Apollo's APQ extension. */
function persistedIdOf(params: GraphQLParams & { documentId?: unknown }, request: Request): { id: string; field: string } | null {
  if (typeof params.documentId === 'string') return { id: params.documentId, field: 'documentId' };
  // Yoga's GET parser keeps only query, variables, operationName and extensions.
  const fromUrl = request.method === 'GET' ? new URL(request.url).searchParams.get('documentId') : null;
  if (fromUrl) return { id: fromUrl, field: 'documentId' };
  const apq = apqHashOf(params);
  return apq === undefined ? null : { id: apq, field: 'extensions.persistedQuery.sha256Hash' };
}

function apqHashOf(params: GraphQLParams): string | undefined {
  const persisted = (params.extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | undefined)?.persistedQuery;
  return persisted?.version === 1 && typeof persisted.sha256Hash === 'string' ? persisted.sha256Hash : undefined;
}

/** APQ registrations of a template variant kept (oldest dropped first): each is one client library's form of a template. */
const MAX_LEARNED = 100;

/**
 * GraphQL access by plan. Every plan may send an approved template by its id (a persisted document:
 * `documentId`, or Apollo's APQ `extensions.persistedQuery`); free and pro plans may run only the
 * templates, sent by id or as their text (`__typename` selections added or not); business and
 * enterprise run any query. An APQ registration (hash and text) whose text is a template is answered
 * and remembered, so that client's next request by hash alone is found.
 */
export function useApprovedOperations(operations: ApprovedOperation[]): Plugin[] {
  const textById = new Map(operations.flatMap((op) => op.ids.map((id) => [id, op.text] as const)));
  const approvedForms = new Set(operations.map((op) => approvedForm(parse(op.text))));
  // Yoga caches the parsed document of a query text, so each text is checked once.
  const verdicts = new WeakMap<DocumentNode, boolean>();
  const isTemplate = (document: DocumentNode) => {
    let verdict = verdicts.get(document);
    if (verdict === undefined) verdicts.set(document, (verdict = approvedForms.has(approvedForm(document))));
    return verdict;
  };
  // Learned APQ registrations, oldest first.
  const learned = new Map<string, string>();
  const learn = (hash: string, text: string) => {
    if (learned.size >= MAX_LEARNED) learned.delete(learned.keys().next().value!);
    learned.set(hash, text);
  };
  const planOfRequest = () => {
    const caller = currentRequest()?.caller;
    return caller?.kind === 'key' ? caller.plan : 'free';
  };
  return [
    usePersistedOperations({
      extractPersistedOperationId: (params, request) => persistedIdOf(params, request)?.id ?? null,
      getPersistedOperation: (id) => textById.get(hexOf(id)) ?? learned.get(hexOf(id)) ?? null,
      // Text queries are allowed here and checked against the templates below, once parsed.
      allowArbitraryOperations: true,
      customErrors: {
        notFound: ({ params, request }) => {
          const field = persistedIdOf(params, request)?.field;
          // The message is APQ's: urql and Apollo Client send the query text after exactly this answer.
          return new ApiError(
            400,
            'PERSISTED_QUERY_NOT_FOUND',
            'PersistedQueryNotFound',
            `${field}: not the hash of an approved query template`,
          );
        },
        keyNotFound: () =>
          new ApiError(
            400,
            'PERSISTED_QUERY_ID_MISSING',
            'The query, or the id of a persisted query template, is missing',
            'query: is required, or a persisted template id in documentId or extensions.persistedQuery.sha256Hash',
          ),
      },
    }),
    {
      onParse() {
        // Thrown, not set as the parse result: Yoga would cache a refusal for the query text, which other plans may run.
        return ({ result, context }) => {
          if (result === null || result instanceof Error) return; // Yoga answers the syntax error itself.
          const { params } = context as unknown as YogaInitialContext;
          const hash = apqHashOf(params);
          // An APQ registration: the client sends the text with the hash it computed of it.
          if (
            hash !== undefined &&
            typeof params.query === 'string' &&
            !textById.has(hash) &&
            !learned.has(hash) &&
            isTemplate(result) &&
            sha256(params.query) === hash
          ) {
            learn(hash, params.query);
          }
          const plan = planOfRequest();
          if (AD_HOC_PLANS.has(plan) || isTemplate(result)) return;
          throw new ApiError(
            403,
            'OPERATION_NOT_APPROVED',
            `The ${plan} plan may run only the approved query templates (${operations.map((o) => o.name).join(', ')}); ad-hoc queries need the business or enterprise plan`,
            `query: not one of the approved query templates of the ${plan} plan (send a template's text or its id; the business and enterprise plans run any query)`,
          );
        };
      },
    },
  ];
}
