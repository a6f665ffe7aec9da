/**
 * Blancco erasure reports -> the device they describe. Pure: no I/O.
 *
 * A report is the JSON rendering of Blancco's XML report (docs/erasure-sync.md, "The portal API as
 * modelled"): `blancco_data.description` holds document_id and date; the erasure and hardware
 * sections are trees of nodes `{name, entries?: node[], entry?: leaf[]}` whose leaves are
 * `{name, type, value}` with the value a string, as in XML. The reader is lenient about the shape
 * (a single child instead of a list, `@name` / `#text` style keys of XML-to-JSON converters, a few
 * leaf name variants) and strict about values: a field that is absent stays undefined for the engine
 * to estimate, a value that is present but unusable makes the report an error, never a guess.
 */
import { DEFAULT_MAX_LENGTH, TEXT_LIMITS, textProblem } from '../validation/text.ts';
import type { ServiceCategoryId } from '../catalogue/icecat/categories.ts';
import type { StorageType } from '../footprint/engine/types.ts';

export interface ParsedDevice {
  /** system manufacturer, legal form dropped and known names mapped ("Dell Inc." -> "Dell") */
  brand: string | null;
  /** system model as reported (the lookup chain matches it against the catalogue) */
  model: string | null;
  /** system serial, else the IMEI (phones) */
  serial_number: string | null;
  /** service category from the chassis type; smartphone for an unknown chassis with an IMEI; else null */
  category: ServiceCategoryId | null;
  chassis_type: string | null;
  processor: string | null;
  /** year of system.manufacture_date (or manufacturing_date), the unit's stated release year; undefined without one */
  release_year?: number;
  specs: { ram_gb?: number; storage_gb?: number; storage_type?: StorageType; battery_wh?: number; screen_size_inch?: number };
}

export type ErasureState = 'successful' | 'unsuccessful' | 'unknown';

export interface ParsedReport {
  uuid: string;
  /** successful only when every erasure (target) of the report has state "Successful" */
  erasure_state: ErasureState;
  /** latest end_time of the erasures, else description.date */
  erased_at: Date | null;
  device: ParsedDevice;
}

export type ReportParse = { ok: true; report: ParsedReport } | { ok: false; uuid: string | null; error: string };

/** An export page that is not `{"root": {"report": [...]}}`. */
export class BlanccoPageError extends Error {
  override readonly name = 'BlanccoPageError';
}

/**
 * The reports of one export page. `report` may be a list or, as XML-to-JSON renders a single
 * element, one object; an empty page may come without `report` (or with an empty `root`).
 */
export function reportsOfPage(body: unknown): unknown[] {
  if (!isObject(body) || !('root' in body)) throw new BlanccoPageError('export page has no "root" object');
  const root = body.root;
  if (root === null || root === '') return [];
  if (!isObject(root)) throw new BlanccoPageError(`export page "root" is ${kindOf(root)}, not an object`);
  const reports = root.report;
  if (reports === undefined || reports === null) return [];
  if (Array.isArray(reports)) return reports;
  if (isObject(reports)) return [reports];
  throw new BlanccoPageError(`export page "root.report" is ${kindOf(reports)}, not a list of reports`);
}

/**
 * The overall erasure state and date of a report, as parseReport sees them; the fake portal filters
 * and orders by the same reading. Never throws: an unreadable report is 'unknown' with no date.
 */
export function erasureSummary(raw: unknown): { state: ErasureState; at: Date | null } {
  const data = isObject(raw) && isObject(raw.blancco_data) ? raw.blancco_data : undefined;
  const erasures = data && isObject(data.blancco_erasure_report) ? nodesNamed(data.blancco_erasure_report, ERASURE_NODES) : [];
  const states = erasures.flatMap((node) => leafTexts(node, 'state'));
  const ends = erasures
    .flatMap((node) => leafTexts(node, 'end_time'))
    .map(parseDate)
    .filter((d): d is Date => d !== null);
  const state: ErasureState =
    states.length === 0 ? 'unknown' : states.every((s) => s.trim().toLowerCase() === 'successful') ? 'successful' : 'unsuccessful';
  const latest = ends.reduce<Date | null>((a, b) => (a === null || b > a ? b : a), null);
  const described = data && isObject(data.description) ? textOf(data.description.date) : undefined;
  return { state, at: latest ?? (described === undefined ? null : parseDate(described)) };
}

