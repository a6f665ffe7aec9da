import { escapeHtml, pagePolicy } from '../rest/html.ts';
import { publicBase } from '../rest/public-url.ts';
import { DOCS_PATH, GRAPHQL_PATH, OPENAPI_PATH, REST_BASE } from '../kernel/paths.ts';
import { Router } from '../rest/router.ts';
import { PUBLIC } from '../auth/access.ts';
import { routeNotFound } from '../kernel/routes.ts';
import { CONSOLE_BASE } from '../console/routes.ts';
import type { Services } from '../services.ts';
import { SERVICE_NAME, SERVICE_VERSION } from '../version.ts';
import { assetResponse, assetUrl } from './assets.ts';
import { PAGE_HEADERS, REFERENCE_POLICY } from './policy.ts';

// Where a newcomer lands: `/` and `/v1` list the ways into the API, `/v1/docs` is the API reference
// rendered from the OpenAPI document. Open pages: no key, no quota.

const html = (body: string, policy: string) =>
  new Response(body, { headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': policy, ...PAGE_HEADERS } });

/** Swagger UI (swagger-ui-dist) on /v1/openapi.json, with "Try it out" against this server. */
const referencePage = () => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>API reference · ${SERVICE_NAME}</title>
<link rel="icon" type="image/png" href="${assetUrl('favicon-32x32.png')}">
<link rel="stylesheet" href="${assetUrl('swagger-ui.css')}">
</head><body>
<noscript>The API reference needs JavaScript; the OpenAPI document is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
<div id="reference" data-openapi="${OPENAPI_PATH}"></div>
<script src="${assetUrl('swagger-ui-bundle.js')}"></script>
<script src="${assetUrl('reference.js')}"></script>
</body></html>`;

interface Link {
  rel: string;
  path: string;
  title: string;
  description: string;
}

const LINKS: Link[] = [
  { rel: 'docs', path: DOCS_PATH, title: 'API reference', description: 'every REST route, with "Try it out"' },
  { rel: 'openapi', path: OPENAPI_PATH, title: 'OpenAPI document', description: 'OpenAPI 3.1, for client generators' },
  { rel: 'graphql', path: `${GRAPHQL_PATH}`, title: 'GraphQL', description: 'GraphiQL in a browser; POST queries with an API key' },
  { rel: 'health', path: '/healthz', title: 'Health', description: 'liveness; /readyz checks the database' },
  { rel: 'console', path: CONSOLE_BASE, title: 'Organisation console', description: "your organisation's dashboard, API keys and usage" },
];

const LANDING_STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:46rem;padding:0 1rem;color:#1b2b23}li{margin:.3rem 0}';
const LANDING_POLICY = pagePolicy(LANDING_STYLE, "'none'");

const landingPage = (links: Record<string, string>) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${SERVICE_NAME}</title>
<style>${LANDING_STYLE}</style></head><body>
<h1>${SERVICE_NAME}</h1>
<p>Lifecycle carbon footprints of IT hardware (production, transport, use, end of life; kg CO2e) and what reuse and refurbishment save. REST under ${REST_BASE}, GraphQL at ${GRAPHQL_PATH}.</p>
<ul>
${LINKS.map((l) => `<li><a href="${escapeHtml(links[l.rel])}">${l.title}</a>: ${escapeHtml(l.description)}</li>`).join('\n')}
</ul>
<p>No API key yet? On the server, <code>npx lcf quickstart</code> creates an organisation and a key and prints a first call (open routes answer without one, at the anonymous quota).</p>
</body></html>`;

/**
 * GET / and GET /v1 (and /v1/): JSON `{service, version, links}` for API clients, a page of the same links for
 * browsers (Accept: text/html). GET /v1/docs and its assets. Routes of these paths only (mounted with
 * onlyItsRoutes): everything else under /v1 stays SOFA's.
 */
export function createExploreRouter(services: Services): Router {
  const landing = (request: Request) => {
    const base = publicBase(request, services.config);
    const links = Object.fromEntries(LINKS.map((l) => [l.rel, `${base}${l.path}`]));
    const response = /text\/html/i.test(request.headers.get('accept') ?? '')
      ? html(landingPage(links), LANDING_POLICY)
      : Response.json({ service: SERVICE_NAME, version: SERVICE_VERSION, links });
    response.headers.set('Vary', 'Accept');
    return response;
  };
  return new Router('')
    .on('GET', '/', landing)
    .on('GET', REST_BASE, PUBLIC, landing)
    .on('GET', `${REST_BASE}/`, PUBLIC, landing)
    .on('GET', DOCS_PATH, PUBLIC, () => html(referencePage(), REFERENCE_POLICY))
    .on('GET', `${DOCS_PATH}/assets/:name`, PUBLIC, async (request, { name }) => {
      const response = await assetResponse(name!, request);
      if (!response)
        throw routeNotFound(
          request.method,
          `${DOCS_PATH}/assets/${name}`,
          `${DOCS_PATH}/assets/${name} is not a file of the documentation pages`,
        );
      return response;
    });
}
