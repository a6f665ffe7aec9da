import { it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { createTestApp } from './support/test-app.ts';
import { printedSchema } from '../src/graphql/schema.ts';
it('dump', async () => {
  const t = await createTestApp();
  const res = await t.json('/v1/openapi.json');
  writeFileSync(process.env.DUMP_TO!, JSON.stringify(res.body, null, 1));
  writeFileSync(process.env.DUMP_TO! + '.graphql', printedSchema());
  await t.close();
}, 120000);
