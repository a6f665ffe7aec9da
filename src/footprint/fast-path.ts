import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import { authenticate } from '../auth/caller.ts';
import { subjectOf } from '../auth/access-plugin.ts';
import { rateLimitHeaders } from '../auth/quota/index.ts';
import { currentRequest, type RequestState } from '../observability/request-context.ts';
import type { Services } from '../services.ts';
import type { DeviceQuery } from './device.ts';
import { REST_BASE } from '../kernel/paths.ts';

export const FOOTPRINT_PATH = `${REST_BASE}/footprint`;
export const FOOTPRINT_MAX_AGE = 86_400;

type FootprintArgs = DeviceQuery & { country?: string | null };

declare module '../observability/request-context.ts' {
  interface RequestState {
    /** Coerced arguments of a successful GET /v1/footprint, for the fast path. */
    footprintArgs?: object;
  }
}

/**
 * GET /v1/footprint is the hot path. A query string that SOFA has already parsed and validated
 * once is answered again without Yoga and GraphQL: its coerced arguments are kept (keyed by the
 * exact query string) and fed to the same FootprintService, so validation, the lookup chain,
 * the engine and calculation records are shared; only HTTP adaptation, SOFA parsing and
 * GraphQL execution are skipped. Authentication and the quota check run as in
 * useAccessControl. Anything but the plain success case (unknown query, bad key, quota used
 * up, an error) falls through to the full pipeline, which answers it as usual; a refused
 * request consumes no quota, so checking it twice is safe.
 */
export class FootprintFastPath {
  private readonly argsByQuery = new Map<string, FootprintArgs>();

  constructor(
    private readonly services: Services,
    private readonly capacity = 10_000,
  ) {}

  /** Answers a repeated GET /v1/footprint; false when the request must go through the pipeline. */
  async tryServe(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<boolean> {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    if (req.method !== 'GET' || query < 0 || url.slice(0, query) !== FOOTPRINT_PATH) return false;
    const args = this.argsByQuery.get(url.slice(query));
    if (!args) return false;
    try {
      const caller = await authenticate(req.headers.authorization ?? null, state.ip, this.services.keys);
      const decision = await this.services.quota.check(subjectOf(caller));
      if (!decision.allowed) return false;
      const body = JSON.stringify(await this.services.footprint.footprint(args, caller));
      // Header names in lower case, as the Fetch Headers of every other answer put them on the wire.
      const headers: Record<string, string | number> = {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        'x-request-id': state.id,
      };
      for (const [name, value] of Object.entries(rateLimitHeaders(decision))) headers[name.toLowerCase()] = value;
      headers['cache-control'] = `public, max-age=${FOOTPRINT_MAX_AGE}`;
      headers.vary = 'Authorization';
      res.writeHead(200, headers);
      res.end(body);
      this.services.metrics.observeRequest('GET', FOOTPRINT_PATH, 200, state.startedAt);
      state.log.info({ method: 'GET', path: FOOTPRINT_PATH, status: 200, ms: Math.round((performance.now() - state.startedAt) * 10) / 10 }, 'request');
      return true;
    } catch {
      return false;
    }
  }

  /** Remembers the coerced arguments of each successful GET /v1/footprint (set by its resolver). */
  plugin(): Plugin {
    return {
      onResponse: ({ request, response }) => {
        const args = currentRequest()?.footprintArgs;
        if (response.status !== 200 || !args || request.method !== 'GET') return;
        const { search, pathname } = new URL(request.url);
        if (pathname !== FOOTPRINT_PATH || !search) return;
        if (this.argsByQuery.size >= this.capacity) this.argsByQuery.delete(this.argsByQuery.keys().next().value!);
        this.argsByQuery.set(search, args as FootprintArgs);
      },
    };
  }
}