/** One report -> the device and erasure it describes, or an error naming what is missing or wrong. Never throws. */
export function parseReport(raw: unknown): ReportParse {
  let uuid: string | null = null;
  try {
    if (!isObject(raw)) throw new ReportError(`report is ${kindOf(raw)}, not an object`);
    const data = objectAt(raw, 'blancco_data', 'blancco_data');
    const description = objectAt(data, 'description', 'blancco_data.description');
    const documentId = textOf(description.document_id)?.trim();
    if (!documentId) throw new ReportError('missing description.document_id');
    uuid = checkText(documentId, 'description.document_id', DEFAULT_MAX_LENGTH);
    const hardware = objectAt(data, 'blancco_hardware_report', 'blancco_data.blancco_hardware_report');
    const { state, at } = erasureSummary(raw);
    return { ok: true, report: { uuid, erasure_state: state, erased_at: at, device: parseDevice(hardware) } };
  } catch (error) {
    return { ok: false, uuid, error: error instanceof ReportError ? error.message : `unreadable report: ${String(error)}` };
  }
}

// ---------------------------------------------------------------------------------------------
// The device

/** Milliwatt-hours per milliampere-hour: the 3.85 V nominal voltage of a Li-ion cell (an assumption). */
const LI_ION_NOMINAL_VOLTS = 3.85;
const BYTES_PER_GIB = 2 ** 30;
const BYTES_PER_GB = 1e9;

function parseDevice(hardware: Json): ParsedDevice {
  const system = firstNode(hardware, 'system');
  if (!system) throw new ReportError('missing hardware system section');
  const manufacturer = systemText(system, ['manufacturer', 'vendor'], TEXT_LIMITS.brand);
  const model = systemText(system, ['model', 'product_name'], TEXT_LIMITS.model);
  const serial = systemText(system, ['serial', 'serial_number'], TEXT_LIMITS.serialNumber);
  const imei = systemText(system, ['imei', 'imei1', 'imei_1'], TEXT_LIMITS.serialNumber);
  const chassis = systemText(system, ['chassis_type', 'chassis'], DEFAULT_MAX_LENGTH);
  const made = systemText(system, ['manufacture_date', 'manufacturing_date', 'date_of_manufacture'], DEFAULT_MAX_LENGTH);
  if (!manufacturer) throw new ReportError('missing system manufacturer');
  if (!model) throw new ReportError('missing system model');
  if (!serial && !imei) throw new ReportError('missing system serial and IMEI');
  const fromChassis = chassis ? CHASSIS_CATEGORIES.get(words(chassis)) : undefined;
  return {
    brand: brandName(manufacturer),
    model,
    serial_number: serial ?? imei,
    category: fromChassis ?? (imei ? 'smartphone' : null),
    chassis_type: chassis,
    processor: processorOf(hardware),
    ...(made ? { release_year: manufactureYear(made) } : {}),
    specs: dropUndefined({
      ram_gb: ramGb(hardware),
      ...storageOf(hardware),
      battery_wh: batteryWh(hardware),
      screen_size_inch: screenInch(hardware),
    }),
  };
}

/** The year of a manufacture date (ISO 8601 or YYYY-MM, as firmware and Blancco write it); anything else is an error, not a guess. */
function manufactureYear(text: string): number {
  const m = /^(\d{4})-(0[1-9]|1[0-2])(?:-\d{2})?(?:[T ].*)?$/.exec(text);
  if (!m) throw new ReportError(`system.manufacture_date: not a date YYYY-MM-DD (${JSON.stringify(text.slice(0, 40))})`);
  return Number(m[1]);
}

