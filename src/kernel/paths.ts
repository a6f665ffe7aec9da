/**
 * Where the API lives. Every module that builds or matches an API path takes it from here, so that
 * domain code, the CLIs and the worker never load the REST plugin (sofa-api) for a constant.
 */
export const REST_BASE = '/v1';
export const OPENAPI_PATH = `${REST_BASE}/openapi.json`;
export const GRAPHQL_PATH = `${REST_BASE}/graphql`;
export const DOCS_PATH = `${REST_BASE}/docs`;
export const ODATA_BASE = `${REST_BASE}/odata`;
