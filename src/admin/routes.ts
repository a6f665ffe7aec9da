import * as z from 'zod';
import { notFound } from '../errors/api-error.ts';
import { Router } from '../rest/router.ts';
import { readJsonBody } from '../rest/json-body.ts';
import { issueApiKey, revokeApiKey } from '../auth/api-key-store.ts';
import type { Services } from '../services.ts';
import { requireAdminToken } from './admin-token.ts';

export const ADMIN_BASE = '/admin/v1';

const plans = ['free', 'pro', 'business', 'enterprise'] as const;
const uuid = z.string().uuid('must be a UUID');

const createOrgBody = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters'),
  plan: z.enum(plans, { message: `must be one of ${plans.join(', ')}` }),
});

const createKeyBody = z.object({
  org_id: uuid,
  environment: z.enum(['live', 'test']).default('live'),
  bi_enabled: z.boolean().default(false),
  org_context: z.boolean().default(true),
  name: z.string().max(200).optional(),
});

/**
 * Operator API for organisations and keys, guarded by the admin token. Hand-written rather than
 * SOFA-generated: it is not part of the product API and must not appear in its schema.
 */
export function createAdminRouter(services: Services) {
  const { prisma } = services.db;
  const guarded =
    (fn: (request: Request, params: Record<string, string>) => Promise<Response>) =>
    async (request: Request, params: Record<string, string>) => {
      await requireAdminToken(services, request);
      return fn(request, params);
    };

  return new Router(ADMIN_BASE)
    .on(
      'POST',
      '/orgs',
      guarded(async (request) => {
        const body = await readJsonBody(request, createOrgBody);
        const org = await prisma.organization.create({ data: body, select: { id: true, name: true, plan: true } });
        return Response.json(org, { status: 201 });
      }),
    )
    .on(
      'GET',
      '/orgs/:id',
      guarded(async (_request, params) => {
        const id = uuid.safeParse(params.id);
        const org = id.success
          ? await prisma.organization.findUnique({
              where: { id: id.data },
              select: {
                id: true,
                name: true,
                plan: true,
                created_at: true,
                api_keys: {
                  select: {
                    id: true,
                    prefix: true,
                    environment: true,
                    plan: true,
                    bi_enabled: true,
                    org_context: true,
                    created_at: true,
                    last_used_at: true,
                    revoked_at: true,
                  },
                },
              },
            })
          : null;
        if (!org) throw notFound('Organization', `no organization with id ${params.id}`);
        return Response.json(org);
      }),
    )
    .on(
      'POST',
      '/keys',
      guarded(async (request) => {
        const body = await readJsonBody(request, createKeyBody);
        const issued = await issueApiKey(prisma, body.org_id, body);
        if (!issued) throw notFound('Organization', `org_id: no organization with id ${body.org_id}`);
        return Response.json(issued, { status: 201 });
      }),
    )
    .on(
      'DELETE',
      '/keys/:id',
      guarded(async (_request, params) => {
        const id = uuid.safeParse(params.id);
        const key = id.success ? await revokeApiKey(prisma, services.keys, id.data) : undefined;
        if (!key) throw notFound('API key', `no API key with id ${params.id}`);
        return Response.json(key);
      }),
    );
}
