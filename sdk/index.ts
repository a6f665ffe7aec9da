// @lcf/sdk: the typed client of the Lifecycle Carbon Footprint Service (sdk/README.md).
export { createClient, JWKS_PATH, type ClientOptions, type LcfClient } from './src/client.ts';
export { verifyCertificate, type CertificateCheck, type Jwk, type Jwks, type SignedCertificate } from './src/certificates.ts';
export { LcfError, unwrap, type ApiResult } from './src/errors.ts';
export { GRAPHQL_PATH, requestGraphql, type VariablesOf } from './src/graphql.ts';
export type { components, operations, paths } from './src/openapi.ts';
export { cursorPages, odataPages, offsetPages, type ODataPage, type OffsetPage } from './src/pages.ts';
export { retryAfterMs, withRetry, type Fetch, type RetryOptions } from './src/retry.ts';
export { verifyWebhook, type WebhookCheck, type WebhookCheckOptions, type WebhookMessage } from './src/webhooks.ts';
export * from './graphql/graphql.ts';
