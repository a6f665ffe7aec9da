import type { CodegenConfig } from '@graphql-codegen/cli';

// Typed documents for the approved query templates (templates/*.graphql) and the SDK types for
// clients, generated from the printed schema: `npm run codegen`.
const config: CodegenConfig = {
  schema: 'schema/schema.graphql',
  documents: 'templates/*.graphql',
  ignoreNoDocuments: true,
  generates: {
    'sdk/types.ts': {
      plugins: ['typescript-operations', 'typed-document-node'],
      config: { enumsAsTypes: true, avoidOptionals: { field: true }, scalars: { DateTime: 'string', Date: 'string', JSON: 'unknown' } },
    },
  },
};

export default config;
