import type { IncomingMessage, ServerResponse } from 'node:http';
import { newRequestState, runWithRequest, type RequestState } from './observability/request-context.ts';
import { createPipeline } from './pipeline.ts';
import type { RouteTable } from './kernel/routes.ts';
import type { Services } from './services.ts';

export interface App {
  /** Node http handler. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** In-process fetch, for tests and benchmarks. */
  fetch(request: Request, options?: { ip?: string }): Promise<Response>;
  services: Services;
  /** Every route of the service, with who may call each (tests walk it). */
  routes: RouteTable;
  /** True once drain() was called: /readyz answers 503 so load balancers drain this instance. */
  readonly draining: boolean;
  /**
   * Starts a shutdown: every response from now on, including those of requests being handled, ends
   * its connection (`Connection: close`), so keep-alive clients do not hold the server open.
   */
  drain(): void;
  /**
   * Resolves with true once no request is in flight (its handler running or its response being sent),
   * or with false after `timeoutMs`. A request whose client went away runs on after its connection has closed.
   */
  settled(timeoutMs: number): Promise<boolean>;
}

export function createApp(services: Services): App {
  const handling = new Set<ServerResponse>();
  const whenSettled: ((settled: boolean) => void)[] = [];
  const closeConnectionAfter = (res: ServerResponse) => res.headersSent || res.setHeader('connection', 'close');
  let draining = false;
  // Liveness and the REST fast path (stage 0) on node:http, and Yoga with every other stage, in the order src/pipeline.ts sets.
  const { methods, liveness, fastPath, yoga, routes } = createPipeline(services, { isDraining: () => draining });
  const app: App = {
    services,
    routes,
    get draining() {
      return draining;
    },
    drain() {
      draining = true;
      handling.forEach(closeConnectionAfter);
    },
    handle: (req, res) => {
      const state = newRequestState(services.log, req.headers['x-request-id'], clientIp(req, services.config.trustedProxies));
      state.forwarded = forwardedOrigin(req, services.config.trustedProxies);
      if (draining) closeConnectionAfter(res);
      // In flight until the handler has returned and the response has closed (a streamed body ends
      // later), or until a response whose sending had begun has closed: only writing was left then, and
      // the handler may never return (whatwg-node waits for a 'drain' that a closed connection does not emit).
      handling.add(res);
      let handled = false;
      const settle = () => {
        if (handling.delete(res) && handling.size === 0) whenSettled.splice(0).forEach((resolve) => resolve(true));
      };
      res.once('close', () => {
        if (handled || res.headersSent) settle();
      });
      // Answered at once, on node:http (the response settles when it closes).
      if (methods(req, res, state) || liveness(req, res, state)) {
        handled = true;
        return;
      }
      void runWithRequest(state, async () => {
        try {
          if (!(await fastPath.tryServe(req, res, state))) await yoga(req, res);
        } finally {
          handled = true;
          if (res.closed) settle();
        }
      });
    },
    settled: (timeoutMs) =>
      handling.size === 0
        ? Promise.resolve(true)
        : new Promise((resolve) => {
            whenSettled.push(resolve);
            setTimeout(() => resolve(false), timeoutMs).unref();
          }),
    fetch: async (request, options = {}) => {
      // As handle() does: HEAD served as GET, without the body.
      const head = request.method === 'HEAD';
      const state = newRequestState(services.log, request.headers.get('x-request-id'), options.ip ?? '127.0.0.1');
      const response = await runWithRequest(state, async () => yoga.fetch(head ? new Request(request, { method: 'GET' }) : request));
      return head ? new Response(null, response) : response;
    },
  };
  return app;
}

const peerAddress = (req: IncomingMessage) => (req.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');

/** The client's address: X-Forwarded-For is honoured only when the peer is a configured trusted proxy. */
export function clientIp(req: IncomingMessage, trustedProxies: readonly string[]): string {
  const peer = peerAddress(req);
  const forwarded = req.headers['x-forwarded-for'];
  if (!forwarded || !trustedProxies.includes(peer)) return peer;
  const hops = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // Walk back from the nearest hop, skipping our own proxies: the first untrusted address is the client.
  for (let i = hops.length - 1; i >= 0; i--) if (!trustedProxies.includes(hops[i]!)) return hops[i]!;
  return peer;
}

/**
 * The scheme and host the client used, as a trusted proxy reports them (X-Forwarded-Proto, X-Forwarded-Host);
 * undefined from any other peer. The first entry of each is the one the client-facing proxy wrote.
 */
export function forwardedOrigin(req: IncomingMessage, trustedProxies: readonly string[]): RequestState['forwarded'] {
  if (!trustedProxies.includes(peerAddress(req))) return undefined;
  const first = (name: string) => {
    const value = req.headers[name];
    return (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim() || undefined;
  };
  return { proto: first('x-forwarded-proto')?.toLowerCase(), host: first('x-forwarded-host') };
}
