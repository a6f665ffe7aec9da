/**
 * A local fake of the Blancco Management Portal's report export, as docs/erasure-sync.md models it
 * ("The portal API as modelled"). node:http on 127.0.0.1, ephemeral port.
 *
 *   POST {url}/v1/report/export, header X-BLANCCO-API-KEY, body
 *   {"filter": {"date": {"gte": "<ISO>"}, "erasure_state": {"eq": "Successful"}}, "format": "JSON", "container": "NONE",
 *    "size": 1..10, "cursor": "<epoch ms>,<document_id>"}
 *   200 {"root": {"report": [...]}} ordered by report date then document_id, at most min(size or 100, pageSize)
 *       reports, with X-BLANCCO-CURSOR (of the last report) when more match; 401 {"error": "Unauthorized"}
 *       for a wrong or missing key; 400 {"error": "..."} for a bad body.
 *
 * The report date and overall erasure state are read by erasureSummary(), the parser's own reading.
 * `erasure_state.eq` "Successful" selects reports whose erasures all succeeded; any other value
 * selects the others (an assumption: the portal's exact semantics for other states are not modelled).
 * `size` is held to the 1-10 Blancco's knowledge base documents; without it a page holds up to 100.
 * With `ignoreFilters` set the fake answers as if the filters were not there (a console that ignores them).
 *
 *   const blancco = await startFakeBlancco({ reports: [laptopReport], pageSize: 2 });
 *   blancco.failNext(503, 2);         // the next two export requests answer 503
 *   blancco.stallNext(5_000);         // the next one hangs for 5 s, then answers
 *   ...
 *   await blancco.close();
 */
