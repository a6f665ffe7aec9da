import { ApiError } from '../errors/api-error.ts';

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
      if (c === 0x5c)
        i++; // a backslash escapes the next character
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
