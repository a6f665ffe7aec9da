// Entry of the embedded database's thread run from the TypeScript sources (tests, `npm run dev`): worker
// threads do not inherit vitest's TypeScript transform and Node 20 cannot strip types, so tsx's loader is
// registered here. PGlite's modules are imported first, by Node's own resolver: through the loader's hooks they load more slowly.
await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite-socket')]);
const { register } = await import('tsx/esm/api');
register();
await import('./pglite-worker.ts');
