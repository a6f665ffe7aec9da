import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_RETRY_AFTER_CAP_MS } from '../../resilience/policy.ts';
import {
  IcecatClient,
  IcecatUnavailableError,
  batteryWh,
  looksLikeGtin,
  mapIcecatCategory,
  parseAnnualKwh,
  parseDataSizeGb,
  parseScreenInch,
  parseWattHours,
  parseWatts,
  parseWeightKg,
  SERVICE_CATEGORY_IDS,
  toIcecatProduct,
  type IcecatConfig,
  type IcecatUnavailableReason,
} from './index.ts';
import { FAKE_GTINS, icecatProductJson, startFakeIcecat, withCheckDigit, type FakeIcecat } from '../../../test/support/fake-icecat.ts';

let icecat: FakeIcecat;

beforeAll(async () => {
  icecat = await startFakeIcecat();
});
afterEach(() => {
  icecat.reset();
  vi.useRealTimers();
});
afterAll(async () => {
  await icecat.close();
});

/** Backoff short enough for tests; its exact steps are proven in src/resilience/policy.test.ts. */
const FAST_BACKOFF = { initialMs: 5, maxMs: 20 };

/** A client against the fake, with a short backoff. */
function makeClient(overrides: Partial<IcecatConfig> = {}) {
  return new IcecatClient({
    baseUrl: icecat.url,
    username: 'test-user',
    apiToken: 'api-secret',
    contentToken: 'content-secret',
    timeoutMs: 2000,
    retries: 2,
    backoff: FAST_BACKOFF,
    breaker: { failureThreshold: 5, coolDownMs: 30_000 },
    ...overrides,
  });
}

/** The breaker's clock (Date) under the test's control; timers stay real, so requests and timeouts run as usual. */
function controlBreakerClock(): void {
  vi.useFakeTimers({ toFake: ['Date'] });
}

/** Milliseconds a promise takes to settle, whichever way. */
async function elapsed(promise: Promise<unknown>): Promise<number> {
  const started = performance.now();
  await promise.catch(() => undefined);
  return performance.now() - started;
}

async function unavailable(promise: Promise<unknown>): Promise<IcecatUnavailableError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IcecatUnavailableError);
  return error as IcecatUnavailableError;
}

async function expectReason(promise: Promise<unknown>, reason: IcecatUnavailableReason): Promise<IcecatUnavailableError> {
  const error = await unavailable(promise);
  expect(error.reason).toBe(reason);
  return error;
}

const ELITEBOOK = {
  icecat_id: 85000001,
  brand: 'HP',
  mpn: '3C6D4EA',
  name: 'HP EliteBook 840 G8',
  icecat_category: 'Notebooks',
  mapped_category: 'laptop',
  specs: {
    weight_kg: 1.39,
    screen_size_inch: 14,
    screen_type: 'ips',
    processor_tdp_w: 15,
    ram_gb: 16,
    storage_gb: 512,
    storage_type: 'nvme',
    battery_wh: 54,
    typical_consumption_kwh: 18.5,
  },
  gtin: FAKE_GTINS.elitebook,
};

