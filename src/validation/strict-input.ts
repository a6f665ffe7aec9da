/**
 * The strict input rules shared by every interface: JSON nesting is bounded before anything
 * recursive reads a body, a name the route does not declare is refused with the closest declared
 * one, and query-string numbers and booleans are read by one rule (docs/api.md, "Query strings").
 */
import { suggestionList } from 'graphql/jsutils/suggestionList.js';
import { ApiError, unknownParameters } from '../errors/api-error.ts';

/** Deepest nesting of arrays and objects a JSON body or parameter may have. */
export const MAX_JSON_DEPTH = 32;

/**
 * JSON text parsed, after its nesting is checked on the text itself (a loop, no recursion):
 * 400 INVALID_JSON naming `field` when it is not JSON or nests deeper than MAX_JSON_DEPTH.
 */
export function parseJson(text: string, field = 'body'): unknown {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) {
        throw new ApiError(400, 'INVALID_JSON', `Invalid JSON in '${field}'`, `${field}: nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, 'INVALID_JSON', `Invalid JSON in '${field}'`, `${field}: could not be parsed as JSON`);
  }
}

/** The declared name closest to `name` by edit distance (GraphQL's own suggestion rule), if any is close. */
export const closestName = (name: string, declared: readonly string[]): string | undefined => suggestionList(name, declared)[0];

/** 400 UNKNOWN_PARAMETER naming each of `names` that is not `declared`; `prefix` says where they are (`input.`). */
export function refuseUnknown(names: Iterable<string>, declared: readonly string[], prefix = ''): void {
  const unknown = [...names].filter((name) => !declared.includes(name));
  if (unknown.length > 0) throw unknownParameters(unknown.map((name) => ({ field: `${prefix}${name}`, closest: closestName(name, declared) })));
}

/** The one rule for numbers in query strings: a decimal number (`16`, `-0.5`), nothing else (no `0x10`, `1e3`, blanks). */
export const queryNumber = (text: string): number => (/^-?\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN);

/** The one rule for booleans in query strings: `true` or `false`. */
export const isQueryBoolean = (text: string) => text === 'true' || text === 'false';
