/**
 * Blancco erasure reports for tests and the benchmark, in the JSON shape of the portal's report
 * export (docs/erasure-sync.md): `blanccoReport(options)` builds one from plain options; the named
 * fixtures are devices of the built-in catalogue (fixtures.test.ts checks that the lookup finds
 * them); `generateReports(count, seed)` makes a deterministic mix for the benchmark.
 */
import { prng } from '../../src/assets/seed-demo.ts';

export type BlanccoState = 'Successful' | 'Failed';

export interface BlanccoDisk {
  capacityBytes: number;
  /** "SSD", "HDD", "UFS", ... */
  type?: string;
  /** "NVMe", "SATA", "SAS", ... */
  interface?: string;
}

/** Leaves and sections `omit` can leave out of the default report. */
export type BlanccoPart =
  | 'manufacturer'
  | 'model'
  | 'serial'
  | 'chassis'
  | 'processors'
  | 'memory'
  | 'disks'
  | 'batteries'
  | 'displays'
  | 'erasure'
  | 'hardware';

export interface BlanccoReportOptions {
  uuid?: string;
  manufacturer?: string;
  model?: string;
  serial?: string;
  chassis?: string;
  processor?: string;
  /** identical processors (sockets); default 1 */
  processorCount?: number;
  ramBytes?: number;
  disks?: BlanccoDisk[];
  /** phones: a `storage` node instead of disks */
  storage?: BlanccoDisk;
  battery?: { value: number; unit: string };
  displayInch?: number;
  imei?: string;
  /** state of every erasure target (one per disk), or one state per target */
  state?: BlanccoState | BlanccoState[];
  /** end_time of the last target (ISO date-time); earlier targets end a minute apart before it */
  erasedAt?: string;
  omit?: readonly BlanccoPart[];
}

type Leaf = { name: string; type: string; value: string };
type Node = { name: string; entries?: Node[]; entry?: Leaf[] };

const text = (name: string, value: string): Leaf => ({ name, type: 'string', value });
const uint = (name: string, value: number): Leaf => ({ name, type: 'uint', value: String(value) });
const float = (name: string, value: number): Leaf => ({ name, type: 'float', value: value.toFixed(1) });

const MINUTE_MS = 60_000;

/** The report of the spec's example: a Dell Latitude 5420 erased on 2026-11-20, unless options say otherwise. */
export function blanccoReport(options: BlanccoReportOptions = {}): Record<string, unknown> {
  const o = {
    uuid: '6f1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7c01',
    manufacturer: 'Dell Inc.',
    model: 'Latitude 5420',
    serial: '7QX2KH3',
    chassis: 'Notebook',
    processor: '11th Gen Intel(R) Core(TM) i5-1145G7 @ 2.60GHz',
    processorCount: 1,
    ramBytes: 17_179_869_184,
    disks: [{ capacityBytes: 256_060_514_304, type: 'SSD', interface: 'NVMe' }],
    battery: { value: 63_000, unit: 'mWh' },
    displayInch: 14,
    state: 'Successful' as BlanccoState | BlanccoState[],
    erasedAt: '2026-11-20T10:14:00Z',
    ...options,
  };
  const omitted = new Set(options.omit ?? []);
  const has = (part: BlanccoPart) => !omitted.has(part);
  const drives = o.storage ? [o.storage] : has('disks') ? o.disks : [];

  const system: Leaf[] = [
    ...(has('manufacturer') ? [text('manufacturer', o.manufacturer)] : []),
    ...(has('model') ? [text('model', o.model)] : []),
    ...(has('serial') ? [text('serial', o.serial)] : []),
    ...(o.imei ? [text('imei', o.imei)] : []),
    ...(has('chassis') ? [text('chassis_type', o.chassis)] : []),
  ];
  const hardware: Node[] = [
    { name: 'system', entry: system },
    ...(has('processors')
      ? [
          {
            name: 'processors',
            entries: Array.from({ length: o.processorCount }, () => ({ name: 'processor', entry: [text('model', o.processor)] })),
          },
        ]
      : []),
    ...(has('memory') ? [{ name: 'memory', entry: [uint('total_memory', o.ramBytes)] }] : []),
    ...(o.storage
      ? [{ name: 'storage', entry: driveLeaves(o.storage) }]
      : has('disks')
        ? [{ name: 'disks', entries: o.disks.map((d) => ({ name: 'disk', entry: driveLeaves(d) })) }]
        : []),
    ...(has('batteries') && o.battery
      ? [
          {
            name: 'batteries',
            entries: [{ name: 'battery', entry: [uint('design_capacity', o.battery.value), text('capacity_unit', o.battery.unit)] }],
          },
        ]
      : []),
    ...(has('displays') ? [{ name: 'displays', entries: [{ name: 'display', entry: [float('diagonal_inch', o.displayInch)] }] }] : []),
  ];

  const targetCount = Array.isArray(o.state) ? o.state.length : Math.max(1, drives.length);
  const erasedAt = Date.parse(o.erasedAt);
  const targets: Node[] = Array.from({ length: targetCount }, (_, i) => ({
    name: 'target',
    entry: [
      text('state', Array.isArray(o.state) ? o.state[i]! : o.state),
      text('end_time', new Date(erasedAt - (targetCount - 1 - i) * MINUTE_MS).toISOString().replace('.000Z', 'Z')),
      ...(drives[i] ? [uint('capacity', drives[i].capacityBytes)] : []),
    ],
  }));

  return {
    blancco_data: {
      description: { document_id: o.uuid, date: new Date(erasedAt + MINUTE_MS).toISOString().replace('.000Z', 'Z') },
      ...(has('erasure') ? { blancco_erasure_report: { entries: [{ name: 'erasures', entries: targets }] } } : {}),
      ...(has('hardware') ? { blancco_hardware_report: { entries: hardware } } : {}),
    },
  };
}

