/**
 * End of life: device mass x treatment factor of its material class (cut-off approach).
 * The fitted group factor (published end-of-life shares) replaces the class prior when present.
 */
import { EOL_KG_PER_KG } from './constants.ts';
import type { CategoryDefinition } from './types.ts';

export function endOfLifeFactor(category: CategoryDefinition, fitted: number | null): number {
  return fitted ?? EOL_KG_PER_KG[category.parameters.end_of_life.material_class];
}

export function endOfLifeKg(weightKg: number, category: CategoryDefinition, fitted: number | null): number {
  return Math.max(0, weightKg) * endOfLifeFactor(category, fitted);
}
