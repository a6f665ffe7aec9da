/**
 * The strict input rules shared by every interface (JSON nesting is bounded by parseJson in
 * src/kernel/json-text.ts): a name the route does not declare is refused with the closest
 * declared one, and query-string numbers and booleans are read by one rule (docs/api.md,
 * "Query strings").
 */
import { suggestionList } from 'graphql/jsutils/suggestionList.js';
import { invalidParameter, unknownParameters } from '../errors/api-error.ts';

/** The declared name closest to `name` by edit distance (GraphQL's own suggestion rule), if any is close. */
export const closestName = (name: string, declared: readonly string[]): string | undefined => suggestionList(name, declared)[0];

/** 400 UNKNOWN_PARAMETER naming each of `names` that is not `declared`; `prefix` says where they are (`input.`). */
export function refuseUnknown(names: Iterable<string>, declared: readonly string[], prefix = ''): void {
  const unknown = [...names].filter((name) => !declared.includes(name));
  if (unknown.length > 0)
    throw unknownParameters(unknown.map((name) => ({ field: `${prefix}${name}`, closest: closestName(name, declared) })));
}

/** The one rule for numbers in query strings: a decimal number (`16`, `-0.5`), nothing else (no `0x10`, `1e3`, blanks). */
export const queryNumber = (text: string): number => (/^-?\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN);

/** The one rule for booleans in query strings: `true` or `false`. */
export const isQueryBoolean = (text: string) => text === 'true' || text === 'false';

/** A path parameter percent-decoded; bad encoding (`%ZZ`, invalid UTF-8 such as an encoded lone surrogate) is 400 naming it. */
export function decodePathParam(name: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw invalidParameter(name, 'is not valid percent-encoded UTF-8');
  }
}