function driveLeaves(drive: BlanccoDisk): Leaf[] {
  return [
    uint('capacity', drive.capacityBytes),
    ...(drive.interface ? [text('interface_type', drive.interface)] : []),
    ...(drive.type ? [text('type', drive.type)] : []),
  ];
}

// ---------------------------------------------------------------------------------------------
// Named fixtures (uuids fixed so tests can name them)

/** Dell Latitude 5420: 16 GiB, 256 GB NVMe, 63 Wh, 14". */
export const laptopReport = blanccoReport({ uuid: '6f1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7c01' });

/** HP EliteDesk 800 G6 SFF with a 512 GB SATA SSD and a 1 TB hard disk (the larger one). */
export const desktopReport = blanccoReport({
  uuid: '6f1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7c02',
  manufacturer: 'HP',
  model: 'HP EliteDesk 800 G6 Small Form Factor PC',
  serial: 'CZC0123ABC',
  chassis: 'Space-saving',
  processor: 'Intel(R) Core(TM) i5-10500 CPU @ 3.10GHz',
  ramBytes: 8_589_934_592,
  disks: [
    { capacityBytes: 512_110_190_592, type: 'SSD', interface: 'SATA' },
    { capacityBytes: 1_000_204_886_016, type: 'HDD', interface: 'SATA' },
  ],
  erasedAt: '2026-11-20T11:02:00Z',
  omit: ['batteries', 'displays'],
});

/** HPE ProLiant DL380 Gen10 Plus: two sockets, 256 GiB, four 1.92 TB SAS SSDs (within the server category's limits). */
export const serverReport = blanccoReport({
  uuid: '6f1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7c03',
  manufacturer: 'HPE',
  model: 'ProLiant DL380 Gen10 Plus',
  serial: 'CZJ1234567',
  chassis: 'Rack Mount Chassis',
  processor: 'Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz',
  processorCount: 2,
  ramBytes: 274_877_906_944,
  disks: Array.from({ length: 4 }, () => ({ capacityBytes: 1_920_383_410_176, type: 'SSD', interface: 'SAS' })),
  erasedAt: '2026-11-20T12:00:00Z',
  omit: ['batteries', 'displays'],
});

/** Samsung Galaxy S23 (Blancco Mobile): IMEI instead of a serial, no chassis type, 3900 mAh, 128 GB UFS. */
export const phoneReport = blanccoReport({
  uuid: '6f1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7c04',
  manufacturer: 'samsung',
  model: 'SM-S911B',
  imei: '356938035643809',
  processor: 'Qualcomm Snapdragon 8 Gen 2',
  ramBytes: 8_589_934_592,
  storage: { capacityBytes: 128_000_000_000, type: 'UFS' },
  battery: { value: 3900, unit: 'mAh' },
  displayInch: 6.1,
  erasedAt: '2026-11-20T13:30:00Z',
  omit: ['serial', 'chassis'],
});

