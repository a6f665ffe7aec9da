import type { CodegenConfig } from '@graphql-codegen/cli';

const scalars = { DateTime: 'string', Date: 'string', JSON: 'unknown' };

// Typed documents for the approved query templates (templates/*.graphql), the SDK's, generated from
// the printed schema: `npm run codegen`.
const config: CodegenConfig = {
  schema: 'schema/schema.graphql',
  documents: 'templates/*.graphql',
  ignoreNoDocuments: true,
  generates: {
    // graphql-codegen's client preset with persisted documents: typed documents that carry their id
    // (`__meta__.hash`) and persisted-documents.json, the ids the server accepts as `documentId`
    // (the server computes the same ids from templates/; docs/api.md, "GraphQL").
    'sdk/graphql/': {
      preset: 'client',
      presetConfig: { persistedDocuments: true, fragmentMasking: false },
      config: { enumsAsTypes: true, avoidOptionals: { field: true }, scalars, useTypeImports: true, emitLegacyCommonJSImports: false },
    },
  },
};

export default config;
