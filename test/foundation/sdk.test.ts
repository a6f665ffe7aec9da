import { readFile } from 'node:fs/promises';
import { generate } from '@graphql-codegen/cli';
import { describe, expect, it } from 'vitest';
import config from '../../codegen.ts';

describe('sdk/types.ts', () => {
  it('is what graphql-codegen makes of schema/schema.graphql and templates/ (run `npm run codegen`)', async () => {
    const [output] = await generate({ ...config, cwd: new URL('../../', import.meta.url).pathname, silent: true }, false);
    const committed = await readFile(new URL('../../sdk/types.ts', import.meta.url), 'utf8');
    expect(output!.content).toBe(committed);
    expect(committed).toContain('export type FactorLookupQuery');
  });
});
