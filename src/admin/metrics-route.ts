import { Router } from '../rest/router.ts';
import type { Services } from '../services.ts';
import { requireAdminToken } from './admin-token.ts';

export const METRICS_PATH = '/metrics';

/** GET /metrics, guarded by the admin token like the admin API. */
export function createMetricsRouter(services: Pick<Services, 'adminToken' | 'quota' | 'metrics'>): Router {
  return new Router(METRICS_PATH, { 'Cache-Control': 'no-store' }).on('GET', '/', async (request) => {
    await requireAdminToken(services, request);
    return new Response(await services.metrics.scrape(), { headers: { 'Content-Type': services.metrics.contentType } });
  });
}
