import { describe, expect, it } from 'vitest';
import { BlanccoPageError, brandName, erasureSummary, parseReport, reportsOfPage, type ParsedReport } from './blancco-report.ts';
import { CATEGORY_IDS } from '../footprint/engine/index.ts';
import { SERVICE_CATEGORY_IDS } from '../catalogue/icecat/categories.ts';
import {
  blanccoReport,
  corruptReport,
  desktopReport,
  laptopReport,
  missingFieldsReport,
  phoneReport,
  serverReport,
  unsuccessfulReport,
  type BlanccoReportOptions,
} from '../../test/erasure/fixtures.ts';

function parsed(raw: unknown): ParsedReport {
  const result = parseReport(raw);
  if (!result.ok) throw new Error(`expected a parsed report, got: ${result.error}`);
  return result.report;
}

const device = (options: BlanccoReportOptions) => parsed(blanccoReport(options)).device;
const errorOf = (raw: unknown) => parseReport(raw);

describe('parseReport: the fixtures', () => {
  it('laptop: Dell Latitude 5420', () => {
    expect(parsed(laptopReport)).toEqual({
      uuid: '6f1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7c01',
      erasure_state: 'successful',
      erased_at: new Date('2026-11-20T10:14:00Z'),
      device: {
        brand: 'Dell',
        model: 'Latitude 5420',
        serial_number: '7QX2KH3',
        category: 'laptop',
        chassis_type: 'Notebook',
        processor: '11th Gen Intel(R) Core(TM) i5-1145G7 @ 2.60GHz',
        specs: { ram_gb: 16, storage_gb: 256, storage_type: 'nvme', battery_wh: 63, screen_size_inch: 14 },
      },
    });
  });

  it('desktop: disks summed in decimal GB, storage type of the larger (hard) disk', () => {
    expect(parsed(desktopReport)).toEqual({
      uuid: '6f1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7c02',
      erasure_state: 'successful',
      erased_at: new Date('2026-11-20T11:02:00Z'),
      device: {
        brand: 'HP',
        model: 'HP EliteDesk 800 G6 Small Form Factor PC',
        serial_number: 'CZC0123ABC',
        category: 'desktop',
        chassis_type: 'Space-saving',
        processor: 'Intel(R) Core(TM) i5-10500 CPU @ 3.10GHz',
        specs: { ram_gb: 8, storage_gb: 1512, storage_type: 'hdd' },
      },
    });
  });

  it('server: two sockets, four disks, the latest of four erasures', () => {
    expect(parsed(serverReport)).toEqual({
      uuid: '6f1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7c03',
      erasure_state: 'successful',
      erased_at: new Date('2026-11-20T12:00:00Z'),
      device: {
        brand: 'HPE',
        model: 'ProLiant DL380 Gen10 Plus',
        serial_number: 'CZJ1234567',
        category: 'server',
        chassis_type: 'Rack Mount Chassis',
        processor: '2 x Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz',
        specs: { ram_gb: 256, storage_gb: 7682, storage_type: 'ssd' },
      },
    });
  });

  it('phone: IMEI as serial and category, mAh at 3.85 V, UFS storage as eMMC', () => {
    expect(parsed(phoneReport)).toEqual({
      uuid: '6f1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7c04',
      erasure_state: 'successful',
      erased_at: new Date('2026-11-20T13:30:00Z'),
      device: {
        brand: 'Samsung',
        model: 'SM-S911B',
        serial_number: '356938035643809',
        category: 'smartphone',
        chassis_type: null,
        processor: 'Qualcomm Snapdragon 8 Gen 2',
        specs: { ram_gb: 8, storage_gb: 128, storage_type: 'emmc', battery_wh: 15, screen_size_inch: 6.1 },
      },
    });
  });

  it('missing fields stay empty (no category, no specs) for the engine to estimate', () => {
    expect(parsed(missingFieldsReport)).toEqual({
      uuid: '6f1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7c05',
      erasure_state: 'successful',
      erased_at: new Date('2026-11-20T14:00:00Z'),
      device: {
        brand: 'Lenovo',
        model: '20W000AXGE',
        serial_number: 'PF2XK9LM',
        category: null,
        chassis_type: null,
        processor: null,
        specs: {},
      },
    });
  });

  it('corrupt: an error with the report uuid', () => {
    expect(parseReport(corruptReport)).toEqual({
      ok: false,
      uuid: '6f1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7c06',
      error: 'blancco_data.blancco_hardware_report is a string, not an object',
    });
  });

  it('unsuccessful: a failed target makes the report unsuccessful', () => {
    const report = parsed(unsuccessfulReport);
    expect([report.uuid, report.erasure_state, report.device.model]).toEqual([
      '6f1c2a9e-0b7d-4c55-9a3e-5d2f1e8b7c07',
      'unsuccessful',
      'Latitude 7420',
    ]);
  });
});