describe('IcecatClient lookups against the fake Icecat', () => {
  it('finds a product by brand + product code, mapping category and specs exactly', async () => {
    const client = makeClient();
    const result = await client.lookup({ brand: 'HP', productCode: '3C6D4EA' });
    expect(result).toEqual({ found: true, product: ELITEBOOK });

    expect(icecat.requests()).toBe(1);
    const [request] = icecat.requestLog();
    expect(request?.path).toBe('/api');
    expect(request?.query).toEqual({ UserName: 'test-user', Language: 'EN', Brand: 'HP', ProductCode: '3C6D4EA' });
    expect(request?.headers['api-token']).toBe('api-secret');
    expect(request?.headers['content-token']).toBe('content-secret');
    expect(request?.headers.accept).toBe('application/json');
  });

  it('sends no token headers and no UserName when none are configured, and the configured language', async () => {
    const client = new IcecatClient({ baseUrl: icecat.url, language: 'de' });
    await client.lookup({ brand: 'HP', productCode: '3C6D4EA' });
    const [request] = icecat.requestLog();
    expect(request?.query).toEqual({ Language: 'de', Brand: 'HP', ProductCode: '3C6D4EA' });
    expect(request?.headers['api-token']).toBeUndefined();
    expect(request?.headers['content-token']).toBeUndefined();
  });

  it('finds a product by GTIN (explicit gtin, or a product code that looks like one)', async () => {
    const client = makeClient();
    expect(await client.lookup({ gtin: FAKE_GTINS.elitebook })).toEqual({ found: true, product: ELITEBOOK });
    expect(icecat.requestLog()[0]?.query).toEqual({ UserName: 'test-user', Language: 'EN', GTIN: FAKE_GTINS.elitebook });

    const phone = await client.lookup({ productCode: ` ${FAKE_GTINS.galaxy} ` });
    expect(phone).toEqual({
      found: true,
      product: {
        icecat_id: 85000003,
        brand: 'Samsung',
        mpn: 'SM-S918BZKDEUB',
        name: 'Samsung Galaxy S23 Ultra',
        icecat_category: 'Smartphones',
        mapped_category: 'smartphone',
        // battery from 5000 mAh x 3.88 V; storage type not stated -> left out
        specs: { weight_kg: 0.234, screen_size_inch: 6.8, screen_type: 'oled', ram_gb: 8, storage_gb: 256, battery_wh: 19.4 },
        gtin: FAKE_GTINS.galaxy,
      },
    });
    expect(icecat.requestLog()[1]?.query.GTIN).toBe(FAKE_GTINS.galaxy);
    expect(icecat.requests()).toBe(2);
  });

  it('maps other categories and refines a notebook into a convertible', async () => {
    const client = makeClient();
    const monitor = await client.lookup({ brand: 'dell', productCode: 'DELL-P2422H' });
    expect(monitor).toEqual({
      found: true,
      product: {
        icecat_id: 85000002,
        brand: 'Dell',
        mpn: 'DELL-P2422H',
        name: 'Dell P2422H',
        icecat_category: 'Computer monitors',
        mapped_category: 'monitor',
        // energy per 1000 hours is not annual energy: typical_consumption_kwh left out
        specs: { weight_kg: 5.3, screen_size_inch: 23.8, screen_type: 'ips' },
        gtin: FAKE_GTINS.monitor,
      },
    });
    const yoga = await client.lookup({ brand: 'Lenovo', productCode: '21HQ002QGE' });
    expect(yoga.found && yoga.product.mapped_category).toBe('convertible');
    expect(yoga.found && yoga.product.specs).toEqual({
      weight_kg: 1.38,
      screen_size_inch: 14,
      screen_type: 'oled',
      ram_gb: 32,
      storage_gb: 1000,
      storage_type: 'ssd',
      battery_wh: 57,
    });
  });

  it('falls back from a GTIN-looking product code to brand + product code', async () => {
    const code = withCheckDigit('400638133393');
    icecat.addProduct({
      icecatId: 85000100,
      brand: 'Numeric',
      productCode: code,
      productName: 'Digits Only',
      category: { id: 1, name: 'Keyboards' },
      features: [],
    });
    const client = makeClient();
    const result = await client.lookup({ brand: 'Numeric', productCode: code });
    expect(result.found && result.product).toMatchObject({ icecat_id: 85000100, mapped_category: 'keyboard', specs: {} });
    expect(icecat.requestLog().map((r) => r.query.GTIN ?? r.query.ProductCode)).toEqual([code, code]);
    expect(icecat.requestLog()[1]?.query.Brand).toBe('Numeric');
  });

  it('answers found:false for the documented not-found answer, without retrying', async () => {
    const client = makeClient();
    expect(await client.lookup({ brand: 'HP', productCode: 'NO-SUCH-THING' })).toEqual({ found: false });
    expect(await client.lookup({ gtin: withCheckDigit('123456789012') })).toEqual({ found: false });
    icecat.setMode('not_found');
    expect(await client.lookup({ brand: 'HP', productCode: '3C6D4EA' })).toEqual({ found: false });
    expect(icecat.requests()).toBe(3);
  });

  it('answers found:false for products restricted to Full Icecat', async () => {
    const client = makeClient();
    expect(await client.lookup({ gtin: FAKE_GTINS.restricted })).toEqual({ found: false });
    expect(icecat.requests()).toBe(1);
  });

  it('answers found:false without a request when there is no usable identifier', async () => {
    const client = makeClient();
    expect(await client.lookup({})).toEqual({ found: false });
    expect(await client.lookup({ productCode: 'ABC123' })).toEqual({ found: false }); // no brand, not a GTIN
    expect(await client.lookup({ gtin: '4006381333932' })).toEqual({ found: false }); // bad check digit
    expect(icecat.requests()).toBe(0);
  });

  it('retries a 500 and succeeds', async () => {
    const client = makeClient();
    icecat.setMode('server_error', { times: 2 });
    expect(await client.lookup({ brand: 'HP', productCode: '3C6D4EA' })).toEqual({ found: true, product: ELITEBOOK });
    expect(icecat.requests()).toBe(3);
  });

  it('waits the configured backoff between retries', async () => {
    icecat.setMode('server_error');
    const client = makeClient({ retries: 2, backoff: { initialMs: 100, maxMs: 100 } });
    // equal jitter: each wait is between half and all of the 100 ms step
    const ms = await elapsed(expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'server_error'));
    expect(icecat.requests()).toBe(3);
    expect(ms).toBeGreaterThanOrEqual(100);
    expect(ms).toBeLessThan(1000);
  });

  it('gives up on a persistent 500 after exactly 1 + retries attempts', async () => {
    icecat.setMode('server_error');
    const client = makeClient({ retries: 2 });
    const error = await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'server_error');
    expect(error.status).toBe(500);
    expect(error.attempts).toBe(3);
    expect(icecat.requests()).toBe(3);

    icecat.reset();
    icecat.setMode('unavailable');
    const noRetry = makeClient({ retries: 0 });
    await expectReason(noRetry.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'server_error');
    expect(icecat.requests()).toBe(1);
  });

  it('times out an attempt that never answers, retries, and fails with reason timeout within a bounded time', async () => {
    icecat.setMode('timeout');
    const client = makeClient({ timeoutMs: 60, retries: 1 });
    const started = performance.now();
    const error = await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'timeout');
    const elapsed = performance.now() - started;
    expect(error.attempts).toBe(2);
    expect(icecat.requests()).toBe(2);
    expect(elapsed).toBeGreaterThanOrEqual(100);
    expect(elapsed).toBeLessThan(1500);
  });

  it('recovers when only the first attempt times out', async () => {
    icecat.setMode('timeout', { times: 1 });
    const client = makeClient({ timeoutMs: 60 });
    expect(await client.lookup({ gtin: FAKE_GTINS.elitebook })).toEqual({ found: true, product: ELITEBOOK });
    expect(icecat.requests()).toBe(2);
  });

  it('reports a dropped connection as a network error (retried)', async () => {
    icecat.setMode('reset');
    const client = makeClient({ retries: 1 });
    await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'network');
    expect(icecat.requests()).toBe(2);
  });

  it('reports an unreachable server as a network error', async () => {
    const closed = await startFakeIcecat();
    const url = closed.url;
    await closed.close();
    const client = new IcecatClient({ baseUrl: url, retries: 1, backoff: FAST_BACKOFF });
    await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'network');
  });

  it('rejects malformed JSON as malformed_response without retrying', async () => {
    icecat.setMode('malformed');
    const client = makeClient();
    const error = await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'malformed_response');
    expect(error.attempts).toBe(1);
    expect(icecat.requests()).toBe(1);
  });

  it('rejects a data-sheet without an IcecatId as malformed_response', async () => {
    const fetchStub = (async () =>
      new Response(JSON.stringify({ msg: 'OK', data: { GeneralInfo: { Brand: 'HP' } } }), { status: 200 })) as typeof fetch;
    const client = new IcecatClient({ baseUrl: 'https://icecat.test/api' }, { fetch: fetchStub });
    await expectReason(client.lookup({ brand: 'HP', productCode: 'X' }), 'malformed_response');
  });

  it('honours Retry-After on 429 instead of the backoff, then fails with rate_limited', async () => {
    icecat.setMode('rate_limited', { retryAfter: '0.1' });
    const client = makeClient();
    let error: IcecatUnavailableError | undefined;
    const ms = await elapsed(expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'rate_limited').then((e) => (error = e)));
    expect(ms).toBeGreaterThanOrEqual(200); // 2 waits of 100 ms; the backoff alone would be under 40 ms
    expect(icecat.requests()).toBe(3);
    expect(error?.status).toBe(429);
    expect(error?.retryAfterMs).toBe(100);
    expect(error?.attempts).toBe(3);
  });

  it('retries after a 429 and succeeds', async () => {
    icecat.setMode('rate_limited', { times: 1, retryAfter: '0.05' });
    const client = makeClient();
    expect(await client.lookup({ brand: 'HP', productCode: '3C6D4EA' })).toEqual({ found: true, product: ELITEBOOK });
    expect(icecat.requests()).toBe(2);
  });

  it('uses backoff on a 429 without Retry-After, and fails fast when Retry-After exceeds the cap', async () => {
    icecat.setMode('rate_limited', { retryAfter: null });
    const client = makeClient();
    const uncapped = await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'rate_limited');
    expect(uncapped.attempts).toBe(3);
    expect(icecat.requests()).toBe(3);

    icecat.reset();
    icecat.setMode('rate_limited', { retryAfter: String(DEFAULT_RETRY_AFTER_CAP_MS / 1000 + 1) });
    const capped = makeClient();
    let error: IcecatUnavailableError | undefined;
    const ms = await elapsed(expectReason(capped.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'rate_limited').then((e) => (error = e)));
    expect(error?.attempts).toBe(1);
    expect(error?.retryAfterMs).toBe(DEFAULT_RETRY_AFTER_CAP_MS + 1000);
    expect(icecat.requests()).toBe(1);
    expect(ms).toBeLessThan(1000);
  });

  it.each([
    ['unauthorized', 401],
    ['forbidden', 403],
  ] as const)('reports %s (HTTP %i) as auth, never retried', async (mode, status) => {
    icecat.setMode(mode);
    const client = makeClient();
    const error = await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'auth');
    expect(error.status).toBe(status);
    expect(icecat.requests()).toBe(1);
  });

  it('reports a wrong api token as auth', async () => {
    const strict = await startFakeIcecat({ apiToken: 'right-token' });
    try {
      const wrong = new IcecatClient({ baseUrl: strict.url, apiToken: 'wrong-token' });
      await expectReason(wrong.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'auth');
      const right = new IcecatClient({ baseUrl: strict.url, apiToken: 'right-token' });
      expect((await right.lookup({ brand: 'HP', productCode: '3C6D4EA' })).found).toBe(true);
    } finally {
      await strict.close();
    }
  });
});

