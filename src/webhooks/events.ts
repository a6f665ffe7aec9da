import { v7 as uuidv7 } from 'uuid';
import type { Prisma } from '../db/database.ts';
import type { OpenApiSchema } from '../kernel/openapi-types.ts';

/** The event types an endpoint can subscribe to (docs/webhooks.md lists their payloads). */
export const WEBHOOK_EVENTS = ['org.export.job.completed', 'org.export.job.failed', 'org.erasure.sync.completed'] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const EXPORT_LINKS = {
  poll_url: { type: 'string', description: 'The job, relative to the origin (GET with your API key)' },
  download_url: { type: 'string', description: 'Its download, relative to the origin (GET with your API key)' },
};

/**
 * What each event's `data` holds (docs/webhooks.md, "Events and payloads"), as an OpenAPI 3.0 schema:
 * /v1/openapi.json describes every event in `webhooks`. The enqueueWebhookEvent calls send exactly these.
 */
export const WEBHOOK_EVENT_DATA: Record<WebhookEvent, { summary: string; schema: OpenApiSchema }> = {
  'org.export.job.completed': {
    summary: 'An organisation export finished',
    schema: {
      type: 'object',
      required: ['job_id', 'status', 'bytes', 'sha256', 'total_rows', 'completed_at', 'expires_at', 'poll_url', 'download_url'],
      properties: {
        job_id: { type: 'string', format: 'uuid' },
        status: { type: 'string', enum: ['completed'] },
        bytes: { type: 'integer', description: 'Size of the ZIP' },
        sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Hex SHA-256 of the ZIP' },
        total_rows: { type: 'integer' },
        completed_at: { type: 'string', format: 'date-time' },
        expires_at: { type: 'string', format: 'date-time', description: '72 hours after completion' },
        ...EXPORT_LINKS,
      },
    },
  },
  'org.export.job.failed': {
    summary: 'An organisation export failed',
    schema: {
      type: 'object',
      required: ['job_id', 'status', 'error_code', 'error_message', 'poll_url', 'download_url'],
      properties: {
        job_id: { type: 'string', format: 'uuid' },
        status: { type: 'string', enum: ['failed'] },
        error_code: { type: 'string', description: 'The stage that failed (docs/exports.md)' },
        error_message: { type: 'string' },
        ...EXPORT_LINKS,
      },
    },
  },
  'org.erasure.sync.completed': {
    summary: 'An erasure-report sync finished',
    schema: {
      type: 'object',
      required: ['sync_run_id', 'synced', 'skipped', 'errors', 'has_more', 'continuation'],
      properties: {
        sync_run_id: { type: 'string' },
        synced: { type: 'integer', description: 'Reports processed into assets' },
        skipped: { type: 'integer', description: 'Reports already synced before' },
        errors: { type: 'integer', description: 'Reports that failed (tried again by the next sync)' },
        has_more: { type: 'boolean' },
        continuation: { type: 'string', nullable: true, description: 'Pass to POST /v1/blancco/sync for the next batch' },
      },
    },
  },
};

export const isWebhookEvent = (name: string): name is WebhookEvent => (WEBHOOK_EVENTS as readonly string[]).includes(name);

/** The webhook-id of a message: the same on every attempt of one event to one endpoint, so receivers can deduplicate. */
export const newMessageId = () => `msg_${uuidv7()}`;

/** A Prisma client, organisation-scoped or not, or the `tx` of an interactive transaction. */
export type WebhookOutboxClient = Pick<Prisma.TransactionClient, 'webhookEndpoint' | 'webhookDelivery'>;

// BigInt columns (export bytes, total_rows) have no JSON form of their own; Dates become ISO strings.
const toJson = (data: object): Prisma.InputJsonObject =>
  JSON.parse(JSON.stringify(data, (_key, value) => (typeof value === 'bigint' ? Number(value) : value)));

/**
 * Queues `type` for every active endpoint of the organisation subscribed to it: one pending first
 * attempt each, which the dispatcher delivers. Call it with the transaction that makes the change
 * the event reports (outbox pattern): the event exists exactly when the change does. Returns how
 * many deliveries were queued.
 */
export async function enqueueWebhookEvent(prisma: WebhookOutboxClient, orgId: string, type: WebhookEvent, data: object): Promise<number> {
  const endpoints = await prisma.webhookEndpoint.findMany({
    where: { org_id: orgId, active: true, deleted_at: null, events: { has: type } },
    select: { id: true },
  });
  if (endpoints.length === 0) return 0;
  // Standard Webhooks payload shape: {type, timestamp, data}.
  const payload = { type, timestamp: new Date().toISOString(), data: toJson(data) };
  const { count } = await prisma.webhookDelivery.createMany({
    data: endpoints.map((endpoint) => ({ org_id: orgId, endpoint_id: endpoint.id, message_id: newMessageId(), event: type, payload })),
  });
  return count;
}
