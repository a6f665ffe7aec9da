/**
 * Phrases a citation repeats: any run of two or more words that occurs twice ("via @tgwf/co2 0.19.0
 * averageIntensity ... @tgwf/co2 0.19.0 averageIntensity"), and any name with a version number in it
 * that occurs twice ("eGRID2022 ... eGRID2022"). Short function words alone do not count.
 */
export function repeatedPhrases(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}@][\p{L}\p{N}@./_-]*/gu) ?? [];
  const trimmed = words.map((w) => w.replace(/[.]+$/, ''));
  const found = new Set<string>();
  const seen = new Set<string>();
  const STOP = new Set(['of', 'the', 'and', 'in', 'for', 'a', 'an', 'to', 'by', 'at', 'on', 'no', 'not', 'is', 'per']);
  for (let i = 0; i + 1 < trimmed.length; i++) {
    const pair = [trimmed[i]!, trimmed[i + 1]!];
    if (pair.every((w) => STOP.has(w))) continue;
    const key = pair.join(' ');
    if (seen.has(key)) found.add(key);
    seen.add(key);
  }
  const names = new Map<string, number>();
  for (const w of trimmed) if (/\p{L}/u.test(w) && /\p{N}/u.test(w) && w.length >= 5) names.set(w, (names.get(w) ?? 0) + 1);
  for (const [w, n] of names) if (n > 1) found.add(w);
  return [...found];
}
