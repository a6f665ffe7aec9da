import type { Prisma } from '../generated/prisma/client.ts';
import { currentRequest } from '../observability/request-context.ts';

/**
 * The audit-log row of an action a key took on its organisation's data (spec 6): written by the
 * service, never delivered to clients. Create it through the caller's scoped client, in the same
 * transaction as the change it records, so neither exists without the other.
 */
export function auditEntry(
  caller: { orgId: string; keyId: string },
  event: string,
  subject: { type: string; id: string },
  data: Prisma.InputJsonValue,
): Prisma.AuditLogUncheckedCreateInput {
  return {
    org_id: caller.orgId,
    event,
    actor_key_id: caller.keyId,
    subject_type: subject.type,
    subject_id: subject.id,
    data,
    request_id: currentRequest()?.id ?? null,
  };
}
