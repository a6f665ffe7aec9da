import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ValidationPlugin from '@pothos/plugin-validation';
import TextInputsPlugin from '../validation/text-plugin.ts';
import { invalidInput } from '../validation/schemas.ts';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import type { GraphQLField } from 'graphql';
import { accessRefusal, accessScopes, declaredAccess, type Access, type AccessScopes } from '../auth/access.ts';
import type PrismaTypes from '../generated/pothos-types.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import type { GraphQLContext } from './context.ts';

/** REST exposure of a root field: SOFA mounts exactly the fields that declare one. */
export interface RestRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  responseStatus?: 200 | 201 | 202;
  /** The operation's summary in /v1/openapi.json: what it does, in a few words. */
  summary: string;
  /** Its tags there, each one of API_TAGS (src/rest/openapi.ts). */
  tags: string[];
  /**
   * Errors the route answers besides those its shape implies (src/rest/openapi.ts: 400, 401, 403,
   * 404 for an id, 413, 429): status -> when, with the body's OpenAPI schema if it is not ApiError.
   */
  errors?: Readonly<Partial<Record<404 | 409 | 410 | 422 | 502 | 503, string | { description: string; schema: Record<string, unknown> }>>>;
  /**
   * A list argument checked item by item: an item GraphQL or a field's schema would refuse (a wrongly
   * typed, unknown or over-long field, an unknown enum value, not an object) does not refuse the
   * request, which must give the argument as a list; the resolver finds
   * its reason in refusedItems() (src/rest/item-refusals.ts) and answers it as that item's error.
   */
  perItemArgument?: string;
  /**
   * The route creates or spends (a POST): it takes an Idempotency-Key, whose repeats replay the first
   * answer (src/idempotency/; docs/api.md, "Retries and Idempotency-Key").
   */
  idempotent?: true;
  /**
   * A nullable field that answers null for a record the caller does not have (GraphQL's way: `asset(id)`):
   * over REST that null is 404 NOT_FOUND naming the route's path parameter, "<record> not found",
   * answered alike for an unknown id and another organisation's (src/rest/rest-plugin.ts). The record's name, e.g. 'Asset'.
   */
  nullIsNotFound?: string;
  /**
   * A read whose answer depends only on its arguments ('shared'), or on them and the caller's organisation
   * ('per-organisation': calculation ids), open to every caller, without path parameters: a query string
   * answered once is answered again on node:http, without Yoga and SOFA, by the field's resolver, which
   * calls rememberAnswer() with its arguments and says until when its answer holds (src/rest/fast-path.ts).
   */
  fastPath?: 'shared' | 'per-organisation';
}

// The single source of truth for GraphQL, REST (SOFA) and the SDK types.
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  AuthScopes: AccessScopes;
  DefaultAuthStrategy: 'all';
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    Date: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    Long: { Input: number; Output: number | bigint };
  };
}>({
  // Scope auth first: its check runs before the other plugins' resolver wrappers (access is refused before input is checked).
  plugins: [ScopeAuthPlugin, PrismaPlugin, RelayPlugin, ValidationPlugin, TextInputsPlugin],
  validation: { validationError: ({ issues }) => invalidInput(issues) },
  defaultFieldNullability: false,
  // Who may call each root field is its `authScopes`, an Access (src/auth/access.ts); every scope of it must hold.
  scopeAuth: {
    authScopes: (ctx) => accessScopes(ctx.caller),
    defaultStrategy: 'all',
    // The refusal of the field's whole declaration, in the order of accessRefusal (the scopes are checked one by one).
    unauthorizedError: (_parent, ctx, info) =>
      accessRefusal(fieldAccess(info.parentType.getFields()[info.fieldName]!), ctx.caller) ??
      new TypeError(`${info.parentType.name}.${info.fieldName}: refused without a refusal`),
  },
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
  },
});

builder.queryType({});
builder.mutationType({});

/** Who may call a root field: its `authScopes` declaration (throws for a field without one). */
export const fieldAccess = (field: Pick<GraphQLField<unknown, unknown>, 'name' | 'extensions'>): Access =>
  declaredAccess((field.extensions?.pothosOptions as { authScopes?: unknown } | undefined)?.authScopes, `Field ${field.name}`);
