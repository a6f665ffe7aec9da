import { randomBytes } from 'node:crypto';
import type { Prisma, PrismaClient } from '../db/database.ts';
import type { KeyCaller } from '../auth/caller.ts';
import { auditEntry } from '../audit/audit-log.ts';
import { ApiError, invalidParameter, notFound } from '../errors/api-error.ts';
import { checkUuid } from '../validation/text.ts';
import { isWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent } from './events.ts';
import { checkOutboundUrl } from '../net/url-guard.ts';

/** Endpoints an organisation may have at once (deleted ones do not count); on every plan. */
export const MAX_ACTIVE_ENDPOINTS = 10;
/** Event names one registration may list (there are fewer known events; the bound keeps a hostile list cheap). */
const MAX_EVENT_NAMES = 50;

/** The error of attempts that were not made because their endpoint was deleted. */
export const ENDPOINT_DELETED = 'endpoint deleted';

export const AUDIT_EVENTS = {
  created: 'webhook.endpoint.created',
  deleted: 'webhook.endpoint.deleted',
  secretRotated: 'webhook.endpoint.secret_rotated',
} as const;

export type WebhookEndpointRow = Prisma.WebhookEndpointGetPayload<object>;
export type WebhookDeliveryRow = Prisma.WebhookDeliveryGetPayload<object>;

export interface WebhookContext {
  /** The caller's organisation-scoped client (the demo sandbox's refuses writes itself). */
  prisma: PrismaClient;
  caller: KeyCaller;
  allowPrivateUrls: boolean;
}

/** A Standard Webhooks signing secret: `whsec_` and the base64 of 32 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const endpointNotFound = (id: string) => notFound('Webhook endpoint', `id: no webhook endpoint ${id} in this organisation`);

/** The subscribed events: all known ones when omitted; each name must be known (400 naming events[i]). */
function checkEvents(events: readonly string[] | null | undefined): WebhookEvent[] {
  if (events === null || events === undefined) return [...WEBHOOK_EVENTS];
  if (events.length === 0) throw invalidParameter('events', 'must name at least one event (omit it to receive all events)');
  if (events.length > MAX_EVENT_NAMES)
    throw invalidParameter('events', `must name at most ${MAX_EVENT_NAMES} events, got ${events.length}`);
  events.forEach((name, i) => {
    if (!isWebhookEvent(name))
      throw invalidParameter(`events[${i}]`, `unknown event '${name}'; known events: ${WEBHOOK_EVENTS.join(', ')}`);
  });
  return [...new Set(events as WebhookEvent[])];
}

