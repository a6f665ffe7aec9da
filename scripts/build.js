// npm run build (run by npm install too): compiles src/ to dist/, the JavaScript that `lcf` and the
// workers run, and the SDK workspace (sdk/) to sdk/dist/; bundles the server (dist/main.js, what
// `npm start` runs) from the same sources; then writes the embedded database's seed
// (dist/pglite-seed/, src/reference/prepare-database.ts) and the reference data's hashes
// (dist/reference-data.json, src/reference/load.ts).
// Types are checked by `npm run typecheck`, not here: emitting alone takes half the time.
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const QUERY_COMPILER_FILE = 'query-compiler.wasm';
await rm(new URL('../dist/', import.meta.url), { recursive: true, force: true });
const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--noCheck'], {
  stdio: 'inherit',
});
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
// The SDK workspace (sdk/README.md): its JavaScript and declarations in sdk/dist/, what `import '@lcf/sdk'` loads.
await rm(new URL('../sdk/dist/', import.meta.url), { recursive: true, force: true });
const sdk = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'sdk/tsconfig.json', '--noCheck'], { stdio: 'inherit' });
if (sdk.status !== 0) process.exit(sdk.status ?? 1);

// Each bundled module keeps the import.meta.url its compiled file has in dist/, so the paths it
// resolves from there (templates/, data/, the seed, worker files) stay the same in the bundle.
const keepModuleUrls = {
  name: 'keep-module-urls',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async ({ path: file }) => {
      if (!file.startsWith(SRC)) return undefined;
      const source = await readFile(file, 'utf8');
      const compiled = `./${path.relative(SRC, file).replace(/\.ts$/, '.js')}`;
      return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(compiled)}, import.meta.url).href`), loader: 'ts' };
    });
    // data/ is read at run time as the compiled modules read it, not copied into the bundle.
    build.onResolve({ filter: /\/data\/.*\.json$/ }, ({ path: request, resolveDir }) => ({
      path: `./${path.relative(DIST, path.join(resolveDir, request))}`,
      external: true,
    }));
  },
};

// Prisma ships its query compiler as a base64 literal of 2.3 MB, which V8 would keep twice for the life
// of the process (in the chunk's source and as the string). The bundle reads the bytes from
// dist/query-compiler.wasm instead: the generated client's Buffer.from(wasm, 'base64') takes them
// through valueOf(), which Buffer.from documents for objects.
const queryCompilerFromFile = {
  name: 'query-compiler-from-file',
  setup(build) {
    build.onLoad({ filter: /[\\/]query_compiler_[\w.]+\.wasm-base64\.mjs$/ }, async ({ path: file }) => {
      const { wasm } = await import(pathToFileURL(file).href);
      await mkdir(DIST, { recursive: true });
      await writeFile(path.join(DIST, QUERY_COMPILER_FILE), Buffer.from(wasm, 'base64'));
      const contents = `import { readFileSync } from 'node:fs';
export const wasm = { valueOf: () => readFileSync(new URL(${JSON.stringify(`./${QUERY_COMPILER_FILE}`)}, import.meta.url)) };`;
      return { contents, loader: 'js' };
    });
  },
};

// One file per chunk instead of about 2 000 modules: resolving and reading them was most of a start
// (`npm run bench:startup`). Code reached by dynamic import() only (S3, PDF, CSV import...)
// stays in chunks loaded on first use. Packages that read files next to their own modules stay outside.
const bundle = await esbuild.build({
  write: false,
  entryPoints: { main: path.join(SRC, 'main.ts') },
  outdir: 'dist',
  chunkNames: 'main-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.10',
  sourcemap: 'linked',
  logLevel: 'warning',
  external: [
    '@electric-sql/pglite',
    'pino',
    'thread-stream',
    'piscina',
    'pdfkit',
    'fontkit',
    'swagger-ui-dist',
    '@graphql-yoga/render-graphiql',
  ],
  // CommonJS packages in an ES module bundle call require() for Node's built-ins.
  banner: {
    js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);",
  },
  plugins: [keepModuleUrls, queryCompilerFromFile],
});
// Written as ASCII: V8 keeps a module's source in memory, at two bytes a character for a whole chunk
// if one character of it (an arrow in a comment, a curly quote in a regular expression) is not
// Latin-1; escaped, at one byte. esbuild escapes strings only.
for (const file of bundle.outputFiles) {
  const text = file.path.endsWith('.js')
    ? file.text.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : file.text;
  await writeFile(file.path, text);
}

// The font files the PDF documents read (src/documents/fonts.ts) and their licences, copied out of the
// font packages: those are devDependencies holding every weight, the built service reads dist/fonts/.
const { packageFile, shippedFontFiles } = await import('../dist/documents/fonts.js');
for (const { package: pkg, file } of shippedFontFiles()) {
  const target = path.join(DIST, 'fonts', pkg, file);
  await mkdir(path.dirname(target), { recursive: true });
  await copyFile(packageFile(pkg, file), target);
}

const { PGLITE_SEED_DIR } = await import('../dist/db/prepare.js');
const { writePGliteSeed } = await import('../dist/reference/prepare-database.js');
const { createLogger } = await import('../dist/observability/logger.js');
const { writeReferenceManifest } = await import('../dist/reference/load.js');
await writePGliteSeed(PGLITE_SEED_DIR, createLogger('silent'));
await writeReferenceManifest();
