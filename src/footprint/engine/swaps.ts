/**
 * Parser of the refurbishment `swaps` string: comma-separated tokens
 *   battery:<wh> | storage:<gb>:<storage_type> | ram:<total_gb>:<modules>
 *   | display:<inches>:<screen_type> | keyboard_trackpad
 * The first number is always the part's size, as on a parts list: `ram:16:2` is 16 GB in two modules.
 * Whitespace around tokens and parts is ignored; kinds and enum values are case-insensitive.
 * An empty or blank string means no swaps. Any malformed token throws SwapParseError naming it.
 * These bounds hold in any category; the category's own (swapLimitProblems, limits.ts) are narrower.
 */
import { SCREEN_TYPES, STORAGE_TYPES } from './types.ts';
import type { ScreenType, StorageType, Swap } from './types.ts';

export class SwapParseError extends Error {
  readonly token: string;
  readonly reason: string;
  constructor(token: string, reason: string) {
    super(`invalid swap token '${token}': ${reason}`);
    this.name = 'SwapParseError';
    this.token = token;
    this.reason = reason;
  }
}

export const SWAP_LIMITS = {
  battery_wh: { min: 0, max: 2000 },
  storage_gb: { min: 0, max: 1_000_000 },
  ram_total_gb: { min: 0, max: 65_536 },
  ram_modules: { min: 1, max: 64 },
  /** a memory module holds at least 1 GB: also refuses the reversed `ram:2:8` (2 GB over 8 modules) */
  ram_gb_per_module: { min: 1, max: 1024 },
  display_inches: { min: 1, max: 120 },
} as const;

export const SWAP_KINDS = ['battery', 'storage', 'ram', 'display', 'keyboard_trackpad'] as const;

const NUMBER_RE = /^\d+(?:\.\d+)?$/;

function parseNumber(token: string, part: string | undefined, what: string, min: number, max: number, exclusiveMin: boolean): number {
  if (part === undefined || part.trim() === '') throw new SwapParseError(token, `missing ${what}`);
  const p = part.trim();
  if (!NUMBER_RE.test(p)) throw new SwapParseError(token, `${what} '${p}' is not a positive number`);
  const v = Number(p);
  if (exclusiveMin ? v <= min : v < min)
    throw new SwapParseError(token, `${what} must be ${exclusiveMin ? 'greater than' : 'at least'} ${min}`);
  if (v > max) throw new SwapParseError(token, `${what} must be at most ${max}`);
  return v;
}

function arity(token: string, parts: string[], expected: number, usage: string): void {
  if (parts.length !== expected) {
    throw new SwapParseError(
      token,
      `expected ${usage} (${expected - 1} argument${expected - 1 === 1 ? '' : 's'}), got ${parts.length - 1}`,
    );
  }
}

function parseToken(token: string): Swap {
  const parts = token.split(':').map((p) => p.trim());
  const kind = (parts[0] ?? '').toLowerCase();
  switch (kind) {
    case 'battery': {
      arity(token, parts, 2, 'battery:<wh>');
      return {
        kind: 'battery',
        wh: parseNumber(token, parts[1], 'battery capacity (Wh)', SWAP_LIMITS.battery_wh.min, SWAP_LIMITS.battery_wh.max, true),
      };
    }
    case 'storage': {
      arity(token, parts, 3, 'storage:<gb>:<storage_type>');
      const gb = parseNumber(token, parts[1], 'storage capacity (GB)', SWAP_LIMITS.storage_gb.min, SWAP_LIMITS.storage_gb.max, true);
      const t = (parts[2] ?? '').toLowerCase();
      if (!(STORAGE_TYPES as readonly string[]).includes(t)) {
        throw new SwapParseError(token, `storage_type '${parts[2] ?? ''}' must be one of ${STORAGE_TYPES.join(', ')}`);
      }
      return { kind: 'storage', gb, storage_type: t as StorageType };
    }
    case 'ram': {
      arity(token, parts, 3, 'ram:<total_gb>:<modules>');
      const totalGb = parseNumber(token, parts[1], 'total memory (GB)', SWAP_LIMITS.ram_total_gb.min, SWAP_LIMITS.ram_total_gb.max, true);
      const modules = parseNumber(token, parts[2], 'module count', SWAP_LIMITS.ram_modules.min, SWAP_LIMITS.ram_modules.max, false);
      if (!Number.isInteger(modules)) throw new SwapParseError(token, 'module count must be a whole number');
      const perModule = totalGb / modules;
      const { min, max } = SWAP_LIMITS.ram_gb_per_module;
      if (perModule < min || perModule > max) {
        throw new SwapParseError(
          token,
          `ram:<total_gb>:<modules> puts ${totalGb} GB in ${modules} module${modules === 1 ? '' : 's'} (${Math.round(perModule * 1000) / 1000} GB each); a module holds ${min} to ${max} GB`,
        );
      }
      return { kind: 'ram', total_gb: totalGb, modules };
    }
    case 'display': {
      arity(token, parts, 3, 'display:<inches>:<screen_type>');
      const inches = parseNumber(
        token,
        parts[1],
        'display size (inches)',
        SWAP_LIMITS.display_inches.min,
        SWAP_LIMITS.display_inches.max,
        false,
      );
      const t = (parts[2] ?? '').toLowerCase();
      if (!(SCREEN_TYPES as readonly string[]).includes(t)) {
        throw new SwapParseError(token, `screen_type '${parts[2] ?? ''}' must be one of ${SCREEN_TYPES.join(', ')}`);
      }
      return { kind: 'display', inches, screen_type: t as ScreenType };
    }
    case 'keyboard_trackpad': {
      if (parts.length !== 1) throw new SwapParseError(token, 'keyboard_trackpad takes no arguments');
      return { kind: 'keyboard_trackpad' };
    }
    case '':
      throw new SwapParseError(token, 'missing swap kind');
    default:
      throw new SwapParseError(token, `unknown swap kind '${parts[0] ?? ''}' (expected one of ${SWAP_KINDS.join(', ')})`);
  }
}

export function parseSwaps(input: string): Swap[] {
  if (input.trim() === '') return [];
  return input.split(',').map((raw) => {
    const token = raw.trim();
    if (token === '') throw new SwapParseError(raw, 'empty token (two commas in a row or a trailing comma)');
    return parseToken(token);
  });
}

/** Normalised token of a swap, e.g. 'storage:512:nvme'. */
export function swapToken(s: Swap): string {
  switch (s.kind) {
    case 'battery':
      return `battery:${s.wh}`;
    case 'storage':
      return `storage:${s.gb}:${s.storage_type}`;
    case 'ram':
      return `ram:${s.total_gb}:${s.modules}`;
    case 'display':
      return `display:${s.inches}:${s.screen_type}`;
    case 'keyboard_trackpad':
      return 'keyboard_trackpad';
  }
}