export async function createEndpoint(
  ctx: WebhookContext,
  input: { url: string; events?: readonly string[] | null; description?: string | null },
): Promise<WebhookEndpointRow> {
  const { prisma, caller } = ctx;
  const events = checkEvents(input.events);
  const url = await checkOutboundUrl(input.url, ctx.allowPrivateUrls);
  const description = input.description?.trim() || null;
  return prisma.$transaction(async (tx) => {
    // Serialises registrations of one organisation, so the limit holds under concurrent requests.
    await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${caller.orgId}::uuid FOR UPDATE`;
    const active = await tx.webhookEndpoint.count({ where: { deleted_at: null } });
    if (active >= MAX_ACTIVE_ENDPOINTS) {
      throw new ApiError(
        409,
        'WEBHOOK_ENDPOINT_LIMIT',
        'Too many webhook endpoints',
        `An organisation may have at most ${MAX_ACTIVE_ENDPOINTS} active webhook endpoints; delete one first`,
      );
    }
    const endpoint = await tx.webhookEndpoint.create({
      data: { org_id: caller.orgId, url: url.href, events, description, secret: newWebhookSecret() },
    });
    await tx.auditLog.create({
      data: auditEntry(caller, AUDIT_EVENTS.created, { type: 'webhook_endpoint', id: endpoint.id }, { url: endpoint.url, events }),
    });
    return endpoint;
  });
}

export function listEndpoints(prisma: PrismaClient): Promise<WebhookEndpointRow[]> {
  return prisma.webhookEndpoint.findMany({ where: { deleted_at: null }, orderBy: [{ created_at: 'asc' }, { id: 'asc' }] });
}

/** An endpoint of the caller's organisation that is not deleted; 404 alike for missing, deleted and foreign ones. */
async function liveEndpoint(prisma: Prisma.TransactionClient, id: string): Promise<WebhookEndpointRow> {
  checkUuid('id', id);
  const endpoint = await prisma.webhookEndpoint.findFirst({ where: { id, deleted_at: null } });
  if (!endpoint) throw endpointNotFound(id);
  return endpoint;
}

/**
 * Soft delete: the row stays (its delivery log refers to it) but receives nothing more; attempts
 * still waiting are closed as failed with "endpoint deleted".
 */
export async function deleteEndpoint(ctx: WebhookContext, id: string): Promise<WebhookEndpointRow> {
  const { prisma, caller } = ctx;
  return prisma.$transaction(async (tx) => {
    const endpoint = await liveEndpoint(tx, id);
    // Guarded by deleted_at: of two concurrent deletions one updates, the other answers 404.
    const { count } = await tx.webhookEndpoint.updateMany({
      where: { id, deleted_at: null },
      data: { deleted_at: new Date(), active: false },
    });
    if (count === 0) throw endpointNotFound(id);
    await tx.webhookDelivery.updateMany({
      where: { endpoint_id: id, status: 'pending' },
      data: { status: 'failed', error: ENDPOINT_DELETED },
    });
    await tx.auditLog.create({ data: auditEntry(caller, AUDIT_EVENTS.deleted, { type: 'webhook_endpoint', id }, { url: endpoint.url }) });
    return tx.webhookEndpoint.findUniqueOrThrow({ where: { id } });
  });
}

/** A new signing secret, effective at once (also for retries still waiting): shown in this answer only. */
export async function rotateSecret(ctx: WebhookContext, id: string): Promise<WebhookEndpointRow> {
  const { prisma, caller } = ctx;
  return prisma.$transaction(async (tx) => {
    await liveEndpoint(tx, id);
    const { count } = await tx.webhookEndpoint.updateMany({ where: { id, deleted_at: null }, data: { secret: newWebhookSecret() } });
    if (count === 0) throw endpointNotFound(id);
    await tx.auditLog.create({ data: auditEntry(caller, AUDIT_EVENTS.secretRotated, { type: 'webhook_endpoint', id }, {}) });
    return tx.webhookEndpoint.findUniqueOrThrow({ where: { id } });
  });
}

export const DELIVERY_PAGE = { default: 50, max: 100 } as const;

export interface DeliveryPage {
  total: number;
  limit: number;
  offset: number;
  deliveries: WebhookDeliveryRow[];
}

/** The delivery log: every attempt, most recent first. */
export async function listDeliveries(
  prisma: PrismaClient,
  filter: { endpoint_id?: string | null; event?: string | null; limit?: number | null; offset?: number | null },
): Promise<DeliveryPage> {
  const limit = filter.limit ?? DELIVERY_PAGE.default;
  const offset = filter.offset ?? 0;
  if (limit < 1 || limit > DELIVERY_PAGE.max) throw invalidParameter('limit', `must be between 1 and ${DELIVERY_PAGE.max}, got ${limit}`);
  if (offset < 0) throw invalidParameter('offset', `must be 0 or more, got ${offset}`);
  const where: Prisma.WebhookDeliveryWhereInput = {};
  if (filter.endpoint_id != null) {
    checkUuid('endpoint_id', filter.endpoint_id);
    where.endpoint_id = filter.endpoint_id;
  }
  if (filter.event != null) {
    if (!isWebhookEvent(filter.event))
      throw invalidParameter('event', `unknown event '${filter.event}'; known events: ${WEBHOOK_EVENTS.join(', ')}`);
    where.event = filter.event;
  }
  const [deliveries, total] = await Promise.all([
    prisma.webhookDelivery.findMany({
      where,
      orderBy: [{ created_at: 'desc' }, { attempt: 'desc' }, { id: 'desc' }],
      skip: offset,
      take: limit,
    }),
    prisma.webhookDelivery.count({ where }),
  ]);
  return { total, limit, offset, deliveries };
}
