/**
 * A local fake of the Open Icecat JSON product API (GET /api?UserName=&Language=&Brand=&ProductCode=
 * or &GTIN= or &icecat_id=) for tests. It listens on 127.0.0.1 on an ephemeral port and answers in
 * the documented shape:
 *
 *   found:      200 {"msg": "OK", "data": {"GeneralInfo": {...}, "FeaturesGroups": [...], ...}}
 *   not found:  404 {"msg": "Error", "Message": "The requested product is not present in the Icecat database", "StatusCode": 8, "Code": 404}
 *   restricted: 403 {..., "StatusCode": 9}   (product only for Full Icecat)
 *   bad ids:    400 {..., "StatusCode": 4}   (no GTIN, no Brand + ProductCode, no icecat_id)
 *   no lang:    400 {..., "StatusCode": 1}
 *
 * Behaviour is switchable: `setMode(mode)` for every following request, `setMode(mode, { times })`
 * or `queueModes(...)` for the next requests only (then the persistent mode applies again).
 *
 *   const icecat = await startFakeIcecat();
 *   icecat.setMode('server_error', { times: 1 });   // first request 500, then normal
 *   const client = new IcecatClient({ baseUrl: icecat.url, username: 'test' });
 *   ...
 *   await icecat.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeIcecatMode =
  /** Answer from the product table: data-sheet or documented not-found. Alias: 'found'. */
  | 'normal'
  | 'found'
  /** Documented not-found answer (StatusCode 8) whatever is asked. */
  | 'not_found'
  /** Documented "Full Icecat only" answer (HTTP 403, StatusCode 9). */
  | 'restricted'
  /** HTTP 500 with an HTML body. */
  | 'server_error'
  /** HTTP 503 with an empty body. */
  | 'unavailable'
  /** Accepts the request and never answers (until the client gives up or the fake closes). */
  | 'timeout'
  /** HTTP 200, Content-Type JSON, truncated JSON body. */
  | 'malformed'
  /** HTTP 429 with Retry-After (default "1"; `retryAfter: null` omits the header). */
  | 'rate_limited'
  /** HTTP 401, documented "user is unknown" (StatusCode 3). */
  | 'unauthorized'
  /** HTTP 403, documented "wrong ip address for access" (StatusCode 5). */
  | 'forbidden'
  /** Destroys the socket without answering (network error on the client). */
  | 'reset';

export interface FakeModeOptions {
  /** Apply to the next `times` requests only; afterwards the persistent mode applies again. */
  times?: number;
  /** Retry-After header value for 'rate_limited' (default "1"); null omits the header. */
  retryAfter?: string | null;
}

export interface FakeIcecatFeature {
  /** Feature group name, e.g. "Display". Default "General". */
  group?: string;
  /** Icecat's English feature name, e.g. "Display diagonal". */
  name: string;
  /** Raw value in the feature's measure, e.g. "35.6". */
  value: string;
  /** Measure sign, e.g. "cm". */
  sign?: string;
  /** Presentation value, e.g. "35.6 cm (14\")". Default: value + sign. */
  presentation?: string;
}

export interface FakeIcecatProduct {
  icecatId: number;
  brand: string;
  productCode: string;
  gtins?: string[];
  productName: string;
  title?: string;
  category: { id: number; name: string };
  features: FakeIcecatFeature[];
  /** Answer with the documented "Full Icecat only" error instead of the data-sheet. */
  restricted?: boolean;
}

export interface FakeIcecatRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | undefined>;
  mode: FakeIcecatMode;
}

export interface FakeIcecatOptions {
  /** Initial product table (default: {@link defaultFakeProducts}). */
  products?: FakeIcecatProduct[];
  /** When set, requests whose `api-token` header differs get a 401 (StatusCode 10). */
  apiToken?: string;
  /** When set, requests whose UserName/shopname differs get a 401 (StatusCode 3). */
  username?: string;
}

