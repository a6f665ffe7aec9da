import { request as httpRequest } from 'node:http';

/**
 * A request the Fetch API refuses to send (TRACE, CONNECT), over node:http to `base`: the status,
 * headers and body as sent. Node hands the answer to a CONNECT to 'connect', with the socket,
 * whatever its status.
 */
export function rawRequest(
  base: string,
  method: string,
  target: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path: target }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('connect', (res, socket, head) => {
      let body = head.toString();
      socket.on('data', (chunk) => (body += chunk));
      socket.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
