import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { TestApp } from '../support/test-app.ts';

export const auth = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

export const registerEndpoint = (t: TestApp, key: string, body: Record<string, unknown>) =>
  t.json('/v1/webhooks/endpoints', { method: 'POST', headers: auth(key), body: JSON.stringify(body) });

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The payload as standardwebhooks' verifier returned it, or its error. */
  verified: { payload: unknown } | { error: string };
}

/** What the receiver answers on a path, given how many requests that path had before (0, 1, ...); 'hang' never answers. */
export type Behaviour = (previous: number) => number | 'hang' | Promise<number>;

/**
 * A webhook receiver on 127.0.0.1 that verifies every request the way a customer would, with
 * standardwebhooks' Webhook.verify and the secret registered for its path.
 */
export async function startReceiver() {
  const secrets = new Map<string, string>();
  const behaviours = new Map<string, Behaviour>();
  const received: ReceivedWebhook[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const path = req.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      const previous = received.filter((r) => r.path === path).length;
      let verified: ReceivedWebhook['verified'];
      try {
        verified = { payload: new Webhook(secrets.get(path) ?? 'whsec_AAAA').verify(body, req.headers as Record<string, string>) };
      } catch (error) {
        verified = { error: (error as Error).message };
      }
      received.push({ path, headers: req.headers, body, verified });
      const answer = await (behaviours.get(path) ?? (() => 200))(previous);
      if (answer === 'hang') return;
      res.writeHead(answer, answer >= 300 && answer < 400 ? { location: '/redirected' } : { 'content-type': 'text/plain' });
      res.end(answer >= 400 ? `receiver says no\n\u0000${'x'.repeat(2_000)}` : answer >= 300 ? '' : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    received,
    /** Paths under this receiver: `path` answers as `behaviour` says and verifies with `secret`. */
    route(path: string, secret: string, behaviour?: Behaviour) {
      secrets.set(path, secret);
      if (behaviour) behaviours.set(path, behaviour);
    },
    on: (path: string) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
