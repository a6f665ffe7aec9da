import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { introspectionFromSchema } from 'graphql';
import { DOCS_PATH } from '../kernel/paths.ts';
import { KEY_PLACEHOLDER, NO_KEY_MESSAGE } from './graphiql-text.ts';

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

/**
 * Starts Swagger UI on the document the page names; no outside validator badge (validatorUrl). Its padlock
 * says whether a route needs a key: Swagger UI's own shows whether the key given would be sent, so the
 * routes a key is optional for (security [{bearer}, {}]) showed closed and the keyed ones open. Here a
 * route a key is optional for has none (its description states the anonymous quota "Try it out" spends,
 * and a key given in Authorize is still sent), and a keyed route's is closed.
 */
const REFERENCE_START = `'use strict';
const keyLocks = () => ({
  wrapComponents: {
    OperationSummary: (Original, system) => (props) => {
      const security = props.operationProps.get('security');
      const optional = security && security.some((requirement) => requirement.isEmpty());
      const shown = optional ? props.operationProps.set('security', security.filter((requirement) => requirement.isEmpty())) : props.operationProps;
      return system.React.createElement(Original, { ...props, operationProps: shown });
    },
    authorizeOperationBtn: (Original, system) => (props) => system.React.createElement(Original, { ...props, isAuthorized: true }),
  },
});
const reference = document.getElementById('reference');
window.ui = SwaggerUIBundle({
  url: reference.dataset.openapi,
  dom_id: '#reference',
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: false,
  plugins: [keyLocks],
});
`;

/**
 * Runs before the GraphiQL bundle: Monaco's editor workers load from this server (worker-src 'self')
 * instead of the blob: URLs of Yoga's own page; GraphiQL starts with the options the page carries and
 * the schema's documentation (graphiql-schema.json), so opening the page sends GraphQL nothing: no
 * introspection, which a visitor's missing key or a free or pro plan would refuse. A query run while
 * the header editor still holds the placeholder is not sent either: the result pane says what to do.
 */
const GRAPHIQL_START = `'use strict';
const workers = { editorWorkerService: 'graphiql-editor.worker.js', json: 'graphiql-json.worker.js', graphql: 'graphiql-graphql.worker.js' };
const assets = new URL('.', document.currentScript.src);
self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: (_moduleId, label) => new URL(workers[label] ?? workers.editorWorkerService, assets).href,
};
const options = JSON.parse(document.getElementById('graphiql-options').textContent);
const endpoint = new URL(options.endpoint ?? location.pathname, location.href).pathname;
const send = globalThis.fetch.bind(globalThis);
globalThis.fetch = (input, init) => {
  const request = new Request(input, init);
  const authorization = request.headers.get('authorization') ?? '';
  if (new URL(request.url).pathname !== endpoint || (authorization && !authorization.includes(${JSON.stringify(KEY_PLACEHOLDER)}))) return send(request);
  const message = ${JSON.stringify(NO_KEY_MESSAGE)};
  return Promise.resolve(Response.json({ errors: [{ message, extensions: { code: 'MISSING_API_KEY' } }] }));
};
const schema = fetch(new URL('graphiql-schema.json', assets)).then((r) => r.json());
addEventListener('DOMContentLoaded', async () => {
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), { ...options, schema: await schema });
});
`;

const ASSETS = {
  'swagger-ui-bundle.js': { type: JS, load: swaggerUiFile('swagger-ui-bundle.js') },
  'swagger-ui.css': { type: CSS, load: swaggerUiFile('swagger-ui.css') },
  'favicon-32x32.png': { type: 'image/png', load: swaggerUiFile('favicon-32x32.png') },
  'reference.js': { type: JS, load: async () => REFERENCE_START },
  'graphiql-start.js': { type: JS, load: async () => GRAPHIQL_START },
  // The documentation of every type and field, as introspection answers it (the printed schema is public too).
  'graphiql-schema.json': {
    type: 'application/json; charset=utf-8',
    load: async () => JSON.stringify(introspectionFromSchema((await import('../graphql/schema.ts')).schema, { descriptions: true })),
  },
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