export interface FakeIcecat {
  /** Base URL to configure the client with, e.g. http://127.0.0.1:12345/api */
  url: string;
  /** Persistent mode, or with `times` a mode for the next requests only. */
  setMode(mode: FakeIcecatMode, options?: FakeModeOptions): void;
  /** Modes for the next requests, one each, in order. */
  queueModes(...modes: FakeIcecatMode[]): void;
  /** Requests received (including ones never answered). */
  requests(): number;
  /** What each request asked for. */
  requestLog(): FakeIcecatRequest[];
  /** The product table; mutable. */
  products: FakeIcecatProduct[];
  addProduct(product: FakeIcecatProduct): void;
  /** Back to mode 'normal', no queued modes, request count 0, initial product table. */
  reset(): void;
  close(): Promise<void>;
}

/** Appends the GS1 check digit to `body` (7, 11, 12 or 13 digits). */
export function withCheckDigit(body: string): string {
  let sum = 0;
  for (let i = body.length - 1, w = 3; i >= 0; i--, w = w === 3 ? 1 : 3) sum += Number(body[i]) * w;
  return body + String((10 - (sum % 10)) % 10);
}

const f = (group: string, name: string, value: string, sign = '', presentation?: string): FakeIcecatFeature => ({
  group,
  name,
  value,
  ...(sign ? { sign } : {}),
  ...(presentation !== undefined ? { presentation } : {}),
});

/** GTINs of the default products. */
export const FAKE_GTINS = {
  elitebook: withCheckDigit('019516123456'), // GTIN-13
  monitor: withCheckDigit('588406123456'), // GTIN-13
  galaxy: withCheckDigit('88066123456'), // GTIN-12 (UPC-A)
  yoga: withCheckDigit('019512345678'),
  restricted: withCheckDigit('871234567890'),
} as const;

