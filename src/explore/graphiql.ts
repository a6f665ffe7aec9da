import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import type { ApprovedOperation } from '../graphql/approved-operations.ts';
import { SERVICE_NAME } from '../version.ts';
import { assetUrl } from './assets.ts';
import { GRAPHIQL_POLICY, PAGE_HEADERS } from './policy.ts';
import { KEY_PLACEHOLDER } from './graphiql-text.ts';

// GraphiQL for browsers at GET /v1/graphql (Yoga's own, rendered by Yoga when Accept asks for HTML;
// API clients' GETs are unchanged). Its page loads the bundle from this server, never from a CDN.

/**
 * Variables to start each template's tab with, in the order of the tabs: first the templates that
 * run on any key, then those that take asset ids (from the organisation overview's page).
 */
const EXAMPLE_VARIABLES: Record<string, Record<string, unknown>> = {
  'factor-lookup': { regionCode: 'DE' },
  'organization-overview': { first: 10 },
  'asset-detail': { id: '<asset id>' },
  'methodology-audit': { assetId: '<asset id>' },
  'refurbishment-simulation': { assetIds: ['<asset id>'] },
};

/** The header editor's starting text: GraphQL needs a key (401 without one). */
export const AUTHORIZATION_TEMPLATE = JSON.stringify({ Authorization: `Bearer ${KEY_PLACEHOLDER}` }, null, 2);

const tabOrder = (op: ApprovedOperation) => {
  const index = Object.keys(EXAMPLE_VARIABLES).indexOf(op.name);
  return index === -1 ? Infinity : index;
};

/**
 * One tab per approved template (free and pro keys run only these), the Authorization header to fill in.
 * `variables` (read by Yoga's GraphiQL, missing from its options type) fills the variable editor of the
 * first tab, which GraphiQL leaves empty on the first load; the other tabs show theirs when opened.
 */
export function graphiqlOptions(operations: readonly ApprovedOperation[]): GraphiQLOptions & { variables?: string } {
  const tabs = [...operations]
    .sort((a, b) => tabOrder(a) - tabOrder(b))
    .map((op) => ({ query: op.text, variables: JSON.stringify(EXAMPLE_VARIABLES[op.name] ?? {}, null, 2) }));
  return {
    title: SERVICE_NAME,
    headers: AUTHORIZATION_TEMPLATE,
    isHeadersEditorEnabled: true,
    defaultEditorToolsVisibility: 'headers',
    // API keys are secrets: not kept in the browser's storage unless the user turns it on in GraphiQL's settings.
    shouldPersistHeaders: false,
    defaultTabs: tabs,
    variables: tabs[0]?.variables,
  };
}

/**
 * On a phone GraphiQL keeps its desktop layout: the result pane squeezed off the screen beside the editor,
 * and the service's name over the tabs. Below 700 px the result goes under the editor and the name away.
 */
const PHONE_LAYOUT =
  '@media (max-width:700px){.graphiql-sessions>div:has(>.graphiql-editors){flex-direction:column}.graphiql-editors,.graphiql-response{flex:1 1 0!important;min-height:14rem}.graphiql-sessions .graphiql-horizontal-drag-bar{display:none}.graphiql-logo{display:none}}';

/** JSON inside a <script> element: `<` escaped so no value can close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** Yoga's renderGraphiQL, with the bundle, its style sheet and the start script as files of this server. */
export const renderGraphiQLPage = (options: GraphiQLOptions) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>GraphiQL · ${SERVICE_NAME}</title>
<link rel="icon" type="image/png" href="${assetUrl('favicon-32x32.png')}">
<link rel="stylesheet" href="${assetUrl('graphiql.css')}">
<style>${PHONE_LAYOUT}</style>
</head><body id="body" class="no-focus-outline">
<noscript>GraphiQL needs JavaScript.</noscript>
<div id="root"></div>
<script type="application/json" id="graphiql-options">${scriptJson(options)}</script>
<script src="${assetUrl('graphiql-start.js')}"></script>
<script src="${assetUrl('graphiql.js')}"></script>
</body></html>`;

/** The GraphiQL page's security headers (Yoga's response carries only its Content-Type). */
export function useGraphiQLPageHeaders(graphqlEndpoint: string): Plugin {
  return {
    onResponse({ request, response }) {
      if (request.method !== 'GET' || new URL(request.url).pathname.replace(/\/$/, '') !== graphqlEndpoint) return;
      // HTML for browsers, JSON for API clients: caches must key on Accept.
      if (!/\baccept\b/i.test(response.headers.get('vary') ?? '')) response.headers.append('Vary', 'Accept');
      if (!response.headers.get('content-type')?.startsWith('text/html')) return;
      const headers = { ...PAGE_HEADERS, 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': GRAPHIQL_POLICY };
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    },
  };
}