import { STATUS_CODES, createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { erasureSummary } from '../../src/erasure/blancco-report.ts';

export interface FakeBlancco {
  /** http://127.0.0.1:<port> (base; the client appends /v1/report/export) */
  url: string;
  apiKey: string;
  /** mutable: tests add reports between runs */
  reports: unknown[];
  /** every export request, failed and stalled ones included; header names in lower case */
  requests: { headers: Record<string, string>; body: unknown }[];
  /** server-side cap per page (tests use small pages to force several pages); settable */
  pageSize: number;
  /** answer as a console that ignores `filter` would; settable */
  ignoreFilters: boolean;
  /** The next `times` export requests answer `status` (e.g. 500, 503, 429 with retryAfterSeconds). */
  failNext(status: number, times?: number, retryAfterSeconds?: number): void;
  /** The next `times` export requests hang for `ms` before answering (timeouts). */
  stallNext(ms: number, times?: number): void;
  close(): Promise<void>;
}

export const EXPORT_PATH = '/v1/report/export';
export const CURSOR_HEADER = 'X-BLANCCO-CURSOR';
/** The portal's page without `size`: at most this many reports. */
export const DEFAULT_PAGE_SIZE = 100;
/** The largest `size` the portal documents. */
export const MAX_SIZE = 10;

interface ExportQuery {
  since?: number;
  successful?: boolean;
  size: number;
  after?: { ms: number; id: string };
}

export async function startFakeBlancco(
  options: { reports?: unknown[]; apiKey?: string; pageSize?: number; ignoreFilters?: boolean } = {},
): Promise<FakeBlancco> {
  const failures: { status: number; retryAfterSeconds?: number }[] = [];
  const stalls: number[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const fake: FakeBlancco = {
    url: '',
    apiKey: options.apiKey ?? 'blancco-test-key',
    reports: [...(options.reports ?? [])],
    requests: [],
    pageSize: options.pageSize ?? DEFAULT_PAGE_SIZE,
    ignoreFilters: options.ignoreFilters ?? false,
    failNext(status, times = 1, retryAfterSeconds) {
      for (let i = 0; i < times; i++) failures.push({ status, retryAfterSeconds });
    },
    stallNext(ms, times = 1) {
      for (let i = 0; i < times; i++) stalls.push(ms);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== EXPORT_PATH) {
      return send(res, 404, { error: 'Not Found' });
    }
    const body = parseJson(text);
    fake.requests.push({ headers: flatHeaders(req.headers), body });

    const stall = stalls.shift();
    if (stall !== undefined) {
      await sleep(stall);
      if (res.destroyed) return; // the client gave up
    }
    const failure = failures.shift();
    if (failure) {
      const headers: Record<string, string> =
        failure.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(failure.retryAfterSeconds) };
      return send(res, failure.status, { error: STATUS_CODES[failure.status] ?? 'Error' }, headers);
    }
    if (req.headers['x-blancco-api-key'] !== fake.apiKey) return send(res, 401, { error: 'Unauthorized' });

    const query = readQuery(body);
    if (typeof query === 'string') return send(res, 400, { error: query });
    if (fake.ignoreFilters) Object.assign(query, { since: undefined, successful: undefined });
    const matching = fake.reports
      .map((report) => ({ report, ...orderKey(report) }))
      .filter(({ summary }) => query.since === undefined || (summary.at !== null && summary.at.getTime() >= query.since))
      .filter(
        ({ summary }) =>
          query.successful === undefined || (query.successful ? summary.state === 'successful' : summary.state === 'unsuccessful'),
      )
      .filter(({ ms, id }) => !query.after || ms > query.after.ms || (ms === query.after.ms && id > query.after.id))
      .sort((a, b) => a.ms - b.ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const page = matching.slice(0, Math.min(query.size, fake.pageSize));
    const last = page.at(-1);
    const headers: Record<string, string> = matching.length > page.length && last ? { [CURSOR_HEADER]: `${last.ms},${last.id}` } : {};
    send(res, 200, { root: { report: page.map((p) => p.report) } }, headers);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { error: String(error) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** A report's place in the export order: its date (epoch ms; none sorts first) and document_id. */
function orderKey(report: unknown): { summary: ReturnType<typeof erasureSummary>; ms: number; id: string } {
  const summary = erasureSummary(report);
  const id = (report as { blancco_data?: { description?: { document_id?: unknown } } } | null)?.blancco_data?.description?.document_id;
  return { summary, ms: summary.at?.getTime() ?? 0, id: typeof id === 'string' ? id : '' };
}

/** The export body, or the 400 message. */
function readQuery(body: unknown): ExportQuery | string {
  if (!isObject(body)) return 'request body must be a JSON object';
  const { filter, format, container, size, cursor } = body;
  if (format !== undefined && (typeof format !== 'string' || format.toUpperCase() !== 'JSON')) return 'format: only "JSON" is served';
  if (container !== undefined && (typeof container !== 'string' || container.toUpperCase() !== 'NONE'))
    return 'container: only "NONE" is served';
  if (size !== undefined && !(Number.isInteger(size) && (size as number) >= 1 && (size as number) <= MAX_SIZE)) {
    return `size: must be an integer from 1 to ${MAX_SIZE}`;
  }
  const query: ExportQuery = { size: (size as number | undefined) ?? DEFAULT_PAGE_SIZE };
  if (cursor !== undefined) {
    const m = typeof cursor === 'string' ? /^(\d+),(.+)$/.exec(cursor) : null;
    if (!m) return 'cursor: must be the value of the X-BLANCCO-CURSOR header';
    query.after = { ms: Number(m[1]), id: m[2]! };
  }
  if (filter === undefined) return query;
  if (!isObject(filter)) return 'filter: must be an object';
  if (filter.date !== undefined) {
    const gte = isObject(filter.date) ? filter.date.gte : undefined;
    const since = typeof gte === 'string' ? Date.parse(gte) : NaN;
    if (Number.isNaN(since)) return 'filter.date.gte: must be an ISO 8601 date-time';
    query.since = since;
  }
  if (filter.erasure_state !== undefined) {
    const eq = isObject(filter.erasure_state) ? filter.erasure_state.eq : undefined;
    if (typeof eq !== 'string' || eq === '') return 'filter.erasure_state.eq: must be a string';
    query.successful = eq.toLowerCase() === 'successful';
  }
  return query;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