/** A small product table covering the mapped spec fields. */
export function defaultFakeProducts(): FakeIcecatProduct[] {
  return [
    {
      icecatId: 85000001,
      brand: 'HP',
      productCode: '3C6D4EA',
      gtins: [FAKE_GTINS.elitebook],
      productName: 'EliteBook 840 G8',
      title: 'HP EliteBook 840 G8 Notebook 35.6 cm (14") Full HD Intel® Core™ i5 16 GB DDR4-SDRAM 512 GB SSD Wi-Fi 6 Windows 11 Pro Silver',
      category: { id: 151, name: 'Notebooks' },
      features: [
        f('Design', 'Product type', 'Clamshell'),
        f('Design', 'Form factor', 'Clamshell'),
        f('Display', 'Display diagonal', '35.6', 'cm', '35.6 cm (14")'),
        f('Display', 'Display technology', 'LCD'),
        f('Display', 'Panel type', 'IPS'),
        f('Processor', 'Processor family', 'Intel® Core™ i5'),
        f('Processor', 'Processor thermal design power (TDP)', '15', 'W', '15 W'),
        f('Memory', 'Internal memory', '16', 'GB', '16 GB'),
        f('Memory', 'Maximum internal memory', '64', 'GB', '64 GB'),
        f('Storage', 'Total storage capacity', '512', 'GB', '512 GB'),
        f('Storage', 'Storage media', 'SSD'),
        f('Storage', 'NVMe', 'Y', '', 'Yes'),
        f('Battery', 'Battery capacity (Watt-hours)', '54', 'Wh', '54 Wh'),
        f('Power', 'Power consumption (typical)', '15', 'W', '15 W'),
        f('Power', 'Annual energy consumption', '18.5', 'kWh', '18.5 kWh'),
        f('Software', 'Operating system installed', 'Windows 11 Pro'),
        f('Weight & dimensions', 'Weight', '1390', 'g', '1.39 kg'),
        f('Packaging data', 'Package weight', '2100', 'g', '2.1 kg'),
      ],
    },
    {
      icecatId: 85000002,
      brand: 'Dell',
      productCode: 'DELL-P2422H',
      gtins: [FAKE_GTINS.monitor],
      productName: 'P2422H',
      title: 'DELL P Series P2422H 60.5 cm (23.8") 1920 x 1080 pixels Full HD LCD Black',
      category: { id: 1584, name: 'Computer monitors' },
      features: [
        f('Display', 'Display diagonal', '60.5', 'cm', '60.5 cm (23.8")'),
        f('Display', 'Display technology', 'LCD'),
        f('Display', 'Panel type', 'IPS'),
        f('Power', 'Power consumption (typical)', '14.6', 'W', '14.6 W'),
        f('Power', 'Energy consumption (SDR) per 1000 hours', '12', 'kWh', '12 kWh'),
        f('Weight & dimensions', 'Weight (with stand)', '5300', 'g', '5.3 kg'),
        f('Weight & dimensions', 'Weight (without stand)', '3200', 'g', '3.2 kg'),
      ],
    },
    {
      icecatId: 85000003,
      brand: 'Samsung',
      productCode: 'SM-S918BZKDEUB',
      gtins: [FAKE_GTINS.galaxy],
      productName: 'Galaxy S23 Ultra',
      title: 'Samsung Galaxy S23 Ultra SM-S918B 17.3 cm (6.8") Dual SIM 5G USB Type-C 8 GB 256 GB 5000 mAh Black',
      category: { id: 1893, name: 'Smartphones' },
      features: [
        f('Display', 'Display diagonal', '17.3', 'cm', '17.3 cm (6.8")'),
        f('Display', 'Display technology', 'Dynamic AMOLED 2X'),
        f('Memory', 'RAM capacity', '8', 'GB', '8 GB'),
        f('Storage', 'Internal storage capacity', '256', 'GB', '256 GB'),
        f('Battery', 'Battery capacity', '5000', 'mAh', '5000 mAh'),
        f('Battery', 'Battery voltage', '3.88', 'V', '3.88 V'),
        f('Weight & dimensions', 'Weight', '234', 'g', '234 g'),
      ],
    },
    {
      icecatId: 85000004,
      brand: 'Lenovo',
      productCode: '21HQ002QGE',
      gtins: [FAKE_GTINS.yoga],
      productName: 'ThinkPad X1 Yoga Gen 8',
      category: { id: 151, name: 'Notebooks' },
      features: [
        f('Design', 'Product type', 'Hybrid (2-in-1)'),
        f('Design', 'Form factor', 'Convertible (Folder)'),
        f('Display', 'Display diagonal', '35.6', 'cm', '35.6 cm (14")'),
        f('Display', 'Display technology', 'OLED'),
        f('Memory', 'Internal memory', '32', 'GB', '32 GB'),
        f('Storage', 'Total storage capacity', '1000', 'GB', '1 TB'),
        f('Storage', 'Storage media', 'SSD'),
        f('Battery', 'Battery capacity (Watt-hours)', '57', 'Wh', '57 Wh'),
        f('Weight & dimensions', 'Weight', '1380', 'g', '1380 g'),
      ],
    },
    {
      icecatId: 85000005,
      brand: 'Acme',
      productCode: 'FULL-ONLY-1',
      gtins: [FAKE_GTINS.restricted],
      productName: 'Restricted Laptop',
      category: { id: 151, name: 'Notebooks' },
      features: [],
      restricted: true,
    },
  ];
}

let nextFeatureId = 1000;

