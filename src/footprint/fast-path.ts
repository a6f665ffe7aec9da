import type { Plugin } from 'graphql-yoga';
import { currentRequest } from '../observability/request-context.ts';
import type { Services } from '../services.ts';
import type { DeviceQuery } from './device.ts';

export const FOOTPRINT_PATH = '/v1/footprint';
export const FOOTPRINT_MAX_AGE = 86_400;

type FootprintArgs = DeviceQuery & { country?: string | null };

/**
 * GET /v1/footprint is the hot path. A query string that SOFA has already parsed and validated
 * once is answered again without GraphQL: its coerced arguments are kept (keyed by the exact
 * query string) and fed to the same FootprintService, so validation, the lookup chain, the
 * engine and calculation records are shared; only SOFA's parsing and execution are skipped.
 * Access control and quotas have run before (useAccessControl).
 */
export function useFootprintFastPath(services: Services, capacity = 10_000): Plugin {
  const argsByQuery = new Map<string, FootprintArgs>();

  return {
    onRequest({ request, url, endResponse }) {
      if (request.method !== 'GET' || url.pathname !== FOOTPRINT_PATH) return;
      const args = argsByQuery.get(url.search);
      const state = currentRequest();
      if (!args || !state?.caller) return;
      const result = services.footprint.footprint(args, state.caller);
      endResponse(
        new Response(JSON.stringify(result), {
          status: 200,
          headers: {
            'Content-Type': 'application/json; charset=utf-8',
            'Cache-Control': `public, max-age=${FOOTPRINT_MAX_AGE}`,
            Vary: 'Authorization',
          },
        }),
      );
    },
    onResponse({ request, response }) {
      const state = currentRequest();
      if (response.status !== 200 || !state?.footprintArgs || request.method !== 'GET') return;
      const { search, pathname } = new URL(request.url);
      if (pathname !== FOOTPRINT_PATH) return;
      if (argsByQuery.size >= capacity) argsByQuery.delete(argsByQuery.keys().next().value!);
      argsByQuery.set(search, state.footprintArgs as FootprintArgs);
    },
  };
}
