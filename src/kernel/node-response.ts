import type { ServerResponse } from 'node:http';

/** Writes a Fetch Response (status, headers, whole body) to a node:http response: for answers made outside Yoga. */
export async function writeNodeResponse(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}