describe('parseReport: errors', () => {
  const withSystemLeaf = (name: string, value: string) => {
    const report = blanccoReport() as {
      blancco_data: { blancco_hardware_report: { entries: { name: string; entry: { name: string; value: string }[] }[] } };
    };
    report.blancco_data.blancco_hardware_report.entries[0]!.entry.find((l) => l.name === name)!.value = value;
    return report;
  };

  it.each([
    ['a report that is not an object', 'not a report', null, 'report is a string, not an object'],
    ['no blancco_data', { root: {} }, null, 'missing blancco_data'],
    ['blancco_data not an object', { blancco_data: [1, 2] }, null, 'blancco_data is a list, not an object'],
    ['no document_id', { blancco_data: { description: { date: '2026-11-20T10:15:00Z' } } }, null, 'missing description.document_id'],
    ['no hardware section', blanccoReport({ uuid: 'r-1', omit: ['hardware'] }), 'r-1', 'missing blancco_data.blancco_hardware_report'],
    ['no manufacturer', blanccoReport({ uuid: 'r-2', omit: ['manufacturer'] }), 'r-2', 'missing system manufacturer'],
    ['no model', blanccoReport({ uuid: 'r-3', omit: ['model'] }), 'r-3', 'missing system model'],
    ['no serial and no IMEI', blanccoReport({ uuid: 'r-4', omit: ['serial'] }), 'r-4', 'missing system serial and IMEI'],
    ['a placeholder serial', blanccoReport({ uuid: 'r-5', serial: 'To Be Filled By O.E.M.' }), 'r-5', 'missing system serial and IMEI'],
    [
      'a model over 200 characters',
      blanccoReport({ uuid: 'r-6', model: 'L'.repeat(201) }),
      'r-6',
      'system.model: must be at most 200 characters, got 201',
    ],
    [
      'a serial over 100 characters',
      blanccoReport({ uuid: 'r-7', serial: 'S'.repeat(101) }),
      'r-7',
      'system.serial: must be at most 100 characters, got 101',
    ],
    [
      'a control character',
      blanccoReport({ uuid: 'r-8', manufacturer: 'Dell\u0007 Inc.' }),
      'r-8',
      'system.manufacturer: must not contain control characters (U+0007 at character 5)',
    ],
    [
      'a document_id with a control character',
      blanccoReport({ uuid: 'r-9\u0000' }),
      null,
      'description.document_id: must not contain control characters (U+0000 at character 4)',
    ],
    [
      'memory that is not a number',
      blanccoReport({ uuid: 'r-10', ramBytes: Number.NaN }),
      'r-10',
      'memory.total_memory: not a finite non-negative number ("NaN")',
    ],
    [
      'an infinite disk',
      blanccoReport({ uuid: 'r-11', disks: [{ capacityBytes: Infinity }] }),
      'r-11',
      'disk.capacity: not a finite non-negative number ("Infinity")',
    ],
    [
      'a negative battery',
      blanccoReport({ uuid: 'r-12', battery: { value: -5, unit: 'mWh' } }),
      'r-12',
      'battery.design_capacity: not a finite non-negative number ("-5")',
    ],
  ])('%s', (_, raw, uuid, error) => {
    expect(parseReport(raw)).toEqual({ ok: false, uuid, error });
  });

  it('a screen size in words is an error naming the leaf', () => {
    const report = blanccoReport({ uuid: 'r-13' }) as {
      blancco_data: { blancco_hardware_report: { entries: { name: string; entries?: { entry: { value: string }[] }[] }[] } };
    };
    report.blancco_data.blancco_hardware_report.entries.find((n) => n.name === 'displays')!.entries![0]!.entry[0]!.value = 'fourteen';
    expect(errorOf(report)).toEqual({
      ok: false,
      uuid: 'r-13',
      error: 'display.diagonal_inch: not a finite non-negative number ("fourteen")',
    });
  });

  it('placeholders in other system fields count as absent', () => {
    expect(errorOf(withSystemLeaf('manufacturer', 'System manufacturer'))).toMatchObject({
      ok: false,
      error: 'missing system manufacturer',
    });
    expect(device({ chassis: 'Unknown' })).toMatchObject({ chassis_type: null, category: null });
  });

  it("reads the year of a stated manufacture date as the unit's release year; an unreadable one is an error", () => {
    const made = (value: string) => {
      const report = blanccoReport({ uuid: 'r-14' }) as {
        blancco_data: { blancco_hardware_report: { entries: { entry: { name: string; type: string; value: string }[] }[] } };
      };
      report.blancco_data.blancco_hardware_report.entries[0]!.entry.push({ name: 'manufacture_date', type: 'string', value });
      return report;
    };
    expect(parsed(made('2021-06-14')).device.release_year).toBe(2021);
    expect(parsed(made('2019-11')).device.release_year).toBe(2019);
    expect(parsed(blanccoReport()).device).not.toHaveProperty('release_year');
    expect(errorOf(made('June 2021'))).toEqual({
      ok: false,
      uuid: 'r-14',
      error: 'system.manufacture_date: not a date YYYY-MM-DD ("June 2021")',
    });
  });
});

