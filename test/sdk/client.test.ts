import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClient,
  cursorPages,
  FactorLookupDocument,
  type LcfClient,
  odataPages,
  offsetPages,
  OrganizationOverviewDocument,
  type SignedCertificate,
  verifyCertificate,
  verifyWebhook,
} from '../../sdk/index.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { enqueueWebhookEvent } from '../../src/webhooks/events.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { startReceiver, type Receiver } from '../webhooks/support.ts';

// The SDK as a customer uses it: over HTTP against a served app, an enterprise organisation's key
// (with BI access, for OData), the webhook receiver on 127.0.0.1.
let t: TestApp;
let base: string;
let org: { id: string };
let client: LcfClient;
let receiver: Receiver;

const LAPTOP = { brand: 'Dell', model: 'Latitude 5400', country: 'DE' };
const SERIALS = ['SDK-1', 'SDK-2', 'SDK-3', 'SDK-4', 'SDK-5'];

beforeAll(async () => {
  t = await createTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  base = await t.listen();
  receiver = await startReceiver();
  org = await t.createOrg('enterprise', 'SDK Corp');
  client = createClient({ baseUrl: base, apiKey: (await t.createKey(org.id, { bi_enabled: true })).key, userAgent: 'sdk-test/1' });
  const imported = await client.POST('/v1/assets', { body: { assets: SERIALS.map((serial_number) => ({ ...LAPTOP, serial_number })) } });
  expect(imported.data?.created, JSON.stringify(imported.error)).toBe(SERIALS.length);
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

describe(`the SDK against a served app on ${TEST_DATABASE_KIND}`, () => {
  it('calls REST routes typed by the generated document: a footprint and a batch', async () => {
    const { data, response } = await client.GET('/v1/footprint', { params: { query: LAPTOP } });
    expect(response.status).toBe(200);
    expect(data!.total_kg_co2e).toBeGreaterThan(0);
    expect(data!.calculation_id).toMatch(/^[0-9a-f-]{36}$/);

    const batch = await client.POST('/v1/footprint/batch', { body: { products: [LAPTOP, { ...LAPTOP, country: 'XX' }] } });
    expect(batch.data).toMatchObject({ total: 2, successful: 1 });
    expect(batch.data!.results[1]).toEqual({ index: 1, error: expect.stringMatching(/unknown region code 'XX'/) });
  });

  it('refuses with the error body: no key is 401 MISSING_API_KEY', async () => {
    const anonymous = createClient({ baseUrl: base });
    const { error, response } = await anonymous.GET('/v1/webhooks/deliveries');
    expect(response.status).toBe(401);
    expect(error).toMatchObject({ code: 'MISSING_API_KEY' });
  });

  it('runs the typed template documents over GraphQL by their documentId, for a pro key too, and pages a connection by cursor', async () => {
    const pro = await t.createOrg('pro', 'SDK Pro');
    const sent: Record<string, unknown>[] = [];
    const recording = (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      return request
        .clone()
        .text()
        .then((body) => {
          if (request.url.endsWith('/v1/graphql')) sent.push(JSON.parse(body));
          return fetch(request);
        });
    };
    const proClient = createClient({ baseUrl: base, apiKey: (await t.createKey(pro.id)).key, fetch: recording });
    const factor = await proClient.graphql(FactorLookupDocument, { regionCode: 'DE' });
    expect(factor.factorByRegion.value).toBeGreaterThan(0);
    // One request, by the template's id (no query text).
    expect(sent).toEqual([{ documentId: expect.stringMatching(/^[0-9a-f]{64}$/), variables: { regionCode: 'DE' } }]);

    // An ad hoc document (an enterprise key may send any): not known by id, so sent as text, and as text only from then on.
    const adHoc = parse('query SdkAdHoc { assetPage(limit: 1) { total } }') as TypedDocumentNode<
      { assetPage: { total: number } },
      Record<string, never>
    >;
    const enterprise = createClient({ baseUrl: base, apiKey: (await t.createKey(org.id)).key, fetch: recording });
    sent.length = 0;
    expect((await enterprise.graphql(adHoc)).assetPage.total).toBe(SERIALS.length);
    expect((await enterprise.graphql(adHoc)).assetPage.total).toBe(SERIALS.length);
    expect(sent.map((body) => Object.keys(body)[0])).toEqual(['documentId', 'query', 'query']);

    const pages = [];
    for await (const page of cursorPages(
      (after) => client.graphql(OrganizationOverviewDocument, { first: 2, after }),
      (page) => (page.assets.pageInfo.hasNextPage ? page.assets.pageInfo.endCursor : null),
    ))
      pages.push(page);
    expect(pages.map((page) => page.assets.edges.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((page) => page.assets.edges.map((edge) => edge.node.serial_number)).sort()).toEqual(SERIALS);
  });

  it('follows OData @odata.nextLink page by page', async () => {
    const url = `${base}/v1/odata/Assets?$select=serial_number&$orderby=serial_number`;
    const pages = [];
    for await (const page of odataPages<{ serial_number: string }>(client.fetch, url, { headers: { prefer: 'odata.maxpagesize=2' } }))
      pages.push(page);
    expect(pages.map((page) => page.value.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((page) => page.value.map((row) => row.serial_number))).toEqual(SERIALS);
    expect(pages[0]!['@odata.nextLink']).toMatch(new RegExp(`^${base}/v1/odata/Assets\\?`));
  });

  it('verifies a certificate offline: valid as issued, invalid with a changed figure or an unknown key', async () => {
    const { data: footprint } = await client.GET('/v1/footprint', { params: { query: LAPTOP } });
    const { data: issued } = await client.POST('/v1/certificate', { body: { calculation_id: footprint!.calculation_id! } });
    const verification = await client.fetch(issued!.verify_url, { headers: { accept: 'application/json' } });
    const certificate = (await verification.json()) as SignedCertificate & { payload: { statement: { total_kg_co2e: number } } };
    const jwks = await client.jwks();

    expect(verifyCertificate(certificate, jwks)).toEqual({ valid: true, reason: null });
    const tampered = structuredClone(certificate);
    tampered.payload.statement.total_kg_co2e += 0.01;
    expect(verifyCertificate(tampered, jwks)).toEqual({ valid: false, reason: expect.stringMatching(/signature does not match/) });
    expect(verifyCertificate({ ...certificate, key_id: 'A'.repeat(43) }, jwks)).toEqual({
      valid: false,
      reason: expect.stringMatching(/^unknown key id/),
    });
    expect(verifyCertificate({ ...certificate, certificate_number: 'LCF-0000000000' }, jwks).valid).toBe(false);
  });

  it('pages the webhook delivery log by limit and offset, and verifies the deliveries the service signed', async () => {
    const { data: endpoint } = await client.POST('/v1/webhooks/endpoints', { body: { url: `${receiver.base}/sdk` } });
    receiver.route('/sdk', endpoint!.secret);
    const scoped = t.app.services.scopes.for(org.id);
    for (let i = 0; i < 5; i++)
      await scoped.$transaction((tx) => enqueueWebhookEvent(tx, org.id, 'org.erasure.sync.completed', { sync_run_id: `run-${i}` }));
    const dispatcher = new WebhookDispatcher(t.app.services.db.prisma, t.app.services.log, {
      allowPrivateUrls: true,
      retryDelaysMs: [],
      timeoutMs: 2_000,
    });
    while ((await dispatcher.runOnce()) > 0);

    const pages = [];
    for await (const page of offsetPages((page) => client.GET('/v1/webhooks/deliveries', { params: { query: page } }), { limit: 2 }))
      pages.push(page);
    expect(pages.map((page) => [page.offset, page.deliveries.length])).toEqual([
      [0, 2],
      [2, 2],
      [4, 1],
    ]);

    const received = receiver.on('/sdk');
    expect(received).toHaveLength(5);
    const { body, headers } = received[0]!;
    const checked = verifyWebhook(endpoint!.secret, body, headers);
    expect(checked).toMatchObject({ valid: true, message: { type: 'org.erasure.sync.completed' } });
    expect(verifyWebhook(endpoint!.secret, body.replace('run-', 'ran-'), headers)).toEqual({
      valid: false,
      reason: expect.stringMatching(/no v1 signature/),
    });
    const signedAt = new Date(Number(headers['webhook-timestamp']) * 1000);
    expect(verifyWebhook(endpoint!.secret, body, headers, { now: new Date(signedAt.getTime() + 301_000) })).toEqual({
      valid: false,
      reason: expect.stringMatching(/old, more than 300 s/),
    });
    expect(
      verifyWebhook(endpoint!.secret, body, headers, { now: new Date(signedAt.getTime() + 301_000), toleranceSeconds: 600 }).valid,
    ).toBe(true);
  });
});
