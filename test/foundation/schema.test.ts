import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { printedSchema } from '../../src/graphql/schema.ts';

describe('schema/schema.graphql', () => {
  it('is the printed Pothos schema (run `npm run schema:print` after changing the schema)', async () => {
    const committed = await readFile(new URL('../../schema/schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(printedSchema());
  });
});