describe('circuit breaker', () => {
  it('opens after N consecutive failures; further calls fail fast without reaching the server', async () => {
    icecat.setMode('server_error');
    const client = makeClient({ retries: 0, breaker: { failureThreshold: 3, coolDownMs: 10_000 } });
    expect(client.breakerState()).toBe('closed');
    for (let i = 0; i < 3; i++) await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'server_error');
    expect(client.breakerState()).toBe('open');
    expect(icecat.requests()).toBe(3);

    const error = await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'circuit_open');
    expect(error.attempts).toBe(0);
    await expectReason(client.lookup({ gtin: FAKE_GTINS.elitebook }), 'circuit_open');
    expect(icecat.requests()).toBe(3);
  });

  it('counts a lookup with retries as one failure', async () => {
    icecat.setMode('server_error');
    const client = makeClient({ retries: 2, breaker: { failureThreshold: 2, coolDownMs: 10_000 } });
    await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'server_error');
    expect(client.breakerState()).toBe('closed');
    await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'server_error');
    expect(client.breakerState()).toBe('open');
    expect(icecat.requests()).toBe(6);
  });

  it('resets the failure count on any answer, found or not found', async () => {
    const client = makeClient({ retries: 0, breaker: { failureThreshold: 2, coolDownMs: 10_000 } });
    icecat.queueModes('server_error', 'not_found', 'server_error', 'normal', 'server_error');
    for (const expected of ['server_error', 'not found', 'server_error', 'found', 'server_error']) {
      const outcome = await client.lookup({ brand: 'HP', productCode: '3C6D4EA' }).then(
        (r) => (r.found ? 'found' : 'not found'),
        (e: IcecatUnavailableError) => e.reason,
      );
      expect(outcome).toBe(expected);
    }
    expect(client.breakerState()).toBe('closed');
  });

  it('half-opens after the cool-down; a successful probe closes it', async () => {
    controlBreakerClock();
    icecat.setMode('server_error');
    const client = makeClient({ retries: 2, breaker: { failureThreshold: 2, coolDownMs: 10_000 } });
    for (let i = 0; i < 2; i++) await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'server_error');
    expect(client.breakerState()).toBe('open');
    const before = icecat.requests();

    vi.advanceTimersByTime(9_999);
    expect(client.breakerState()).toBe('open');
    await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'circuit_open');
    vi.advanceTimersByTime(1);
    expect(client.breakerState()).toBe('half_open');

    icecat.setMode('normal');
    expect(await client.lookup({ brand: 'HP', productCode: '3C6D4EA' })).toEqual({ found: true, product: ELITEBOOK });
    expect(client.breakerState()).toBe('closed');
    expect(icecat.requests()).toBe(before + 1);
  });

  it('a failed probe (single attempt, no retries) opens the breaker again for another cool-down', async () => {
    controlBreakerClock();
    icecat.setMode('server_error');
    const client = makeClient({ retries: 2, breaker: { failureThreshold: 1, coolDownMs: 5_000 } });
    await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'server_error');
    expect(client.breakerState()).toBe('open');
    vi.advanceTimersByTime(5_000);
    expect(client.breakerState()).toBe('half_open');
    const before = icecat.requests();
    await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'server_error');
    expect(icecat.requests()).toBe(before + 1);
    expect(client.breakerState()).toBe('open');
    vi.advanceTimersByTime(4_999);
    await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'circuit_open');
    expect(icecat.requests()).toBe(before + 1);
  });

  it('lets only one probe through while half-open; lookups arriving meanwhile wait for its outcome', async () => {
    controlBreakerClock();
    icecat.setMode('server_error');
    const client = makeClient({ retries: 0, timeoutMs: 60, breaker: { failureThreshold: 1, coolDownMs: 1_000 } });
    await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'server_error');
    const lookupTwice = () =>
      Promise.allSettled([client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), client.lookup({ gtin: FAKE_GTINS.elitebook })]);

    // A probe that times out: the waiting lookup fails fast, without a request of its own.
    vi.advanceTimersByTime(1_000);
    icecat.setMode('timeout');
    const [probe, waiting] = await lookupTwice();
    expect(probe.status === 'rejected' && (probe.reason as IcecatUnavailableError).reason).toBe('timeout');
    expect(waiting.status === 'rejected' && (waiting.reason as IcecatUnavailableError).reason).toBe('circuit_open');
    expect(icecat.requests()).toBe(2);
    expect(client.breakerState()).toBe('open');

    // A probe that answers: the breaker closes and the waiting lookup goes ahead.
    vi.advanceTimersByTime(1_000);
    icecat.setMode('normal');
    const answers = await lookupTwice();
    expect(answers.map((a) => a.status === 'fulfilled' && a.value.found)).toEqual([true, true]);
    expect(icecat.requests()).toBe(4);
    expect(client.breakerState()).toBe('closed');
  });

  it('does not count answers from a working server (auth, malformed) as failures', async () => {
    const client = makeClient({ breaker: { failureThreshold: 1, coolDownMs: 1_000 } });
    icecat.queueModes('unauthorized', 'malformed', 'forbidden');
    await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'auth');
    await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'malformed_response');
    await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'auth');
    expect(client.breakerState()).toBe('closed');
    icecat.setMode('unavailable');
    await expectReason(client.lookup({ brand: 'HP', productCode: '3C6D4EA' }), 'server_error');
    expect(client.breakerState()).toBe('open');
  });
});

