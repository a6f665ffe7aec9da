import { builder } from '../graphql/builder.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { keyCaller } from '../auth/access.ts';
import { maxChars, TEXT_LIMITS } from '../validation/text.ts';
import { WEBHOOK_EVENTS } from './events.ts';
import { openApi } from '../rest/openapi-schemas.ts';
import {
  createEndpoint,
  deleteEndpoint,
  DELIVERY_PAGE,
  listDeliveries,
  listEndpoints,
  MAX_ACTIVE_ENDPOINTS,
  rotateSecret,
  type DeliveryPage,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from './endpoints.ts';

// Webhooks (docs/webhooks.md): endpoints and the delivery log, on GraphQL and, through SOFA, REST.
// Delivery itself is the dispatcher's (dispatcher.ts), outside requests.

const LIMITS = { url: 2048, description: 500, event: 64 } as const;
const TAGS = ['Webhooks'];

/** The event types, a closed list the document states as the WebhookEventType enum. */
const EVENT = { values: { name: 'WebhookEventType', values: WEBHOOK_EVENTS, description: 'A webhook event type (docs/webhooks.md)' } };

type FieldBuilder = PothosSchemaTypes.ObjectFieldBuilder<typeof builder.$inferSchemaTypes, WebhookEndpointRow>;

// Both endpoint types share these; only the one answered at creation and rotation adds the secret.
const endpointFields = (t: FieldBuilder) => ({
  id: t.exposeID('id'),
  url: t.exposeString('url', { description: 'Where events are POSTed (normalised)' }),
  events: t.exposeStringList('events', { description: 'The event types delivered to this endpoint', ...openApi(EVENT) }),
  description: t.exposeString('description', { nullable: true }),
  active: t.exposeBoolean('active', { description: 'False once deleted' }),
  created_at: t.field({ type: 'DateTime', resolve: (row) => row.created_at }),
  deleted_at: t.field({ type: 'DateTime', nullable: true, resolve: (row) => row.deleted_at }),
});

const WebhookEndpointRef = builder.objectRef<WebhookEndpointRow>('WebhookEndpoint').implement({
  description: 'An endpoint of your organisation that receives signed webhook events. Its secret is shown only when created or rotated.',
  fields: endpointFields,
});

const WebhookEndpointWithSecretRef = builder.objectRef<WebhookEndpointRow>('WebhookEndpointWithSecret').implement({
  description:
    'A webhook endpoint with its signing secret: answered once, when created or when its secret is rotated. Store the secret now.',
  fields: (t) => ({
    ...endpointFields(t),
    secret: t.exposeString('secret', {
      description: 'Standard Webhooks signing secret (whsec_ and base64): verify the webhook-signature header with it. Not shown again.',
    }),
  }),
});

const DeliveryStatus = builder.enumType('WebhookDeliveryStatus', {
  values: {
    pending: { description: 'Waiting to be made (next_attempt_at)' },
    succeeded: { description: 'The endpoint answered 2xx' },
    failed: { description: 'Any other answer, no answer, or not made' },
  } as const,
});

const WebhookDeliveryRef = builder.objectRef<WebhookDeliveryRow>('WebhookDelivery').implement({
  description: 'One delivery attempt. The attempts of one event to one endpoint share message_id (the webhook-id header).',
  fields: (t) => ({
    id: t.exposeID('id'),
    endpoint_id: t.exposeID('endpoint_id'),
    message_id: t.exposeString('message_id', { description: 'The webhook-id header: the same on every attempt of this message' }),
    event: t.exposeString('event', openApi(EVENT)),
    attempt: t.exposeInt('attempt', { description: '1 for the first attempt, 2 for the first retry, ...' }),
    status: t.field({ type: DeliveryStatus, resolve: (row) => row.status }),
    response_status: t.exposeInt('response_status', {
      nullable: true,
      description: "The endpoint's HTTP status; null when no answer came",
    }),
    error: t.exposeString('error', { nullable: true, description: 'Why the attempt failed (short; response bodies are not kept)' }),
    duration_ms: t.exposeInt('duration_ms', { nullable: true }),
    delivered_at: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the attempt was made',
      resolve: (row) => row.delivered_at,
    }),
    next_attempt_at: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When a pending attempt is due; null otherwise',
      resolve: (row) => (row.status === 'pending' ? row.next_attempt_at : null),
    }),
    created_at: t.field({ type: 'DateTime', resolve: (row) => row.created_at }),
  }),
});

const WebhookDeliveryPageRef = builder.objectRef<DeliveryPage>('WebhookDeliveryPage').implement({
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Attempts matching the filter' }),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
    deliveries: t.expose('deliveries', { type: [WebhookDeliveryRef] }),
  }),
});

