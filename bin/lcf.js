#!/usr/bin/env node
// The `lcf` command: the compiled JavaScript in dist/ (`npm run build`, also run by `npm install`).
try {
  await import('../dist/cli/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli/main.js')) throw error;
  console.error('lcf: dist/ is missing: run `npm run build` (npm install runs it too)');
  process.exit(1);
}
