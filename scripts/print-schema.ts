// Writes the printed SDL to schema/schema.graphql (checked in; a test fails when it is stale).
import { mkdir, writeFile } from 'node:fs/promises';
import { printedSchema } from '../src/graphql/schema.ts';

await mkdir('schema', { recursive: true });
await writeFile('schema/schema.graphql', printedSchema());
console.log('wrote schema/schema.graphql');
