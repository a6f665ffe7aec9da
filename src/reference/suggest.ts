import { editDistance } from './grid-codes.ts';

/** The `n` candidates closest to `input` by edit distance (ties keep the candidates' order). */
export function rankClosest(input: string, candidates: readonly string[], n: number): string[] {
  const needle = input.trim().toLowerCase();
  return candidates
    .map((candidate, order) => ({ candidate, order, distance: editDistance(needle, candidate.toLowerCase()) }))
    .sort((a, b) => a.distance - b.distance || a.order - b.order)
    .slice(0, n)
    .map((c) => c.candidate);
}
