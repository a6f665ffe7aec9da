/**
 * The 48 device categories (data/categories.json), loaded at module load through a JSON import.
 */
import raw from '../../../data/categories.json' with { type: 'json' };
import type { CategoryDefinition } from './types.ts';

export const CATEGORIES: readonly CategoryDefinition[] = Object.freeze(raw as unknown as CategoryDefinition[]);

const BY_ID = new Map(CATEGORIES.map((c) => [c.id, c]));

export function getCategory(id: string): CategoryDefinition | undefined {
  return BY_ID.get(id.trim().toLowerCase());
}

export const CATEGORY_IDS: readonly string[] = CATEGORIES.map((c) => c.id);
