/**
 * Processors named in model strings and catalogue names: they tell the variants of one model
 * apart ("ThinkPad T14 Gen 3" is an Intel and an AMD device).
 */
import type { CatalogueEntry } from './catalogue-data.ts';
import { fold, words } from './text.ts';

export type ProcessorVendor = 'amd' | 'intel';

/** Processor descriptions written into model strings, by vendor (folded text). */
const PROCESSOR_PATTERNS: [ProcessorVendor, RegExp][] = [
  ['amd', /\b(?:amd\s+)?ryzen(?:\s+ai)?(?:\s*[3579])?(?:\s+pro)?(?:[\s-]+\d{3,4}[a-z]{0,3})?\b/g],
  ['amd', /\bamd\b/g],
  ['intel', /\b(?:intel\s+)?(?:core\s+)?(?:ultra\s*[3579]|i[3579])(?:[\s-]+\d{3,5}[a-z]{0,2})?\b/g],
  ['intel', /\b(?:intel\s+)?core\s+ultra\b/g],
  ['intel', /\bintel(?:\s+core)?\b/g],
];

/** A processor named in a model string: its vendor, the words, and the string without them. */
export interface ProcessorHint {
  vendor: ProcessorVendor;
  text: string;
  rest: string;
}

/**
 * The processor a model string names ("ThinkPad T14 Gen 3 Ryzen 5 PRO 6650U", "… i5-1245U",
 * "… Core Ultra 7 155U", "… AMD"), or undefined when it names none or both vendors.
 */
export function processorHint(model: string): ProcessorHint | undefined {
  let rest = fold(model);
  const found = new Map<ProcessorVendor, string[]>();
  for (const [vendor, re] of PROCESSOR_PATTERNS) {
    rest = rest.replace(re, (m) => {
      found.set(vendor, [...(found.get(vendor) ?? []), m.trim()]);
      return ' ';
    });
  }
  const [only, ...more] = [...found];
  if (!only || more.length) return undefined;
  const [vendor, texts] = only;
  return {
    vendor,
    text: texts.join(' '),
    rest: rest
      .replace(/[\s-]+$/, '')
      .replace(/\s+/g, ' ')
      .trim(),
  };
}

/**
 * The processor vendor a catalogue device's name or aliases state ("… T14 Gen 3 AMD", "… T14s Gen
 * 6 Snapdragon"), if exactly one.
 */
export function vendorOf(e: CatalogueEntry): ProcessorVendor | 'qualcomm' | undefined {
  const ws = new Set([e.name, ...e.aliases].flatMap((t) => words(t)));
  const vendors = [
    ...(ws.has('amd') || ws.has('ryzen') ? ['amd' as const] : []),
    ...(ws.has('intel') ? ['intel' as const] : []),
    ...(ws.has('snapdragon') || ws.has('qualcomm') ? ['qualcomm' as const] : []),
  ];
  return vendors.length === 1 ? vendors[0] : undefined;
}