function webhookContext(ctx: GraphQLContext) {
  return { prisma: ctx.prisma, caller: keyCaller(ctx.caller), allowPrivateUrls: ctx.services.config.webhooks.allowPrivateUrls };
}

const idArg = { required: true, description: 'The webhook endpoint id (UUID)', ...maxChars(TEXT_LIMITS.id) } as const;

builder.queryFields((t) => ({
  webhookEndpoints: t.field({
    type: [WebhookEndpointRef],
    description: "Your organisation's webhook endpoints (deleted ones are not listed), oldest first. Secrets are not shown.",
    authScopes: { organisation: true },
    extensions: { rest: { method: 'GET', path: '/webhooks/endpoints', summary: 'List the webhook endpoints', tags: TAGS } },
    resolve: (_root, _args, ctx) => listEndpoints(webhookContext(ctx).prisma),
  }),
  webhookDeliveries: t.field({
    type: WebhookDeliveryPageRef,
    description: `The delivery log: every attempt to your endpoints, most recent first, ${DELIVERY_PAGE.default} per page by default and at most ${DELIVERY_PAGE.max}.`,
    authScopes: { organisation: true },
    extensions: {
      rest: { method: 'GET', path: '/webhooks/deliveries', summary: 'List webhook deliveries', tags: TAGS },
      pageSize: DELIVERY_PAGE,
    },
    args: {
      endpoint_id: t.arg.id({ description: 'Only attempts to this endpoint', ...maxChars(TEXT_LIMITS.id) }),
      event: t.arg.string({
        description: `Only this event type (${WEBHOOK_EVENTS.join(', ')})`,
        ...openApi(EVENT, maxChars(LIMITS.event)),
      }),
      limit: t.arg.int({ description: `Page size, 1 to ${DELIVERY_PAGE.max} (default ${DELIVERY_PAGE.default})` }),
      offset: t.arg.int({ description: 'Attempts to skip (default 0)' }),
    },
    resolve: (_root, args, ctx) =>
      listDeliveries(webhookContext(ctx).prisma, { ...args, endpoint_id: args.endpoint_id == null ? null : String(args.endpoint_id) }),
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: WebhookEndpointWithSecretRef,
    description:
      'Registers an endpoint for signed webhook events (Standard Webhooks). The answer carries the signing secret, shown only this once. ' +
      `The URL must be http(s) and resolve to public addresses. At most ${MAX_ACTIVE_ENDPOINTS} active endpoints per organisation.`,
    authScopes: { organisation: true, writes: true },
    extensions: {
      rest: {
        method: 'POST',
        path: '/webhooks/endpoints',
        summary: 'Register a webhook endpoint',
        responseStatus: 201,
        tags: TAGS,
        idempotent: true,
        errors: { 409: 'The organisation has the most active endpoints it may have (WEBHOOK_ENDPOINT_LIMIT)' },
      },
    },
    args: {
      url: t.arg.string({ required: true, description: 'http or https URL that receives the events', ...maxChars(LIMITS.url) }),
      events: t.arg.stringList({
        description: `Event types to receive (default: all, ${WEBHOOK_EVENTS.join(', ')})`,
        ...openApi(EVENT, maxChars(LIMITS.event)),
      }),
      description: t.arg.string({ description: 'Your note on the endpoint', ...maxChars(LIMITS.description) }),
    },
    resolve: (_root, args, ctx) => createEndpoint(webhookContext(ctx), args),
  }),
  deleteWebhookEndpoint: t.field({
    type: WebhookEndpointRef,
    description:
      'Deletes an endpoint: it receives nothing more, and attempts still waiting for it fail with "endpoint deleted". Its delivery log stays.',
    authScopes: { organisation: true, writes: true },
    extensions: { rest: { method: 'DELETE', path: '/webhooks/endpoints/:id', summary: 'Delete a webhook endpoint', tags: TAGS } },
    args: { id: t.arg.id(idArg) },
    resolve: (_root, { id }, ctx) => deleteEndpoint(webhookContext(ctx), String(id)),
  }),
  rotateWebhookSecret: t.field({
    type: WebhookEndpointWithSecretRef,
    description:
      'Replaces the signing secret of an endpoint, effective at once (also for retries still waiting). The new secret is shown only in this answer.',
    authScopes: { organisation: true, writes: true },
    extensions: {
      rest: {
        method: 'POST',
        path: '/webhooks/endpoints/:id/rotate-secret',
        summary: 'Rotate the signing secret of a webhook endpoint',
        tags: TAGS,
        idempotent: true,
      },
    },
    args: { id: t.arg.id(idArg) },
    resolve: (_root, { id }, ctx) => rotateSecret(webhookContext(ctx), String(id)),
  }),
}));
