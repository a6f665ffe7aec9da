import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMetricsRouter } from '../admin/metrics-route.ts';
import type { Database } from '../db/database.ts';
import { errorResponse, toApiError } from '../errors/render.ts';
import { writeNodeResponse } from '../kernel/node-response.ts';
import { RouteTable, unanswered } from '../kernel/routes.ts';
import type { Logger } from '../observability/logger.ts';
import { newRequestState, runWithRequest } from '../observability/request-context.ts';
import { Router } from '../rest/router.ts';
import { livenessAnswer } from '../plugins/liveness.ts';
import { readinessAnswer } from '../plugins/readiness.ts';
import type { Services } from '../services.ts';

export interface WorkerEndpointOptions {
  host: string;
  port: number;
  /** True once the worker was told to stop: /readyz answers 503 draining. */
  isStopping: () => boolean;
}

type EndpointServices = Pick<Services, 'adminToken' | 'quota' | 'metrics'> & { db: Database; log: Logger };

/**
 * `lcf worker`'s own HTTP endpoint for supervisors and scrapers: /healthz, /readyz and /metrics
 * (admin token) with the servers' bodies, so one probe and one scrape configuration serve both.
 */
export async function listenWorkerEndpoint(
  services: EndpointServices,
  { host, port, isStopping }: WorkerEndpointOptions,
): Promise<{ server: Server; address: string }> {
  const probes = new Router('', { 'Cache-Control': 'no-store' })
    .on('GET', '/healthz', livenessAnswer)
    .on('GET', '/readyz', () => readinessAnswer({ isDraining: isStopping, database: services.db, log: services.log }));
  const routes = new RouteTable();
  for (const router of [probes, createMetricsRouter(services)]) router.declareIn(routes);

  const answer = (req: IncomingMessage): Promise<Response> => {
    const state = newRequestState(services.log, req.headers['x-request-id'], req.socket.remoteAddress ?? 'unknown');
    return runWithRequest(state, async () => {
      // HEAD as GET, as the servers answer it (Node leaves the body out).
      const method = req.method === 'HEAD' || !req.method ? 'GET' : req.method;
      const { pathname } = new URL(req.url ?? '/', 'http://worker');
      const match = routes.match(method, pathname);
      try {
        if (!match?.route) throw unanswered(routes, match, method, pathname);
        return await (match.route.owner as Router).fetch(toRequest(req, method), match);
      } catch (error) {
        return errorResponse([toApiError(error)]);
      }
    });
  };

  const server = createServer((req, res) => {
    void answer(req)
      .catch((error: unknown) => errorResponse([toApiError(error)]))
      .then((response) => writeNodeResponse(res, response));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  return { server, address: `${bound.address.includes(':') ? `[${bound.address}]` : bound.address}:${bound.port}` };
}

// Its routes take GET only, without a body: method, path and headers are the whole request.
function toRequest(req: IncomingMessage, method: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  return new Request(new URL(req.url ?? '/', 'http://worker'), { method, headers });
}
