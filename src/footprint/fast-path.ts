import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { authenticate } from '../auth/caller.ts';
import { checkQuota, giveBackQuota } from '../auth/access-plugin.ts';
import { cacheFor, currentRequest, type RequestState } from '../observability/request-context.ts';
import { compileJsonWriter, type JsonWriter } from '../graphql/json-writer.ts';
import type { RouteMatch, RouteTable } from '../kernel/routes.ts';
import { completeResponse } from '../plugins/request-lifecycle.ts';
import { observeResponse } from '../plugins/request-metrics.ts';
import type { Services } from '../services.ts';
import type { DeviceQuery } from './device.ts';
import { REST_BASE } from '../kernel/paths.ts';

export const FOOTPRINT_PATH = `${REST_BASE}/footprint`;
export const FOOTPRINT_MAX_AGE = 86_400;

/** Calculation results are public and cacheable for a day (spec 4.1); they differ by key only in calculation_id. */
export function cacheCalculation(): void {
  cacheFor(FOOTPRINT_MAX_AGE);
  currentRequest()?.successHeaders.set('Vary', 'Authorization');
}

type FootprintArgs = DeviceQuery & { country?: string | null };

declare module '../observability/request-context.ts' {
  interface RequestState {
    /** Coerced arguments of a successful GET /v1/footprint, for the fast path. */
    footprintArgs?: object;
  }
}

export interface FootprintFastPathOptions {
  /** The schema whose `footprint` query field the answers are written as (in its field order). */
  schema: GraphQLSchema;
  /** The service's route table: the answers are labelled with their route, as the pipeline's are. */
  routes: RouteTable;
  /** How many query strings are remembered. */
  capacity?: number;
}

/**
 * GET /v1/footprint is the hot path. A query string that SOFA has already parsed and validated
 * once is answered again without Yoga and GraphQL: its coerced arguments are kept (keyed by the
 * exact query string) and fed to the same FootprintService, so validation, the lookup chain,
 * the engine and calculation records are shared; only HTTP adaptation, SOFA parsing and
 * GraphQL execution are skipped. The answer is written from the `footprint` field's type
 * (compileJsonWriter), as SOFA's execution writes it. Authentication and the quota check are
 * access control's (authenticate, checkQuota), the headers, access-log line and metrics the
 * pipeline's (completeResponse, observeResponse). Anything but the plain success case (unknown
 * query, bad key, quota used up, an error) falls through to the full pipeline, which answers it as
 * usual; a refused request consumes no quota and an admitted one is given back first (giveBackQuota),
 * so the pipeline counts it once.
 */
export class FootprintFastPath {
  private readonly argsByQuery = new Map<string, FootprintArgs>();
  private readonly write: JsonWriter;
  private readonly routes: RouteTable;
  // Looked up at the first answer: routers declare their routes in the table as the pipeline mounts them.
  private route: RouteMatch | undefined;
  private readonly capacity: number;

  constructor(
    private readonly services: Services,
    { schema, routes, capacity = 10_000 }: FootprintFastPathOptions,
  ) {
    const field = schema.getQueryType()?.getFields().footprint;
    if (!field) throw new TypeError('The schema has no footprint query field');
    this.write = compileJsonWriter(field.type);
    this.routes = routes;
    this.capacity = capacity;
  }

  /** Answers a repeated GET /v1/footprint; false when the request must go through the pipeline. */
  async tryServe(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<boolean> {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    if (req.method !== 'GET' || query < 0 || url.slice(0, query) !== FOOTPRINT_PATH) return false;
    const args = this.argsByQuery.get(url.slice(query));
    if (!args) return false;
    try {
      const caller = await authenticate(req.headers.authorization ?? null, state.ip, this.services.keys);
      if (!(await checkQuota(this.services, caller)).allowed) return false;
      const body = this.write(await this.services.footprint.footprint(args, caller));
      cacheCalculation();
      state.route = this.route ??= this.routes.match('GET', FOOTPRINT_PATH);
      // Names in lower case, as the Fetch Headers of every other answer put them on the wire.
      const headers = new Map([
        ['content-type', 'application/json; charset=utf-8'],
        ['content-length', String(Buffer.byteLength(body))],
      ]);
      completeResponse(state, 'GET', FOOTPRINT_PATH, 200, headers);
      observeResponse(this.services.metrics, state, 'GET', 200);
      res.writeHead(200, Object.fromEntries(headers));
      res.end(body);
      return true;
    } catch {
      // The pipeline counts the request again: what was counted here is given back.
      await giveBackQuota(this.services, state);
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
