import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Plugin } from 'graphql-yoga';
import { ApiError, invalidParameter } from '../errors/api-error.ts';
import { errorResponse } from '../errors/render.ts';
import { GRAPHQL_PATH, REST_BASE } from '../kernel/paths.ts';
import { parseJson } from '../kernel/json-text.ts';

const KiB = 1024;
const MiB = 1024 * KiB;

/** Longest request target (path and query) answered; longer ones get 414. */
export const MAX_URL_LENGTH = 8 * KiB;

/** Body limits by path, first match wins (documented in docs/errors.md and docs/api.md, "Request limits"). */
export const BODY_LIMITS: readonly { path: string; maxBytes: number }[] = [
  { path: `${REST_BASE}/assets/csv`, maxBytes: 4 * MiB },
  { path: `${REST_BASE}/assets`, maxBytes: 2 * MiB },
  { path: GRAPHQL_PATH, maxBytes: 2 * MiB },
  { path: '/admin/', maxBytes: 64 * KiB },
  { path: '/console/', maxBytes: 64 * KiB },
];
export const DEFAULT_BODY_LIMIT = 256 * KiB;

export const bodyLimitFor = (pathname: string) =>
  BODY_LIMITS.find((l) => pathname === l.path || pathname.startsWith(l.path))?.maxBytes ?? DEFAULT_BODY_LIMIT;

const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface RequestLimitsOptions {
  /** The REST base path (`/v1`): its bodies must be JSON objects; `${restBase}/graphql` is the GraphQL endpoint. */
  restBase: string;
}

/**
 * The edge of every request, before routing, authentication or parsing: request-target length
 * (414), strict percent-encoding of the query string (400 naming the parameter), the body size
 * (413, from Content-Length or while reading, so an oversized body is never buffered whole) and
 * its encoding (UTF-8 for textual bodies). REST bodies must be JSON objects of bounded nesting.
 * Field-level text rules (length, control characters) are zod schemas: the schema's
 * (TextInputsPlugin) and the hand-written routes'.
 */
export function useRequestLimits({ restBase }: RequestLimitsOptions): Plugin {
  return {
    async onRequest({ request, url, setRequest, endResponse }) {
      try {
        const target = url.pathname.length + url.search.length;
        if (target > MAX_URL_LENGTH) {
          throw new ApiError(414, 'URI_TOO_LONG', 'Request target too long', `url: at most ${MAX_URL_LENGTH} characters, got ${target}`);
        }
        checkQueryEncoding(url.search);
        const graphql = url.pathname === `${restBase}/graphql`;
        if (graphql && request.method === 'GET') checkGraphQLJsonParams(url);
        if (request.method === 'GET' || request.method === 'HEAD' || request.body === null) return;
        const maxBytes = bodyLimitFor(url.pathname);
        const body = await readLimited(request, maxBytes);
        const contentType = request.headers.get('content-type');
        // REST bodies are JSON whatever their Content-Type (SOFA reads them so); GraphQL's when it says so.
        const json = isRestPath(url.pathname, restBase) || (graphql && /^application\/json/i.test(contentType ?? ''));
        if (json || isTextual(contentType)) {
          const text = decodeUtf8(body);
          if (json) checkJsonObject(text);
        }
        setRequest(new Request(request.url, { method: request.method, headers: request.headers, body, signal: request.signal }));
      } catch (error) {
        endResponse(errorResponse([error], { graphql: url.pathname === `${restBase}/graphql` }));
      }
    },
  };
}

const isRestPath = (pathname: string, restBase: string) => pathname.startsWith(`${restBase}/`) && pathname !== `${restBase}/graphql`;

function isTextual(contentType: string | null): boolean {
  if (!contentType) return true;
  return /^(application\/(json|graphql|x-www-form-urlencoded|[\w.+-]*\+json)|text\/)/i.test(contentType.trim());
}

/** Every name and value of the query string must be valid percent-encoded UTF-8. */
function checkQueryEncoding(search: string): void {
  if (search.length <= 1 || !search.includes('%')) return;
  for (const pair of search.slice(1).split('&')) {
    const [rawName = '', ...rest] = pair.split('=');
    const name = strictDecode(rawName) ?? rawName;
    if (strictDecode(rawName) === undefined || strictDecode(rest.join('=')) === undefined) {
      throw invalidParameter(name.slice(0, 64), 'invalid percent-encoding (each %XX must form valid UTF-8)');
    }
  }
}

function strictDecode(component: string): string | undefined {
  try {
    return decodeURIComponent(component.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

// The rest of the body is not read: the connection closes after the answer.
const tooLarge = (maxBytes: number, got: string) =>
  new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Request body too large', `body: at most ${maxBytes} bytes for this route, got ${got}`, {
    Connection: 'close',
  });

/** The body as bytes, refusing more than `maxBytes` without reading the rest. */
async function readLimited(request: Request, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes, `${declared}`);
  const reader = request.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes, `more than ${maxBytes}`);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

function decodeUtf8(body: Uint8Array): string {
  try {
    return utf8.decode(body);
  } catch {
    throw new ApiError(400, 'INVALID_ENCODING', 'Request body is not valid UTF-8', 'body: must be UTF-8 encoded');
  }
}

/**
 * Request bodies are read as fields (SOFA's arguments, GraphQL's query and variables): anything but
 * a JSON object, or one nested deeper than MAX_JSON_DEPTH, is refused here.
 */
function checkJsonObject(text: string, field = 'body'): void {
  // An empty body is no arguments; an empty parameter is not JSON.
  if (field === 'body' && text.trim() === '') return;
  const parsed = parseJson(text, field);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    const got = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : typeof parsed;
    throw new ApiError(400, 'INVALID_JSON', `Invalid JSON in '${field}'`, `${field}: expected a JSON object, got ${got}`);
  }
}

/** GraphQL over GET carries JSON in `variables` and `extensions`. */
function checkGraphQLJsonParams(url: URL): void {
  for (const field of ['variables', 'extensions']) {
    const value = url.searchParams.get(field);
    if (value !== null) checkJsonObject(value, field);
  }
}

/**
 * Requests that never reach a handler get a JSON ApiError instead of an empty answer or a reset:
 * those Node's HTTP parser refuses (a request line and headers over its 16 KiB limit, malformed
 * HTTP), and CONNECT (405: no route takes it).
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) return socket.destroy();
    if (error.code === 'HPE_HEADER_OVERFLOW') {
      return answerOnSocket(
        socket,
        431,
        'HEADERS_TOO_LARGE',
        'Request header fields too large',
        'headers: the request line and headers must fit in 16 KiB',
      );
    }
    answerOnSocket(socket, 400, 'MALFORMED_REQUEST', 'Malformed HTTP request', `request: ${error.code ?? 'could not be parsed'}`);
  });
  // Node hands CONNECT (a proxy tunnel) to this event, not to the request handler; this server is no proxy.
  server.on('connect', (_request: unknown, socket: Duplex) => {
    answerOnSocket(
      socket,
      405,
      'METHOD_NOT_ALLOWED',
      'Method not allowed',
      `CONNECT: this server is not a proxy; its routes take ${SERVED_METHODS}`,
      {
        Allow: SERVED_METHODS,
      },
    );
  });
}

// Every method some route takes (each route's own are in its 405's Allow).
const SERVED_METHODS = 'DELETE, GET, HEAD, PATCH, POST, PUT';

/** An ApiError written straight to the connection, which then closes: for requests that never reach a handler. */
function answerOnSocket(
  socket: Duplex,
  status: number,
  code: string,
  message: string,
  details: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ error: message, code, details });
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}
