import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ValidationPlugin from '@pothos/plugin-validation';
import TextInputsPlugin from '../validation/text-plugin.ts';
import { invalidInput } from '../validation/schemas.ts';
import type PrismaTypes from '../generated/pothos-types.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import type { GraphQLContext } from './context.ts';

/** REST exposure of a root field: SOFA mounts exactly the fields that declare one. */
export interface RestRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  responseStatus?: 200 | 201 | 202;
  tags?: string[];
  /** Answers callers without an API key too (spec 5.3); other routes answer them 401. OpenAPI: optional bearer. */
  open?: boolean;
  /**
   * Errors the route answers besides those its shape implies (src/rest/openapi.ts: 400, 401, 403,
   * 404 for an id, 413, 429): status -> when, with the body's OpenAPI schema if it is not ApiError.
   */
  errors?: Readonly<Partial<Record<404 | 409 | 410 | 422 | 502 | 503, string | { description: string; schema: Record<string, unknown> }>>>;
  /**
   * A list argument checked item by item: an item GraphQL would refuse (a wrongly typed or unknown
   * field, an unknown enum value, not an object) does not refuse the request; the resolver finds
   * its reason in refusedItems() (src/rest/item-refusals.ts) and answers it as that item's error.
   */
  perItemArgument?: string;
}

// The single source of truth for GraphQL, REST (SOFA) and the SDK types.
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    Date: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    Long: { Input: number; Output: number | bigint };
  };
}>({
  plugins: [PrismaPlugin, RelayPlugin, ValidationPlugin, TextInputsPlugin],
  validation: { validationError: ({ issues }) => invalidInput(issues) },
  defaultFieldNullability: false,
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