/** SMBIOS chassis types (DMTF DSP0134, 7.4.1) and mobile device types, as lower-case words -> category. */
const CHASSIS_CATEGORIES: ReadonlyMap<string, ServiceCategoryId> = new Map([
  ['notebook', 'laptop'],
  ['laptop', 'laptop'],
  ['portable', 'laptop'],
  ['sub notebook', 'laptop'],
  ['convertible', 'convertible'],
  ['detachable', 'convertible'],
  ['tablet', 'tablet'],
  ['desktop', 'desktop'],
  ['tower', 'desktop'],
  ['mini tower', 'desktop'],
  ['low profile desktop', 'desktop'],
  ['space saving', 'desktop'],
  ['mini pc', 'mini_pc'],
  ['stick pc', 'mini_pc'],
  ['all in one', 'all_in_one'],
  ['rack mount chassis', 'server'],
  ['main server chassis', 'server'],
  ['multi system chassis', 'server'],
  ['blade', 'blade_server'],
  ['blade enclosure', 'blade_server'],
  ['phone', 'smartphone'],
  ['smartphone', 'smartphone'],
  ['mobile phone', 'smartphone'],
]);

/** Manufacturer names as firmware writes them (lower-case letters and digits) -> the catalogue's brand. */
const BRAND_NAMES: ReadonlyMap<string, string> = new Map([
  ['dell', 'Dell'],
  ['hp', 'HP'],
  ['hewlettpackard', 'HP'],
  ['hpe', 'HPE'],
  ['hewlettpackardenterprise', 'HPE'],
  ['lenovo', 'Lenovo'],
  ['apple', 'Apple'],
  ['samsung', 'Samsung'],
  ['samsungelectronics', 'Samsung'],
  ['asus', 'Asus'],
  ['asustek', 'Asus'],
  ['asustekcomputer', 'Asus'],
  ['acer', 'Acer'],
  ['fujitsu', 'Fujitsu'],
  ['fujitsuclientcomputing', 'Fujitsu'],
  ['fujitsutechnologysolutions', 'Fujitsu'],
  ['microsoft', 'Microsoft'],
  ['google', 'Google'],
  ['supermicro', 'Supermicro'],
  ['supermicrocomputer', 'Supermicro'],
  ['cisco', 'Cisco'],
  ['ciscosystems', 'Cisco'],
]);

/** A trailing legal form: "Dell Inc.", "Samsung Electronics Co., Ltd.", "FUJITSU CLIENT COMPUTING LIMITED". */
const LEGAL_FORM = /[\s,]+(inc|incorporated|corp|corporation|co|company|ltd|limited|llc|plc|gmbh|ag|s\.?a|b\.?v|n\.?v|k\.?k)\.?$/i;

/** The manufacturer without its legal form, under the catalogue's spelling when known. */
export function brandName(manufacturer: string): string {
  let name = manufacturer.trim();
  for (let stripped = name.replace(LEGAL_FORM, ''); stripped !== name && stripped !== ''; stripped = name.replace(LEGAL_FORM, '')) {
    name = stripped;
  }
  return BRAND_NAMES.get(name.toLowerCase().replace(/[^a-z0-9]+/g, '')) ?? name;
}

/** Values firmware writes when the vendor left a field empty: no information, so treated as absent. */
const PLACEHOLDERS = new Set([
  'to be filled by o e m',
  'default string',
  'system manufacturer',
  'system product name',
  'system serial number',
  'not specified',
  'not applicable',
  'n a',
  'none',
  'unknown',
  'oem',
  '0',
  '0123456789',
  '123456789',
]);

function systemText(system: Json, names: readonly string[], maxLength: number): string | null {
  const found = leafOf(system, names);
  if (!found || found.text.trim() === '') return null;
  const value = checkText(found.text.trim(), `system.${found.name}`, maxLength);
  return PLACEHOLDERS.has(words(value)) ? null : value;
}

/** Processor models; identical sockets counted ("2 x Intel(R) Xeon(R) Gold 6230"). */
function processorOf(hardware: Json): string | null {
  const counts = new Map<string, number>();
  for (const cpu of items(hardware, 'processors', 'processor')) {
    const found = leafOf(cpu, ['model', 'name']);
    const model =
      found && found.text.trim() !== '' ? checkText(found.text.trim(), `processor.${found.name}`, DEFAULT_MAX_LENGTH) : undefined;
    if (model) counts.set(model, (counts.get(model) ?? 0) + 1);
  }
  if (counts.size === 0) return null;
  return [...counts].map(([model, n]) => (n > 1 ? `${n} x ${model}` : model)).join(' + ');
}