describe('parseReport: erasure state and date', () => {
  it('is successful only when every target succeeded', () => {
    expect(parsed(blanccoReport({ state: ['Successful', 'Successful'] })).erasure_state).toBe('successful');
    expect(parsed(blanccoReport({ state: ['Successful', 'Failed'] })).erasure_state).toBe('unsuccessful');
  });

  it('without an erasure section: state unknown, date from the description', () => {
    const report = parsed(blanccoReport({ erasedAt: '2026-11-20T10:14:00Z', omit: ['erasure'] }));
    expect([report.erasure_state, report.erased_at]).toEqual(['unknown', new Date('2026-11-20T10:15:00Z')]);
  });

  it('reads the state on an erasure node above its targets and offsets without a colon', () => {
    const raw = {
      blancco_data: {
        description: { document_id: 'e-1', date: '2019-03-13T10:05:00+0200' },
        blancco_erasure_report: {
          entries: {
            name: 'erasures',
            entries: [
              {
                name: 'erasure',
                entry: [
                  { name: 'state', value: 'Successful' },
                  { name: 'end_time', value: '2019-03-13T10:02:13+0200' },
                ],
                entries: [{ name: 'target', entry: [] }],
              },
              {
                name: 'erasure',
                entry: [
                  { name: 'state', value: 'Successful' },
                  { name: 'end_time', value: '2019-03-13T09:58:00+0200' },
                ],
              },
            ],
          },
        },
      },
    };
    expect(erasureSummary(raw)).toEqual({ state: 'successful', at: new Date('2019-03-13T08:02:13Z') });
  });

  it('never throws on junk', () => {
    for (const junk of [null, 42, 'x', [], { blancco_data: 'x' }, { blancco_data: { blancco_erasure_report: { entries: 'x' } } }]) {
      expect(erasureSummary(junk)).toEqual({ state: 'unknown', at: null });
    }
  });
});