describe('unit parsing', () => {
  it('weights', () => {
    expect(parseWeightKg('1.39 kg')).toBe(1.39);
    expect(parseWeightKg('1390 g')).toBe(1.39);
    expect(parseWeightKg('234 g')).toBe(0.234);
    expect(parseWeightKg('3.06 lbs')).toBe(1.388);
    expect(parseWeightKg('1,39 kg')).toBe(1.39);
    expect(parseWeightKg('1,390 g')).toBe(1.39);
    expect(parseWeightKg('1390')).toBeUndefined();
    expect(parseWeightKg('')).toBeUndefined();
  });

  it('screen sizes', () => {
    expect(parseScreenInch('35.6 cm (14")')).toBe(14);
    expect(parseScreenInch('39.6 cm (15.6")')).toBe(15.6);
    expect(parseScreenInch('60.5 cm (23.8\u2033)')).toBe(23.8);
    expect(parseScreenInch('14"')).toBe(14);
    expect(parseScreenInch('13.3 inch')).toBe(13.3);
    expect(parseScreenInch('35.6 cm')).toBe(14);
    expect(parseScreenInch('356 mm')).toBe(14);
    expect(parseScreenInch('Full HD')).toBeUndefined();
  });

  it('data sizes', () => {
    expect(parseDataSizeGb('16 GB')).toBe(16);
    expect(parseDataSizeGb('512 GB')).toBe(512);
    expect(parseDataSizeGb('1 TB')).toBe(1000);
    expect(parseDataSizeGb('1.5 TB')).toBe(1500);
    expect(parseDataSizeGb('512 MB')).toBe(0.5);
    expect(parseDataSizeGb('16 GB (2 x 8 GB)')).toBe(16);
    expect(parseDataSizeGb('16')).toBeUndefined();
  });

  it('battery energy, watts and annual energy', () => {
    expect(parseWattHours('54 Wh')).toBe(54);
    expect(parseWattHours('0.054 kWh')).toBe(54);
    expect(parseWattHours('5000 mAh')).toBeUndefined();
    expect(batteryWh('54 Wh')).toBe(54);
    expect(batteryWh('5000 mAh', '3.88 V')).toBe(19.4);
    expect(batteryWh('5000 mAh')).toBeUndefined();
    expect(parseWatts('15 W')).toBe(15);
    expect(parseWatts('0.5 kW')).toBe(500);
    expect(parseWatts('54 Wh')).toBeUndefined();
    expect(parseAnnualKwh('18.5 kWh', 'year')).toBe(18.5);
    expect(parseAnnualKwh('18.5 kWh')).toBeUndefined();
    expect(parseAnnualKwh('0.5 kWh/week')).toBe(26);
    expect(parseAnnualKwh('21 kWh per year')).toBe(21);
    expect(parseAnnualKwh('12 kWh/1000h', 'year')).toBeUndefined();
  });

  it('maps specs from raw values when there is no presentation value, and TEC per week for printers', () => {
    const data = icecatProductJson({
      icecatId: 7,
      brand: 'Brother',
      productCode: 'HL-L2350DW',
      productName: 'HL-L2350DW',
      category: { id: 9, name: 'Laser printers' },
      features: [
        { name: 'Weight', value: '7200', sign: 'g', presentation: '' },
        { name: 'Typical Electricity Consumption (TEC)', value: '0.5', sign: 'kWh' },
      ],
    }).data;
    expect(toIcecatProduct(data)).toEqual({
      icecat_id: 7,
      brand: 'Brother',
      mpn: 'HL-L2350DW',
      name: 'Brother HL-L2350DW',
      icecat_category: 'Laser printers',
      mapped_category: 'printer',
      specs: { weight_kg: 7.2, typical_consumption_kwh: 26 },
    });
  });

  it('refines notebooks and desktops from product type, OS and title', () => {
    const sheet = (category: string, features: Array<{ name: string; value: string }>, title?: string) =>
      toIcecatProduct(
        icecatProductJson({
          icecatId: 1,
          brand: 'X',
          productCode: 'Y',
          productName: 'Z',
          category: { id: 1, name: category },
          features,
          ...(title ? { title } : {}),
        }).data,
      ).mapped_category;
    expect(sheet('Notebooks', [{ name: 'Operating system installed', value: 'Chrome OS' }])).toBe('chromebook');
    expect(sheet('Notebooks', [{ name: 'Product type', value: 'Mobile workstation' }])).toBe('mobile_workstation');
    expect(sheet('Notebooks', [], 'Panasonic Toughbook 40 rugged notebook')).toBe('rugged_laptop');
    expect(sheet('PCs/Workstations', [{ name: 'Product type', value: 'Workstation' }])).toBe('workstation');
    expect(sheet('PCs/Workstations', [{ name: 'Form factor', value: 'Mini PC' }])).toBe('mini_pc');
    expect(sheet('PCs/Workstations', [{ name: 'Form factor', value: 'Tower' }])).toBe('desktop');
    expect(sheet('Servers', [{ name: 'Form factor', value: 'Tower' }])).toBe('tower_server');
    expect(sheet('Servers', [{ name: 'Form factor', value: 'Rack (1U)' }])).toBe('server');
  });
});

