import { afterEach, describe, expect, it } from 'vitest';
import { CURSOR_HEADER, EXPORT_PATH, startFakeBlancco, type FakeBlancco } from '../support/fake-blancco.ts';
import { blanccoReport, laptopReport, unsuccessfulReport } from './fixtures.ts';

let fake: FakeBlancco | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function exportReports(body: unknown, init: { key?: string | null; signal?: AbortSignal } = {}) {
  const key = init.key === undefined ? fake!.apiKey : init.key;
  const res = await fetch(`${fake!.url}${EXPORT_PATH}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(key === null ? {} : { 'X-BLANCCO-API-KEY': key }) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: init.signal,
  });
  return {
    status: res.status,
    cursor: res.headers.get(CURSOR_HEADER),
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as any,
  };
}

const idsOf = (body: { root: { report: { blancco_data: { description: { document_id: string } } }[] } }) =>
  body.root.report.map((r) => r.blancco_data.description.document_id);

// Five reports: r3 and r4 erased at the same minute (ordered by document_id), r5 failed.
const reports = [
  blanccoReport({ uuid: 'r5', erasedAt: '2026-11-05T00:00:00Z', state: 'Failed' }),
  blanccoReport({ uuid: 'r4', erasedAt: '2026-11-03T00:00:00Z' }),
  blanccoReport({ uuid: 'r1', erasedAt: '2026-11-01T00:00:00Z' }),
  blanccoReport({ uuid: 'r3', erasedAt: '2026-11-03T00:00:00Z' }),
  blanccoReport({ uuid: 'r2', erasedAt: '2026-11-02T00:00:00Z' }),
];

describe('fake Blancco portal', () => {
  it('answers 401 without the right key and records the request', async () => {
    fake = await startFakeBlancco({ reports, apiKey: 'right' });
    expect(await exportReports({}, { key: null })).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
    expect(await exportReports({}, { key: 'wrong' })).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
    expect(fake.requests.map((r) => r.headers['x-blancco-api-key'])).toEqual([undefined, 'wrong']);
  });

  it('pages by date then document_id with a keyset cursor until the header is absent', async () => {
    fake = await startFakeBlancco({ reports, pageSize: 2 });
    const first = await exportReports({ format: 'JSON', container: 'NONE' });
    expect([idsOf(first.body), first.cursor]).toEqual([['r1', 'r2'], `${Date.parse('2026-11-02T00:00:00Z')},r2`]);
    const second = await exportReports({ cursor: first.cursor });
    expect([idsOf(second.body), second.cursor]).toEqual([['r3', 'r4'], `${Date.parse('2026-11-03T00:00:00Z')},r4`]);
    const last = await exportReports({ cursor: second.cursor });
    expect([idsOf(last.body), last.cursor]).toEqual([['r5'], null]);
    expect(fake.requests[1]!.body).toEqual({ cursor: first.cursor });
  });

  it('takes the smaller of the requested size and its page size; sees reports added later', async () => {
    fake = await startFakeBlancco({ reports });
    const page = await exportReports({ size: 3 });
    expect([idsOf(page.body), page.cursor]).toEqual([['r1', 'r2', 'r3'], `${Date.parse('2026-11-03T00:00:00Z')},r3`]);
    fake.reports.push(blanccoReport({ uuid: 'r6', erasedAt: '2026-11-06T00:00:00Z' }));
    expect(idsOf((await exportReports({ cursor: page.cursor })).body)).toEqual(['r4', 'r5', 'r6']);
  });

  it('filters by date (inclusive) and by successful erasure', async () => {
    fake = await startFakeBlancco({ reports: [...reports, laptopReport, unsuccessfulReport] });
    const since = { filter: { date: { gte: '2026-11-03T00:00:00Z' } } };
    expect(idsOf((await exportReports(since)).body)).toEqual(['r3', 'r4', 'r5', idOf(laptopReport), idOf(unsuccessfulReport)]);
    const successful = { filter: { ...since.filter, erasure_state: { eq: 'Successful' } } };
    expect(idsOf((await exportReports(successful)).body)).toEqual(['r3', 'r4', idOf(laptopReport)]);
  });

  it.each([
    ['not JSON', '{', 'request body must be a JSON object'],
    ['size 0', { size: 0 }, 'size: must be an integer from 1 to 10'],
    ['size 11', { size: 11 }, 'size: must be an integer from 1 to 10'],
    ['a made-up cursor', { cursor: 'next' }, 'cursor: must be the value of the X-BLANCCO-CURSOR header'],
    ['XML', { format: 'XML' }, 'format: only "JSON" is served'],
    ['a bad date', { filter: { date: { gte: 'yesterday' } } }, 'filter.date.gte: must be an ISO 8601 date-time'],
  ])('answers 400 for %s', async (_, body, error) => {
    fake = await startFakeBlancco({ reports });
    expect(await exportReports(body)).toMatchObject({ status: 400, body: { error } });
  });

  it('failNext answers the next requests with the status (and Retry-After), then normally', async () => {
    fake = await startFakeBlancco({ reports });
    fake.failNext(503, 2);
    fake.failNext(429, 1, 3);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await exportReports({}));
    expect(statuses.map((s) => [s.status, s.retryAfter])).toEqual([
      [503, null],
      [503, null],
      [429, '3'],
      [200, null],
    ]);
    expect(statuses[0]!.body).toEqual({ error: 'Service Unavailable' });
    expect(fake.requests).toHaveLength(4);
  });

  it('stallNext holds a request: a client that gives up sees a timeout, the next request is answered', async () => {
    fake = await startFakeBlancco({ reports });
    fake.stallNext(150, 2);
    await expect(exportReports({}, { signal: AbortSignal.timeout(30) })).rejects.toThrow(/timeout|aborted/i);
    const started = performance.now();
    expect((await exportReports({})).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect((await exportReports({})).status).toBe(200);
  });

  it('closes while a request is stalled', async () => {
    fake = await startFakeBlancco({ reports });
    fake.stallNext(60_000);
    const pending = exportReports({}).catch((error: Error) => error);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    await fake.close();
    fake = undefined;
    expect(await pending).toBeInstanceOf(Error);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

function idOf(report: unknown): string {
  return (report as { blancco_data: { description: { document_id: string } } }).blancco_data.description.document_id;
}