/** Lenovo ThinkPad T14 Gen 2 (by its machine type) with only manufacturer, model and serial. */
export const missingFieldsReport = blanccoReport({
  uuid: '6f1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7c05',
  manufacturer: 'LENOVO',
  model: '20W000AXGE',
  serial: 'PF2XK9LM',
  erasedAt: '2026-11-20T14:00:00Z',
  omit: ['chassis', 'processors', 'memory', 'disks', 'batteries', 'displays'],
});

/** A report whose hardware section is not an object (a truncated payload), with a document_id. */
export const corruptReport = {
  blancco_data: {
    description: { document_id: '6f1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7c06', date: '2026-11-20T14:31:00Z' },
    blancco_erasure_report: {
      entries: [
        { name: 'erasures', entries: [{ name: 'target', entry: [text('state', 'Successful'), text('end_time', '2026-11-20T14:30:00Z')] }] },
      ],
    },
    blancco_hardware_report: 'PGVudHJpZXMgbmFtZT0ic3lzdGVt',
  },
};

/** Dell Latitude 7420 whose erasure failed. */
export const unsuccessfulReport = blanccoReport({
  uuid: '6f1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7c07',
  model: 'Latitude 7420',
  serial: '9HT3LM2',
  state: 'Failed',
  erasedAt: '2026-11-20T15:00:00Z',
});

// ---------------------------------------------------------------------------------------------
// A generated mix for the benchmark

export type DeviceKind = 'laptop' | 'desktop' | 'server' | 'phone';

/** Manufacturer and model strings as firmware reports them, each a device of the built-in catalogue. */
export const CATALOGUE_MODELS: Readonly<Record<DeviceKind, readonly { manufacturer: string; model: string }[]>> = {
  laptop: [
    { manufacturer: 'Dell Inc.', model: 'Latitude 5420' },
    { manufacturer: 'Dell Inc.', model: 'Latitude 7420' },
    { manufacturer: 'Dell Inc.', model: 'Latitude 5430' },
    { manufacturer: 'HP', model: 'HP EliteBook 840 G8 Notebook PC' },
    { manufacturer: 'HP', model: 'HP ProBook 450 G8 Notebook PC' },
    { manufacturer: 'LENOVO', model: '20W000AXGE' },
    { manufacturer: 'Apple Inc.', model: 'MacBookPro18,3' },
  ],
  desktop: [
    { manufacturer: 'HP', model: 'HP EliteDesk 800 G6 Small Form Factor PC' },
    { manufacturer: 'HP', model: 'HP Elite Tower 800 G9 Desktop PC' },
    { manufacturer: 'Dell Inc.', model: 'OptiPlex Tower 7010' },
    { manufacturer: 'FUJITSU', model: 'ESPRIMO D7011' },
  ],
  server: [
    { manufacturer: 'HPE', model: 'ProLiant DL380 Gen10 Plus' },
    { manufacturer: 'Dell Inc.', model: 'PowerEdge R740' },
    { manufacturer: 'Lenovo', model: 'ThinkSystem SR650' },
  ],
  phone: [
    { manufacturer: 'samsung', model: 'SM-S911B' },
    { manufacturer: 'Apple', model: 'iPhone 13 mini' },
    { manufacturer: 'Google', model: 'Pixel 7' },
  ],
};

const GIB = 2 ** 30;
const GB = 1e9;
const DAY_MS = 86_400_000;

/** 14 digits + the Luhn check digit. */
function imeiOf(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const d = Number(body[body.length - 1 - i]) * (i % 2 === 0 ? 2 : 1);
    sum += d > 9 ? d - 9 : d;
  }
  return body + String((10 - (sum % 10)) % 10);
}

/**
 * `count` reports: about 60 % laptops, 25 % desktops, 5 % servers, 10 % phones; 70 % of them
 * catalogue models, the rest unknown; 2 % failed erasures; erased within the 60 days before `now`.
 * Uuids, serials and IMEIs are unique within a call and the same for the same seed.
 */
