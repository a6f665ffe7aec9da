/**
 * GTIN detection: GTIN-8 (EAN-8), GTIN-12 (UPC-A), GTIN-13 (EAN-13/JAN) and GTIN-14, with the
 * GS1 mod-10 check digit. Surrounding whitespace and inner spaces are ignored ("4 006381 333931");
 * anything else that is not a digit makes the input not a GTIN.
 */

const GTIN_LENGTHS = new Set([8, 12, 13, 14]);

/** The digits of `input` with spaces removed, or undefined when other characters remain. */
export function normalizeGtin(input: string): string | undefined {
  const digits = input.replace(/\s+/g, '');
  return /^\d+$/.test(digits) ? digits : undefined;
}

/** GS1 check digit for the digits that precede it (weights 3,1,3,... from the right). */
export function gtinCheckDigit(body: string): number {
  let sum = 0;
  for (let i = body.length - 1, weight = 3; i >= 0; i--, weight = weight === 3 ? 1 : 3) {
    sum += Number(body[i]) * weight;
  }
  return (10 - (sum % 10)) % 10;
}

export function looksLikeGtin(input: string): boolean {
  if (typeof input !== 'string') return false;
  const digits = normalizeGtin(input);
  if (!digits || !GTIN_LENGTHS.has(digits.length)) return false;
  if (/^0+$/.test(digits)) return false;
  return gtinCheckDigit(digits.slice(0, -1)) === Number(digits[digits.length - 1]);
}