/** memory.total_memory in bytes -> GiB, rounded to a whole number (what the RAM is sold as). */
function ramGb(hardware: Json): number | undefined {
  const memory = firstNode(hardware, 'memory');
  const bytes = memory && numberOf(memory, ['total_memory', 'total', 'size', 'capacity'], 'memory');
  return bytes === undefined ? undefined : Math.round(bytes / BYTES_PER_GIB);
}

/**
 * Disks (or, on phones, the storage node): capacities in bytes summed as decimal GB (what drives are
 * sold as), rounded to a whole number; the storage type is that of the largest. Disks without a
 * capacity (card readers, empty bays) are left out.
 */
function storageOf(hardware: Json): { storage_gb?: number; storage_type?: StorageType } {
  const disks = items(hardware, 'disks', 'disk');
  const drives = (disks.length > 0 ? disks : items(hardware, 'storages', 'storage'))
    .map((drive) => ({ drive, bytes: numberOf(drive, ['capacity', 'size', 'total'], nameOf(drive) ?? 'disk') }))
    .filter((d): d is { drive: Json; bytes: number } => d.bytes !== undefined && d.bytes > 0);
  if (drives.length === 0) return {};
  const largest = drives.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  return {
    storage_gb: Math.round(drives.reduce((sum, d) => sum + d.bytes, 0) / BYTES_PER_GB),
    storage_type: storageType(largest.drive),
  };
}

/** The engine's storage type from a drive's interface and type; UFS (phones) counts as eMMC, the engine's managed flash. */
function storageType(drive: Json): StorageType | undefined {
  const described = ['interface_type', 'interface', 'type', 'media_type'].map((n) => words(leafOf(drive, [n])?.text ?? '')).join(' ');
  if (/\bnvme\b/.test(described)) return 'nvme';
  if (/\b(emmc|mmc|ufs)\b/.test(described)) return 'emmc';
  if (/\b(ssd|solid state|flash)\b/.test(described)) return 'ssd';
  if (/\b(hdd|hard disk|rotational|magnetic)\b/.test(described)) return 'hdd';
  return undefined;
}

/**
 * Design capacity summed over the batteries, in Wh: mWh / 1000; mAh x 3.85 V / 1000 (assumed
 * nominal Li-ion voltage). The unit comes from capacity_unit or the value itself ("63000 mWh");
 * without a known unit for every battery the capacity stays unknown. Rounded to 0.1 Wh.
 */
function batteryWh(hardware: Json): number | undefined {
  const batteries = items(hardware, 'batteries', 'battery');
  if (batteries.length === 0) return undefined;
  let total = 0;
  for (const battery of batteries) {
    const found = leafOf(battery, ['design_capacity', 'capacity', 'full_charge_capacity']);
    if (!found) return undefined;
    const path = `battery.${found.name}`;
    const inline = /^\s*(\S+?)\s*(mwh|wh|mah)\s*$/i.exec(found.text);
    const value = parseNumber(inline ? inline[1]! : found.text, path);
    const unit = (inline?.[2] ?? leafOf(battery, ['capacity_unit', 'unit'])?.text ?? '').trim().toLowerCase();
    const wh = unit === 'mwh' ? value / 1000 : unit === 'wh' ? value : unit === 'mah' ? (value * LI_ION_NOMINAL_VOLTS) / 1000 : undefined;
    if (wh === undefined) return undefined;
    total += wh;
  }
  return Math.round(total * 10) / 10;
}