/** The documented Open Icecat JSON answer for one product. */
export function icecatProductJson(product: FakeIcecatProduct, language = 'EN'): Record<string, unknown> {
  const lang = language.toUpperCase();
  const groups = new Map<string, FakeIcecatFeature[]>();
  for (const feature of product.features) {
    const group = feature.group ?? 'General';
    groups.set(group, [...(groups.get(group) ?? []), feature]);
  }
  let groupNo = 0;
  return {
    msg: 'OK',
    data: {
      GeneralInfo: {
        IcecatId: product.icecatId,
        ReleaseDate: '01-01-2023',
        EndOfLifeDate: '',
        Title: product.title ?? `${product.brand} ${product.productName} ${product.productCode}`,
        TitleInfo: { GeneratedIntTitle: `${product.brand} ${product.productName}` },
        Brand: product.brand,
        BrandID: '1',
        BrandLogo: '',
        BrandInfo: { BrandName: product.brand, BrandLocalName: '', BrandLogo: '' },
        ProductName: product.productName,
        ProductNameInfo: { ProductIntName: product.productName, ProductLocalName: '', Language: lang },
        BrandPartCode: product.productCode,
        GTIN: product.gtins ?? [],
        Category: {
          CategoryID: String(product.category.id),
          Name: { ID: product.category.id, Value: product.category.name, Language: lang },
        },
        ProductFamily: {},
        ProductSeries: {},
        Description: {},
        SummaryDescription: {},
        BulletPoints: {},
        GeneratedBulletPoints: { Language: lang, Values: [] },
      },
      Image: {},
      Multimedia: [],
      Gallery: [],
      FeaturesGroups: [...groups.entries()].map(([groupName, features]) => ({
        ID: ++groupNo,
        SortNo: groupNo,
        FeatureGroup: { ID: String(groupNo), Name: { ID: groupNo, Value: groupName, Language: lang } },
        Features: features.map((feature, index) => {
          const id = nextFeatureId++;
          const sign = feature.sign ?? '';
          return {
            Localized: 0,
            ID: id,
            Type: sign ? 'numerical' : 'dropdown',
            Value: feature.value,
            CategoryFeatureId: id,
            CategoryFeatureGroupID: groupNo,
            SortNo: index,
            PresentationValue: feature.presentation ?? (sign ? `${feature.value} ${sign}` : feature.value),
            RawValue: feature.value,
            LocalValue: '',
            Description: '',
            Mandatory: false,
            Searchable: false,
            Feature: {
              ID: String(id),
              Sign: sign,
              Measure: { ID: sign ? String(id) : '', Sign: sign, Signs: { _: sign, [lang]: sign } },
              Name: { ID: id, Value: feature.name, Language: lang },
            },
          };
        }),
      })),
      ReasonsToBuy: [],
      Reviews: [],
      ProductRelated: [],
      Dictionary: {},
    },
  };
}

/** Documented error answer: {"msg": "Error", "Message", "StatusCode", "Code"}. */
function icecatError(statusCode: number, message: string, code: number): Record<string, unknown> {
  return { msg: 'Error', Message: message, StatusCode: statusCode, Code: code, COVID: false };
}

const NOT_FOUND = () => icecatError(8, 'The requested product is not present in the Icecat database', 404);
const RESTRICTED = () =>
  icecatError(9, 'To access Full Icecat content, an app_key is required. Full Icecat users can find it on their My Profile page.', 403);

function normalizeDigits(gtin: string): string {
  return gtin.replace(/\s+/g, '').padStart(14, '0');
}

function param(query: URLSearchParams, ...names: string[]): string | undefined {
  for (const name of names) {
    for (const [key, value] of query) if (key.toLowerCase() === name.toLowerCase() && value !== '') return value;
  }
  return undefined;
}

