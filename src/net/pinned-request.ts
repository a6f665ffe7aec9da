import http from 'node:http';
import https from 'node:https';
import type { LookupAddress } from 'node:dns';
import { pinnedLookup } from './url-guard.ts';

export interface PinnedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** At most `maxBytes` of the body. */
  body: Buffer;
  /** The body was longer than `maxBytes` (and was cut there). */
  truncated: boolean;
}

export interface PinnedRequestOptions {
  headers: Record<string, string>;
  body: string;
  maxBytes: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * POSTs over a connection to one of `addresses` (the ones url-guard checked), never following
 * redirects, reading at most `maxBytes` of the answer. Rejects on network errors, on the timeout
 * (code TIMEOUT) and when `signal` aborts.
 */
export function pinnedPost(url: URL, addresses: readonly LookupAddress[], options: PinnedRequestOptions): Promise<PinnedResponse> {
  const { headers, body, maxBytes, timeoutMs, signal } = options;
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: pinnedLookup(addresses),
        // A connection of its own: a pooled socket could outlive the address check it was made under.
        agent: false,
        signal,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let settled = false;
        const finish = (truncated: boolean) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).subarray(0, maxBytes),
            truncated,
          });
          response.destroy();
        };
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size > maxBytes) finish(true);
        });
        response.on('end', () => finish(false));
        response.on('error', (error) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          reject(error);
        });
      },
    );
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => request.destroy(Object.assign(new Error(`timed out after ${timeoutMs} ms`), { code: 'TIMEOUT' })), timeoutMs);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(body);
  });
}
