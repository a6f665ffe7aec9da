import { readFileSync } from 'node:fs';
import type { TestApp } from '../support/test-app.ts';

const bearer = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
/** A day `months` months before today (UTC), inside the dashboard's year. */
export const monthsAgo = (months: number) => {
  const d = new Date();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() - months);
  return d.toISOString().slice(0, 10);
};

export interface SeededOrg {
  id: string;
  key: string;
  keyId: string;
  certificate: { id: string; certificate_number: string };
}

/**
 * An organisation with `model` laptops (and a desktop) bought over the last months, a certificate, a failed
 * export, a failed erasure sync and a failed webhook delivery: something in every part of the dashboard.
 */
export async function seedOrg(t: TestApp, name: string, model: string, country: string): Promise<SeededOrg> {
  const org = await t.createOrg('pro', name);
  const { key, id: keyId } = await t.createKey(org.id);
  const assets = [
    { brand: 'Dell', model, category: 'laptop', serial_number: `${name}-1`, country, purchase_date: monthsAgo(1) },
    { brand: 'Dell', model, category: 'laptop', serial_number: `${name}-2`, country, purchase_date: monthsAgo(3) },
    { brand: 'HP', model: `${model} Tower`, category: 'desktop', serial_number: `${name}-3`, country: 'FR', purchase_date: monthsAgo(3) },
  ];
  const imported = await t.json('/v1/assets', { method: 'POST', headers: bearer(key), body: JSON.stringify({ assets }) });
  if (imported.status !== 200 || imported.body.created !== 3) throw new Error(`import: ${JSON.stringify(imported.body)}`);
  const issued = await t.json('/v1/certificate', {
    method: 'POST',
    headers: bearer(key),
    body: JSON.stringify({ calculation_id: imported.body.assets[0].calculation_id }),
  });
  if (issued.status !== 200) throw new Error(`certificate: ${JSON.stringify(issued.body)}`);
  const prisma = t.app.services.db.prisma;
  await prisma.exportJob.create({
    data: { org_id: org.id, scope: {}, status: 'failed', error_code: 'EXPORT_WRITE_FAILED', error_message: `${name} export disk full` },
  });
  await prisma.erasureSyncRun.create({
    data: {
      org_id: org.id,
      status: 'failed',
      params: {},
      errors: 2,
      error_code: 'UPSTREAM_UNAVAILABLE',
      error_message: `${name} portal down`,
    },
  });
  const endpoint = await prisma.webhookEndpoint.create({
    data: { org_id: org.id, url: 'https://hooks.example/lcf', secret: 'whsec_x', events: ['certificate.issued'] },
  });
  await prisma.webhookDelivery.create({
    data: {
      org_id: org.id,
      endpoint_id: endpoint.id,
      message_id: `msg_${name}`,
      event: 'certificate.issued',
      payload: {},
      status: 'failed',
      response_status: 500,
      error: `${name} hook answered 500`,
    },
  });
  return { id: org.id, key, keyId, certificate: issued.body };
}

const OVERVIEW = readFileSync(new URL('../../templates/organization-overview.graphql', import.meta.url), 'utf8');

/** The organisation's figures by GraphQL's organization-overview template (a pro key runs it): what the dashboard's totals must equal. */
export async function apiOverview(t: TestApp, key: string): Promise<{ asset_count: number; total_kg_co2e: number }> {
  const res = await t.graphql(OVERVIEW, {}, key);
  if (res.status !== 200 || !res.body.data) throw new Error(`graphql: ${JSON.stringify(res.body)}`);
  return res.body.data.organization;
}

export const kgText = (n: number) => `${n.toLocaleString('en-US', { maximumFractionDigits: 2 })} kg CO2e`;
