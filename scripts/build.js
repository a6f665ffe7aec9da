// npm run build (run by npm install too): compiles src/ to dist/, the JavaScript that `npm start` and
// `lcf` run, then writes the embedded database's seed (dist/pglite-seed/, src/db/prepare.ts).
// Types are checked by `npm run typecheck`, not here: emitting alone takes half the time.
import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';

await rm(new URL('../dist/', import.meta.url), { recursive: true, force: true });
const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--noCheck'], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

const { PGLITE_SEED_DIR, writePGliteSeed } = await import('../dist/db/prepare.js');
const { createLogger } = await import('../dist/observability/logger.js');
await writePGliteSeed(PGLITE_SEED_DIR, createLogger('silent'));
