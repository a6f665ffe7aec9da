import { v7 as uuidv7 } from 'uuid';
import type { Prisma } from '../db/database.ts';

/** The event types an endpoint can subscribe to (docs/webhooks.md lists their payloads). */
export const WEBHOOK_EVENTS = ['org.export.job.completed', 'org.export.job.failed', 'org.erasure.sync.completed'] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

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