export function generateReports(count: number, seed: number, options: { now?: Date } = {}): Record<string, unknown>[] {
  const random = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const now = (options.now ?? new Date()).getTime();
  const hex = (digits: number) => Array.from({ length: digits }, () => Math.floor(random() * 16).toString(16)).join('');
  const reports: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const r = random();
    const kind: DeviceKind = r < 0.6 ? 'laptop' : r < 0.85 ? 'desktop' : r < 0.9 ? 'server' : 'phone';
    const known = random() < 0.7;
    const variant = Math.floor(random() * 9) + 1;
    const { manufacturer, model } = known ? pick(CATALOGUE_MODELS[kind]) : unknownModel(kind, variant);
    const common: BlanccoReportOptions = {
      uuid: `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${i.toString(16).padStart(12, '0')}`,
      manufacturer,
      model,
      state: random() < 0.02 ? 'Failed' : 'Successful',
      erasedAt: new Date(now - Math.floor(random() * 60 * DAY_MS)).toISOString(),
    };
    const serial = `G${seed.toString(36).toUpperCase()}${i.toString(36).toUpperCase().padStart(7, '0')}`;
    reports.push(blanccoReport({ ...common, ...specsOf(kind, serial, seed, i, pick) }));
  }
  return reports;
}

function unknownModel(kind: DeviceKind, variant: number): { manufacturer: string; model: string } {
  switch (kind) {
    case 'laptop':
      return { manufacturer: 'Contoso Ltd.', model: `Contoso Book 14 G${variant}` };
    case 'desktop':
      return { manufacturer: 'Fabrikam, Inc.', model: `Fabrikam Tower ${variant}00` };
    case 'server':
      return { manufacturer: 'Fabrikam, Inc.', model: `Fabrikam Rack R${variant}` };
    case 'phone':
      return { manufacturer: 'Contoso Ltd.', model: `Contoso Phone X${variant}` };
  }
}

function specsOf(kind: DeviceKind, serial: string, seed: number, index: number, pick: <T>(list: readonly T[]) => T): BlanccoReportOptions {
  switch (kind) {
    case 'laptop':
      return {
        serial,
        chassis: 'Notebook',
        ramBytes: pick([8, 16, 32]) * GIB,
        disks: [{ capacityBytes: pick([256, 512, 1024]) * GB, type: 'SSD', interface: pick(['NVMe', 'SATA']) }],
        battery: { value: pick([42_000, 54_000, 63_000, 90_000]), unit: 'mWh' },
        displayInch: pick([13.3, 14, 15.6]),
      };
    case 'desktop':
      return {
        serial,
        chassis: 'Desktop',
        ramBytes: pick([8, 16, 32]) * GIB,
        disks: [
          { capacityBytes: pick([256, 512]) * GB, type: 'SSD', interface: 'NVMe' },
          ...pick([[], [{ capacityBytes: 1000 * GB, type: 'HDD', interface: 'SATA' }]]),
        ],
        omit: ['batteries', 'displays'],
      };
    case 'server':
      return {
        serial,
        chassis: 'Rack Mount Chassis',
        processorCount: 2,
        processor: 'Intel(R) Xeon(R) Silver 4214 CPU @ 2.20GHz',
        ramBytes: pick([64, 128, 256, 512]) * GIB,
        disks: Array.from({ length: pick([2, 4, 8]) }, () =>
          pick([
            { capacityBytes: 960 * GB, type: 'SSD', interface: 'SAS' },
            { capacityBytes: 2400 * GB, type: 'HDD', interface: 'SAS' },
          ]),
        ),
        omit: ['batteries', 'displays'],
      };
    case 'phone':
      return {
        imei: imeiOf(`35${String(seed % 1000).padStart(3, '0')}${String(index).padStart(9, '0')}`),
        storage: { capacityBytes: pick([64, 128, 256]) * GB, type: 'UFS' },
        battery: { value: pick([3000, 3900, 4500, 5000]), unit: 'mAh' },
        displayInch: pick([6.1, 6.4, 6.7]),
        omit: ['serial', 'chassis', 'processors'],
      };
  }
}