/** Diagonal of the first display (the built-in one), inches, rounded to 0.1. */
function screenInch(hardware: Json): number | undefined {
  for (const display of items(hardware, 'displays', 'display')) {
    const inches = numberOf(display, ['diagonal_inch', 'diagonal', 'size_inch', 'screen_size'], 'display');
    if (inches !== undefined) return Math.round(inches * 10) / 10;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Reading the tree

type Json = Record<string, unknown>;

class ReportError extends Error {}

/** Erasure nodes that carry a state and an end time: the brief form (target) and the full one (erasure > target). */
const ERASURE_NODES = new Set(['erasure', 'target']);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function kindOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function objectAt(parent: Json, key: string, path: string): Json {
  const value = parent[key];
  if (value === undefined || value === null) throw new ReportError(`missing ${path}`);
  if (!isObject(value)) throw new ReportError(`${path} is ${kindOf(value)}, not an object`);
  return value;
}

/** A node's or leaf's name: `name`, or the attribute forms of XML-to-JSON converters. */
function nameOf(v: Json): string | undefined {
  const attributes = isObject(v['@attributes']) ? v['@attributes'] : isObject(v._attributes) ? v._attributes : {};
  const name = v.name ?? v['@name'] ?? attributes.name;
  return typeof name === 'string' ? name.trim().toLowerCase() : undefined;
}

/** A value as text: a string or number, or the text key of a converted XML element. */
function textOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (isObject(v)) return textOf(v.value ?? v['#text'] ?? v['@value'] ?? v._text ?? v._);
  return undefined;
}

/** A list or a single element (XML-to-JSON renders one child as an object). */
function listOf(v: unknown): Json[] {
  return (Array.isArray(v) ? v : [v]).filter(isObject);
}

const childNodes = (node: Json): Json[] => listOf(node.entries);

function firstNode(node: Json, name: string): Json | undefined {
  return childNodes(node).find((c) => nameOf(c) === name);
}

/** The children of the `plural` container, or else the `singular` nodes found directly under `node`. */
function items(node: Json, plural: string, singular: string): Json[] {
  const container = firstNode(node, plural);
  return container ? childNodes(container) : childNodes(node).filter((c) => nameOf(c) === singular);
}

/** Nodes with one of `names` anywhere under `node`. */
function nodesNamed(node: Json, names: ReadonlySet<string>): Json[] {
  return childNodes(node).flatMap((c) => [...(names.has(nameOf(c) ?? '') ? [c] : []), ...nodesNamed(c, names)]);
}

/** The first leaf of a node with one of `names` (in order of preference) and a value. */
function leafOf(node: Json, names: readonly string[]): { name: string; text: string } | undefined {
  const leaves = listOf(node.entry);
  for (const name of names) {
    for (const l of leaves) {
      const text = nameOf(l) === name ? textOf(l) : undefined;
      if (text !== undefined) return { name, text };
    }
  }
  return undefined;
}

function leafTexts(node: Json, name: string): string[] {
  return listOf(node.entry).flatMap((l) => {
    const text = nameOf(l) === name ? textOf(l) : undefined;
    return text === undefined ? [] : [text];
  });
}

function numberOf(node: Json, names: readonly string[], section: string): number | undefined {
  const found = leafOf(node, names);
  return found && found.text.trim() !== '' ? parseNumber(found.text, `${section}.${found.name}`) : undefined;
}

/** A plain decimal number >= 0 ("256060514304", "14.0"); anything else is an error naming the field. */
function parseNumber(text: string, path: string): number {
  const trimmed = text.trim();
  const value = /^\+?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(trimmed) ? Number(trimmed) : NaN;
  if (!Number.isFinite(value)) throw new ReportError(`${path}: not a finite non-negative number (${JSON.stringify(trimmed.slice(0, 40))})`);
  return value;
}

/** The text rules of every input of the service (length, no control characters), naming the field. */
function checkText(value: string, path: string, maxLength: number): string {
  const problem = textProblem(value, { maxLength });
  if (problem) throw new ReportError(`${path}: ${problem}`);
  return value;
}

/** Lower-case words separated by single spaces: "All-in-One" -> "all in one", "To Be Filled By O.E.M." -> "to be filled by o e m". */
function words(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** An ISO 8601 date-time (offset with or without colon; none read as UTC), else null. */
function parseDate(text: string): Date | null {
  const m = /^(\d{4}-\d\d-\d\d)(?:[T ](\d\d:\d\d(?::\d\d(?:\.\d+)?)?))?\s*(Z|[+-]\d\d:?\d\d)?$/i.exec(text.trim());
  if (!m) return null;
  const zone = m[3] ? (m[3].toUpperCase() === 'Z' ? 'Z' : `${m[3].slice(0, 3)}:${m[3].slice(-2)}`) : 'Z';
  const date = new Date(`${m[1]}T${m[2] ?? '00:00'}${zone}`);
  return Number.isNaN(date.getTime()) ? null : date;
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
