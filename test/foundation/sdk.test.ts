import { readFile } from 'node:fs/promises';
import { generate } from '@graphql-codegen/cli';
import { describe, expect, it } from 'vitest';
import config from '../../codegen.ts';

const REPO = new URL('../../', import.meta.url);

describe('sdk/', () => {
  it('is what graphql-codegen makes of schema/schema.graphql and templates/ (run `npm run codegen`)', async () => {
    const outputs: { filename: string; content: string }[] = await generate({ ...config, cwd: REPO.pathname, silent: true }, false);
    expect(outputs.map((o) => o.filename).sort()).toEqual([
      'sdk/graphql/gql.ts',
      'sdk/graphql/graphql.ts',
      'sdk/graphql/index.ts',
      'sdk/graphql/persisted-documents.json',
    ]);
    for (const output of outputs) expect(output.content, output.filename).toBe(await readFile(new URL(output.filename, REPO), 'utf8'));
    expect(outputs.find((o) => o.filename === 'sdk/graphql/graphql.ts')!.content).toContain('export type FactorLookupQuery');
  });
});