describe('parseReport: fields and conversions', () => {
  it.each([
    ['Dell Inc.', 'Dell'],
    ['HP', 'HP'],
    ['Hewlett-Packard', 'HP'],
    ['HPE', 'HPE'],
    ['LENOVO', 'Lenovo'],
    ['Apple Inc.', 'Apple'],
    ['ASUSTeK COMPUTER INC.', 'Asus'],
    ['Samsung Electronics Co., Ltd.', 'Samsung'],
    ['FUJITSU CLIENT COMPUTING LIMITED', 'Fujitsu'],
    ['Microsoft Corporation', 'Microsoft'],
    ['Super Micro Computer, Inc.', 'Supermicro'],
    ['Fairphone B.V.', 'Fairphone'],
    ['Contoso', 'Contoso'],
  ])('brand %s -> %s', (manufacturer, brand) => {
    expect(brandName(manufacturer)).toBe(brand);
  });

  it.each([
    ['Notebook', 'laptop'],
    ['Laptop', 'laptop'],
    ['Portable', 'laptop'],
    ['Sub Notebook', 'laptop'],
    ['Convertible', 'convertible'],
    ['Detachable', 'convertible'],
    ['Tablet', 'tablet'],
    ['Desktop', 'desktop'],
    ['Tower', 'desktop'],
    ['Mini Tower', 'desktop'],
    ['Low Profile Desktop', 'desktop'],
    ['Space-saving', 'desktop'],
    ['Mini PC', 'mini_pc'],
    ['Stick PC', 'mini_pc'],
    ['All in One', 'all_in_one'],
    ['All-In-One', 'all_in_one'],
    ['Rack Mount Chassis', 'server'],
    ['Main Server Chassis', 'server'],
    ['Multi-system chassis', 'server'],
    ['Blade', 'blade_server'],
    ['Blade Enclosure', 'blade_server'],
    ['Phone', 'smartphone'],
    ['Smartphone', 'smartphone'],
    ['Other', null],
    ['Docking Station', null],
  ])('chassis %s -> %s, a category of the engine', (chassis, category) => {
    expect(device({ chassis }).category).toBe(category);
    if (category)
      expect([CATEGORY_IDS.includes(category), (SERVICE_CATEGORY_IDS as readonly string[]).includes(category)]).toEqual([true, true]);
  });

  it('an IMEI makes an unknown chassis a smartphone, not a known one', () => {
    expect(device({ chassis: 'Other', imei: '356938035643809' }).category).toBe('smartphone');
    expect(device({ chassis: 'Tablet', imei: '356938035643809' }).category).toBe('tablet');
    expect(device({ imei: '356938035643809' }).serial_number).toBe('7QX2KH3');
  });

  it.each([
    [{ type: 'SSD', interface: 'NVMe' }, 'nvme'],
    [{ type: 'SSD', interface: 'SATA' }, 'ssd'],
    [{ type: 'HDD', interface: 'SAS' }, 'hdd'],
    [{ type: 'Hard Disk', interface: 'SATA' }, 'hdd'],
    [{ interface: 'eMMC' }, 'emmc'],
    [{ type: 'SSD', interface: 'MMC' }, 'emmc'],
    [{ type: 'UFS' }, 'emmc'],
    [{ interface: 'USB' }, undefined],
    [{}, undefined],
  ])('disk %o -> storage type %s', (kind, storageType) => {
    const { storage_gb, storage_type } = device({ disks: [{ capacityBytes: 500_107_862_016, ...kind }] }).specs;
    expect({ storage_gb, storage_type }).toEqual({ storage_gb: 500, storage_type: storageType });
  });

  it('disks without a capacity are left out; none at all leaves storage empty', () => {
    expect(
      device({
        disks: [
          { capacityBytes: 0, type: 'SSD' },
          { capacityBytes: 1_000_204_886_016, type: 'HDD' },
        ],
      }).specs,
    ).toMatchObject({ storage_gb: 1000, storage_type: 'hdd' });
    expect(device({ disks: [{ capacityBytes: 0 }] }).specs).not.toHaveProperty('storage_gb');
  });

  it.each([
    [{ value: 63_000, unit: 'mWh' }, 63],
    [{ value: 56, unit: 'Wh' }, 56],
    [{ value: 4410, unit: 'mAh' }, 17],
    [{ value: 3110, unit: 'MAH' }, 12],
    [{ value: 50_000, unit: '%' }, undefined],
    [{ value: 50_000, unit: '' }, undefined],
  ])('battery %o -> %s Wh', (battery, wh) => {
    expect(device({ battery }).specs.battery_wh).toBe(wh);
  });

  it('reads a unit written in the value', () => {
    const report = blanccoReport({ battery: { value: 0, unit: '' } }) as {
      blancco_data: { blancco_hardware_report: { entries: { name: string; entries?: { entry: { name: string; value: string }[] }[] }[] } };
    };
    const battery = report.blancco_data.blancco_hardware_report.entries.find((n) => n.name === 'batteries')!.entries![0]!;
    battery.entry = [{ name: 'design_capacity', value: '45000 mWh' }];
    expect(parsed(report).device.specs.battery_wh).toBe(45);
  });

  it('rounds RAM to whole GiB and the screen to 0.1 inch', () => {
    expect(device({ ramBytes: 8_482_000_000, displayInch: 15.6 }).specs).toMatchObject({ ram_gb: 8, screen_size_inch: 15.6 });
  });

  it('reads the XML-to-JSON converter form: @name / #text keys and single children as objects', () => {
    const converted = toConverterForm(laptopReport);
    expect(JSON.stringify(converted)).toContain('"@name":"system"');
    expect(parsed(converted)).toEqual(parsed(laptopReport));
  });
});

describe('reportsOfPage', () => {
  it('returns the reports of a page: a list, a single object, or none', () => {
    expect(reportsOfPage({ root: { report: [laptopReport, phoneReport] } })).toEqual([laptopReport, phoneReport]);
    expect(reportsOfPage({ root: { report: laptopReport } })).toEqual([laptopReport]);
    expect(reportsOfPage({ root: { report: [] } })).toEqual([]);
    expect(reportsOfPage({ root: {} })).toEqual([]);
    expect(reportsOfPage({ root: null })).toEqual([]);
  });

  it.each([
    ['{}', {}, 'export page has no "root" object'],
    ['a bare list', [laptopReport], 'export page has no "root" object'],
    ['a text root', { root: 'x' }, 'export page "root" is a string, not an object'],
    ['a number for report', { root: { report: 5 } }, 'export page "root.report" is a number, not a list of reports'],
  ])('throws BlanccoPageError for %s', (_, body, message) => {
    expect(() => reportsOfPage(body)).toThrow(new BlanccoPageError(message));
    expect(() => reportsOfPage(body)).toThrow(BlanccoPageError);
  });
});

/** A report as some XML-to-JSON converters render it: attributes under @-keys, text under #text, one child as an object. */
function toConverterForm(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 1 ? toConverterForm(value[0]) : value.map(toConverterForm);
  if (typeof value !== 'object' || value === null) return value;
  const v = value as Record<string, unknown>;
  if ('type' in v && 'value' in v) return { '@name': v.name, '@type': v.type, '#text': v.value };
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k === 'name' ? '@name' : k, toConverterForm(x)]));
}