export async function startFakeIcecat(options: FakeIcecatOptions = {}): Promise<FakeIcecat> {
  const initialProducts = options.products ?? defaultFakeProducts();
  let products = [...initialProducts];
  let mode: FakeIcecatMode = 'normal';
  let retryAfter: string | null = '1';
  let queue: Array<{ mode: FakeIcecatMode; retryAfter: string | null }> = [];
  let log: FakeIcecatRequest[] = [];
  const held = new Set<ServerResponse>();

  const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };

  const answerNormally = (query: URLSearchParams, res: ServerResponse) => {
    const language = param(query, 'Language', 'lang');
    if (!language) return sendJson(res, 400, icecatError(1, 'UserName, and lang are mandatory fields', 400));
    const username = param(query, 'UserName', 'shopname', 'username');
    if (options.username !== undefined && username !== options.username) {
      return sendJson(res, 401, icecatError(3, `${username ?? ''} the Icecat user is unknown`, 401));
    }
    const gtin = param(query, 'GTIN', 'ean_upc');
    const brand = param(query, 'Brand', 'vendor');
    const code = param(query, 'ProductCode', 'prod_id');
    const icecatId = param(query, 'icecat_id');
    let product: FakeIcecatProduct | undefined;
    if (gtin) {
      if (!/^\d+$/.test(gtin.replace(/\s+/g, ''))) return sendJson(res, 400, icecatError(4, 'Product identifier(s) is not correct', 400));
      const wanted = normalizeDigits(gtin);
      product = products.find((p) => (p.gtins ?? []).some((g) => normalizeDigits(g) === wanted));
    } else if (brand && code) {
      product = products.find((p) => p.brand.toLowerCase() === brand.toLowerCase() && p.productCode.toLowerCase() === code.toLowerCase());
    } else if (icecatId) {
      product = products.find((p) => String(p.icecatId) === icecatId);
    } else {
      return sendJson(res, 400, icecatError(4, 'Product identifier(s) is not correct', 400));
    }
    if (!product) return sendJson(res, 404, NOT_FOUND());
    if (product.restricted) return sendJson(res, 403, RESTRICTED());
    return sendJson(res, 200, icecatProductJson(product, language));
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const next = queue.shift();
    const current = next?.mode ?? mode;
    const currentRetryAfter = next ? next.retryAfter : retryAfter;
    const headers: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    log.push({ method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers, mode: current });

    if (options.apiToken !== undefined && req.headers['api-token'] !== options.apiToken) {
      return sendJson(res, 401, icecatError(10, 'Not found user by application_key', 401));
    }
    switch (current) {
      case 'normal':
      case 'found':
        return answerNormally(url.searchParams, res);
      case 'not_found':
        return sendJson(res, 404, NOT_FOUND());
      case 'restricted':
        return sendJson(res, 403, RESTRICTED());
      case 'server_error': {
        const body = '<html><body><h1>500 Internal Server Error</h1></body></html>';
        res.writeHead(500, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(body) });
        return res.end(body);
      }
      case 'unavailable':
        res.writeHead(503, { 'content-length': '0' });
        return res.end();
      case 'timeout':
        held.add(res);
        res.on('close', () => held.delete(res));
        return; // never answers
      case 'malformed': {
        const body = '{"msg":"OK","data":{"GeneralInfo":{"IcecatId":85000001,"Title":"HP Elite';
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        return res.end(body);
      }
      case 'rate_limited':
        return sendJson(
          res,
          429,
          { msg: 'Error', Message: 'Too many requests' },
          currentRetryAfter === null ? {} : { 'retry-after': currentRetryAfter },
        );
      case 'unauthorized':
        return sendJson(res, 401, icecatError(3, 'the Icecat user is unknown', 401));
      case 'forbidden':
        return sendJson(res, 403, icecatError(5, 'You have wrong ip address for access', 403));
      case 'reset':
        req.socket.destroy();
        return;
    }
  };

  const server = createServer((req, res) => {
    // The body of a GET is ignored; consume it so keep-alive works.
    req.resume();
    try {
      handle(req, res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    }
  });
  server.keepAliveTimeout = 1000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  const fake: FakeIcecat = {
    url: `http://127.0.0.1:${port}/api`,
    setMode(newMode, modeOptions = {}) {
      const ra = modeOptions.retryAfter === undefined ? '1' : modeOptions.retryAfter;
      if (modeOptions.times !== undefined) {
        for (let i = 0; i < modeOptions.times; i++) queue.push({ mode: newMode, retryAfter: ra });
      } else {
        mode = newMode;
        retryAfter = ra;
      }
    },
    queueModes(...modes) {
      for (const m of modes) queue.push({ mode: m, retryAfter: '1' });
    },
    requests: () => log.length,
    requestLog: () => [...log],
    get products() {
      return products;
    },
    set products(value: FakeIcecatProduct[]) {
      products = value;
    },
    addProduct(product) {
      products.push(product);
    },
    reset() {
      mode = 'normal';
      retryAfter = '1';
      queue = [];
      log = [];
      products = [...initialProducts];
    },
    async close() {
      for (const res of held) res.destroy();
      held.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
