import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { DOCS_PATH } from '../kernel/paths.ts';

// The scripts and style sheets of the API reference (swagger-ui-dist) and of GraphiQL
// (@graphql-yoga/render-graphiql), served by this server from node_modules: the pages load
// nothing from anywhere else (their Content-Security-Policy says 'self').

export const ASSETS_PATH = `${DOCS_PATH}/assets`;

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const swaggerUiFile = (name: string) => () => readFile(path.join(swaggerUiDir, name));
// 8 MB of JavaScript in string constants: imported on the first GraphiQL asset asked for, not at start.
const graphiql = () => import('@graphql-yoga/render-graphiql/graphiql');

/** Starts Swagger UI on the document the page names; no outside validator badge (validatorUrl). */
const REFERENCE_START = `'use strict';
const reference = document.getElementById('reference');
window.ui = SwaggerUIBundle({
  url: reference.dataset.openapi,
  dom_id: '#reference',
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: false,
});
`;

/**
 * Runs before the GraphiQL bundle: Monaco's editor workers load from this server (worker-src 'self')
 * instead of the blob: URLs of Yoga's own page; GraphiQL starts with the options the page carries.
 */
const GRAPHIQL_START = `'use strict';
const workers = { editorWorkerService: 'graphiql-editor.worker.js', json: 'graphiql-json.worker.js', graphql: 'graphiql-graphql.worker.js' };
const assets = new URL('.', document.currentScript.src);
self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: (_moduleId, label) => new URL(workers[label] ?? workers.editorWorkerService, assets).href,
};
addEventListener('DOMContentLoaded', () => {
  const options = JSON.parse(document.getElementById('graphiql-options').textContent);
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), options);
});
`;

const ASSETS = {
  'swagger-ui-bundle.js': { type: JS, load: swaggerUiFile('swagger-ui-bundle.js') },
  'swagger-ui.css': { type: CSS, load: swaggerUiFile('swagger-ui.css') },
  'favicon-32x32.png': { type: 'image/png', load: swaggerUiFile('favicon-32x32.png') },
  'reference.js': { type: JS, load: async () => REFERENCE_START },
  'graphiql-start.js': { type: JS, load: async () => GRAPHIQL_START },
  'graphiql.js': { type: JS, load: async () => (await graphiql()).js },
  'graphiql.css': { type: CSS, load: async () => (await graphiql()).css },
  'graphiql-editor.worker.js': { type: JS, load: async () => (await graphiql()).editorWorkerService },
  'graphiql-json.worker.js': { type: JS, load: async () => (await graphiql()).jsonWorker },
  'graphiql-graphql.worker.js': { type: JS, load: async () => (await graphiql()).graphqlWorker },
} satisfies Record<string, { type: string; load: () => Promise<string | Uint8Array> }>;

type AssetName = keyof typeof ASSETS;

export const assetUrl = (name: AssetName) => `${ASSETS_PATH}/${name}`;

/** An asset as kept in memory: gzipped only (browsers all take gzip; others get it unpacked on the way out). */
interface LoadedAsset {
  type: string;
  gzipped: Uint8Array<ArrayBuffer>;
  etag: string;
}

const loaded = new Map<string, Promise<LoadedAsset>>();

async function load(name: string): Promise<LoadedAsset> {
  const asset = ASSETS[name as AssetName];
  const body = Buffer.from(await asset.load());
  return {
    type: asset.type,
    gzipped: new Uint8Array(await promisify(gzip)(body)),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
}

/**
 * One asset, gzip-compressed for clients that accept it (the GraphiQL bundle is 5.3 MB, 1.45 MB gzipped).
 * Revalidated on every use (ETag, 304): an upgraded package shows at once. Undefined for an unknown name.
 */
export async function assetResponse(name: string, request: Request): Promise<Response | undefined> {
  if (!Object.hasOwn(ASSETS, name)) return undefined;
  let pending = loaded.get(name);
  if (!pending) {
    pending = load(name);
    loaded.set(name, pending);
    pending.catch(() => loaded.delete(name));
  }
  const asset = await pending;
  const headers: Record<string, string> = {
    ETag: asset.etag,
    'Cache-Control': 'no-cache',
    Vary: 'Accept-Encoding',
    'X-Content-Type-Options': 'nosniff',
  };
  if (request.headers.get('if-none-match') === asset.etag) return new Response(null, { status: 304, headers });
  headers['Content-Type'] = asset.type;
  if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? ''))
    return new Response(asset.gzipped, { headers: { ...headers, 'Content-Encoding': 'gzip' } });
  return new Response(new Uint8Array(await promisify(gunzip)(asset.gzipped)), { headers });
}
