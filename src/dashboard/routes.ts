import { keyCallerOf, type KeyCaller } from '../auth/caller.ts';
import type { PrismaClient } from '../db/database.ts';
import type { Services } from '../services.ts';
import { revokeCertificate } from '../certificates/service.ts';
import { exportDownload } from '../exports/jobs.ts';
import { validate as isUuid } from 'uuid';
import { dashboardData } from './data.ts';
import { dashboardBody } from './page.ts';

/**
 * The dashboard's actions for a signed-in console session, mounted by the console's router (src/console/routes.ts),
 * which owns sign-in, CSRF checks and the page layout. Each reads through the caller's scoped client.
 */
export class Dashboard {
  constructor(private readonly services: Services) {}

  /**
   * The caller of a console session: the live key it signed in with, as the API would see it. Undefined once
   * that key is revoked (or the session predates keys in sessions): the user signs in again.
   */
  async caller(orgId: string, keyId: string | undefined, ip: string): Promise<KeyCaller | undefined> {
    if (!keyId || !isUuid(keyId)) return undefined;
    const key = await this.services.db.prisma.apiKey.findFirst({
      where: { id: keyId, org_id: orgId, revoked_at: null, environment: 'live', org_context: true },
    });
    // A live key with organisation context acts for its own organisation.
    return key ? { ...keyCallerOf(key, key.org_id), ip } : undefined;
  }

  private scoped(caller: KeyCaller): PrismaClient {
    return this.services.scopes.forCaller(caller);
  }

  async page(caller: KeyCaller, message?: string): Promise<string> {
    return dashboardBody(await dashboardData(this.services, this.scoped(caller), caller), message);
  }

  /** Through the API's revoke (POST /v1/certificate/revoke): audit-logged with the session's key as actor. */
  async revokeCertificate(caller: KeyCaller, id: string): Promise<string> {
    const certificate = await revokeCertificate({ prisma: this.scoped(caller), caller, keys: this.services.certificateKeys }, id);
    return `Certificate ${certificate.certificate_number} is revoked.`;
  }

  /** The signed URL of a completed export, as GET /v1/org/export/jobs/:id/download gives it (audit-logged there). */
  async exportUrl(caller: KeyCaller, id: string, base: string): Promise<string> {
    const download = await exportDownload({ prisma: this.scoped(caller), caller, storage: this.services.exportStorage, base }, id);
    return download.signed_url;
  }
}
