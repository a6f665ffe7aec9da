/**
 * Parsing of Icecat feature values into the service's spec units.
 *
 * Icecat gives every feature a raw `Value` (in the feature's base measure, e.g. "1390" with
 * measure sign "g") and a `PresentationValue` meant for display ("1.39 kg", "35.6 cm (14\")",
 * "16 GB", "1 TB", "54 Wh", "15 W"). The parsers below read a display string; callers fall back
 * to `Value + " " + measure sign` when the presentation value does not parse.
 *
 * Every parser returns `undefined` when the text holds no quantity in a unit it understands;
 * none of them guesses a unit for a bare number.
 */

/** One number as Icecat writes it: "1.39", "1,39" (decimal comma), "1,390" (thousands separator). */
const NUMBER = String.raw`(\d+(?:[.,]\d+)*)`;

/** Parse a number token, telling a thousands separator from a decimal comma. */
export function parseNumberToken(token: string): number | undefined {
  let t = token.trim();
  if (!/^\d+(?:[.,]\d+)*$/.test(t)) return undefined;
  if (t.includes('.') && t.includes(',')) {
    // "1,234.5" (English) or "1.234,5" (continental): the last separator is the decimal one.
    t = t.lastIndexOf('.') > t.lastIndexOf(',') ? t.replace(/,/g, '') : t.replace(/\./g, '').replace(',', '.');
  } else if (t.includes(',')) {
    t = /^\d{1,3}(?:,\d{3})+$/.test(t) ? t.replace(/,/g, '') : t.replace(',', '.');
  } else if ((t.match(/\./g) ?? []).length > 1) {
    t = t.replace(/\./g, ''); // "1.000.000"
  }
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

function firstMatch(text: string, pattern: RegExp): { value: number; unit: string } | undefined {
  const m = pattern.exec(text);
  if (!m || m[1] === undefined) return undefined;
  const value = parseNumberToken(m[1]);
  if (value === undefined) return undefined;
  return { value, unit: (m[2] ?? '').toLowerCase() };
}

/** "1.39 kg", "1390 g", "3.06 lbs", "49.4 oz" -> kilograms (3 decimals). */
export function parseWeightKg(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const q = firstMatch(text, new RegExp(`${NUMBER}\\s*(kg|kilograms?|g|grams?|lbs?|pounds?|oz|ounces?)(?![a-z])`, 'i'));
  if (!q) return undefined;
  let kg: number;
  if (q.unit.startsWith('k')) kg = q.value;
  else if (q.unit.startsWith('g')) kg = q.value / 1000;
  else if (q.unit.startsWith('l') || q.unit.startsWith('p')) kg = q.value * 0.45359237;
  else kg = q.value * 0.028349523125;
  return kg > 0 ? round(kg, 3) : undefined;
}

/** "35.6 cm (14\")", "14\"", "14 in", "15.6 inch", "39.6 cm", "356 mm" -> inches (1 decimal). */
export function parseScreenInch(text: string | undefined): number | undefined {
  if (!text) return undefined;
  // Inches win when both are given: Icecat writes the metric diagonal first, the inch value in brackets.
  const inch = firstMatch(text, new RegExp(`${NUMBER}\\s*(?:"|\u201d|\u2033|''|in\\b|inch(?:es)?\\b)`, 'i'));
  if (inch && inch.value > 0) return round(inch.value, 1);
  const metric = firstMatch(text, new RegExp(`${NUMBER}\\s*(cm|mm)\\b`, 'i'));
  if (!metric || metric.value <= 0) return undefined;
  return round(metric.unit === 'mm' ? metric.value / 25.4 : metric.value / 2.54, 1);
}

/**
 * "16 GB", "512 GB", "1 TB", "512 MB" -> gigabytes. Terabytes are decimal (1 TB = 1000 GB, as drive
 * makers state capacity); megabytes are binary (512 MB of RAM = 0.5 GB).
 */
export function parseDataSizeGb(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const q = firstMatch(text, new RegExp(`${NUMBER}\\s*(PB|TB|TiB|GB|GiB|MB|MiB)\\b`, 'i'));
  if (!q || q.value <= 0) return undefined;
  const factor: Record<string, number> = { pb: 1_000_000, tb: 1000, tib: 1024, gb: 1, gib: 1, mb: 1 / 1024, mib: 1 / 1024 };
  return round(q.value * (factor[q.unit] ?? 1), 3);
}

/** "54 Wh" -> 54; "0.054 kWh" -> 54. Does not read mAh (see {@link batteryWh}). */
export function parseWattHours(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const q = firstMatch(text, new RegExp(`${NUMBER}\\s*(kWh|Wh)\\b`, 'i'));
  if (!q || q.value <= 0) return undefined;
  return round(q.unit === 'kwh' ? q.value * 1000 : q.value, 2);
}

/** "5000 mAh" -> 5000. */
export function parseMilliampHours(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const q = firstMatch(text, new RegExp(`${NUMBER}\\s*(mAh|Ah)\\b`, 'i'));
  if (!q || q.value <= 0) return undefined;
  return q.unit === 'ah' ? q.value * 1000 : q.value;
}

/** "3.85 V" -> 3.85. */
export function parseVolts(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const q = firstMatch(text, new RegExp(`${NUMBER}\\s*(V|volts?)\\b`, 'i'));
  return q && q.value > 0 ? q.value : undefined;
}

/** Battery energy: a stated Wh value, else mAh x V when both are given (2 decimals). */
export function batteryWh(capacityText: string | undefined, voltageText?: string): number | undefined {
  const wh = parseWattHours(capacityText);
  if (wh !== undefined) return wh;
  const mah = parseMilliampHours(capacityText);
  const volts = parseVolts(voltageText);
  if (mah === undefined || volts === undefined) return undefined;
  return round((mah * volts) / 1000, 2);
}

/** "15 W" -> 15; "0.5 kW" -> 500; "500 mW" -> 0.5. Watt-hours are not watts. */
export function parseWatts(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const q = firstMatch(text, new RegExp(`${NUMBER}\\s*(kW|mW|W)(?![a-z])`, 'i'));
  if (!q || q.value <= 0) return undefined;
  const w = q.unit === 'kw' ? q.value * 1000 : q.unit === 'mw' ? q.value / 1000 : q.value;
  return round(w, 3);
}

export type EnergyPeriod = 'year' | 'week' | 'month' | 'day';

/**
 * An energy amount per year in kWh. The period comes from the text ("18 kWh/year", "0.5 kWh/week",
 * "kWh per annum") or, when the text gives none, from `defaultPeriod` (the caller knows it from the
 * feature's name, e.g. "Annual energy consumption"). Consumption stated per 1000 hours, or with no
 * period at all, is not annual energy and gives `undefined`.
 */
export function parseAnnualKwh(text: string | undefined, defaultPeriod?: EnergyPeriod): number | undefined {
  if (!text) return undefined;
  const m = new RegExp(
    `${NUMBER}\\s*(kWh|Wh)\\b(?:\\s*(?:/|per)\\s*(1000\\s*h(?:ours?)?|year|yr|annum|a\\b|week|wk|month|day|d\\b))?`,
    'i',
  ).exec(text);
  if (!m || m[1] === undefined) return undefined;
  const value = parseNumberToken(m[1]);
  if (value === undefined || value <= 0) return undefined;
  const kwh = (m[2] ?? '').toLowerCase() === 'wh' ? value / 1000 : value;
  const periodText = (m[3] ?? '').toLowerCase();
  let period: EnergyPeriod | undefined;
  if (periodText.startsWith('1000')) return undefined;
  else if (/^(year|yr|annum|a)$/.test(periodText)) period = 'year';
  else if (/^(week|wk)$/.test(periodText)) period = 'week';
  else if (periodText === 'month') period = 'month';
  else if (/^(day|d)$/.test(periodText)) period = 'day';
  else period = defaultPeriod;
  if (!period) return undefined;
  const perYear = { year: 1, week: 52, month: 12, day: 365 }[period];
  return round(kwh * perYear, 2);
}