describe('mapIcecatCategory', () => {
  it.each([
    ['Notebooks', 'laptop'],
    ['PCs/Workstations', 'desktop'],
    ['All-in-One PCs/Workstations', 'all_in_one'],
    ['Workstations', 'workstation'],
    ['Mobile workstations', 'mobile_workstation'],
    ['Thin clients', 'thin_client'],
    ['PC/workstation barebones', 'mini_pc'],
    ['Computer monitors', 'monitor'],
    ['PC Flat Panels', 'monitor'],
    ['Tablets', 'tablet'],
    ['Smartphones', 'smartphone'],
    ['Mobile phones', 'smartphone'],
    ['Feature phones', 'feature_phone'],
    ['Servers', 'server'],
    ['Tower servers', 'tower_server'],
    ['Blade servers', 'blade_server'],
    ['Disk arrays', 'storage_array'],
    ['NAS & storage servers', 'nas'],
    ['Laser printers', 'printer'],
    ['Inkjet printers', 'printer'],
    ['Multifunctionals', 'multifunction_printer'],
    ['Label printers', 'label_printer'],
    ['POS printers', 'printer'],
    ['Scanners', 'scanner'],
    ['Bar code readers', 'barcode_scanner'],
    ['POS systems', 'pos_terminal'],
    ['All-in-One POS', 'pos_terminal'],
    ['Network switches', 'network_switch'],
    ['KVM switches', 'kvm_switch'],
    ['Wireless routers', 'router'],
    ['WLAN access points', 'access_point'],
    ['Firewalls (hardware)', 'firewall'],
    ['DSL modems', 'modem'],
    ['External hard drives', 'external_hdd'],
    ['External solid state drives', 'external_ssd'],
    ['Data projectors', 'projector'],
    ['Notebook docks & port replicators', 'docking_station'],
    ['IP phones', 'ip_phone'],
    ['Home game consoles', 'game_console'],
    ['Uninterruptible power supplies (UPSs)', 'ups'],
    ['Webcams', 'webcam'],
    ['Headphones & Headsets', 'headset'],
    ['Keyboards', 'keyboard'],
    ['Mice', 'mouse'],
    ['Video conferencing systems', 'video_conferencing'],
    ['Interactive whiteboards', 'interactive_display'],
    ['Signage displays', 'digital_signage'],
    ['TVs', 'television'],
    ['Smartwatches & Sport Watches', 'smartwatch'],
    ['e-book readers', 'e_reader'],
    ['Chromebooks', 'chromebook'],
    ['Convertible notebooks', 'convertible'],
    ['Rugged notebooks', 'rugged_laptop'],
  ])('%s -> %s', (name, id) => {
    expect(mapIcecatCategory(name)).toBe(id);
    expect(SERVICE_CATEGORY_IDS).toContain(id);
  });

  it.each([
    'Notebook cases',
    'Tablet cases',
    'Toner cartridges',
    'Ink cartridges',
    'Projector lamps',
    'Projection screens',
    'Internal solid state drives',
    'Internal hard drives',
    'Memory modules',
    'UPS batteries',
    'Notebook spare parts',
    'Monitor mounts & stands',
    'Mouse pads',
    'Smartphone screen protectors',
    'Headphone & headset accessories',
    'Cables',
    'Graphic tablets',
    'Warranty & support extensions',
    'Coffee makers',
    '',
  ])('%s -> null', (name) => {
    expect(mapIcecatCategory(name)).toBeNull();
  });
});

describe('looksLikeGtin', () => {
  it.each(['4006381333931', '036000291452', '96385074', '10012345678902', '4 006381 333931', FAKE_GTINS.galaxy])('%s is a GTIN', (s) => {
    expect(looksLikeGtin(s)).toBe(true);
  });
  it.each([
    '4006381333932',
    '03600029145',
    '1234567890',
    '400638133393100',
    'ABC4006381333931',
    '4006381-333931',
    '00000000',
    '',
    '3C6D4EA',
  ])('%s is not a GTIN', (s) => {
    expect(looksLikeGtin(s)).toBe(false);
  });
});
