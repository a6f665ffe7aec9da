// Runs after `npm install` / `npm ci`. A development install generates the Prisma client and builds
// dist/ (scripts/generate.js, scripts/build.js). A production install (`npm ci --omit=dev`,
// `npm prune --omit=dev`) has none of the build's tools (the Prisma CLI, TypeScript, esbuild and the
// font packages are devDependencies): it builds nothing and runs the dist/ built by a full install
// beforehand (docs/operations.md, "Production install").
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const buildTools = ['node_modules/typescript/package.json', 'node_modules/esbuild/package.json', 'node_modules/.bin/prisma'];
if (buildTools.every((file) => existsSync(file))) {
  for (const script of ['scripts/generate.js', 'scripts/build.js']) {
    const { status } = spawnSync(process.execPath, [script], { stdio: 'inherit' });
    if (status !== 0) process.exit(status ?? 1);
  }
} else if (!existsSync('dist/main.js') || !existsSync('sdk/dist/index.js')) {
  console.warn(
    'Production install without dist/: `npm start` and `lcf` need the dist/ and sdk/dist/ of a full install (`npm ci` builds them); see docs/operations.md, "Production install".',
  );
}
