import { barChart } from './charts.ts';
import type { Chart } from './pdf.ts';
import * as fmt from './format.ts';
import type { LifecyclePhases } from './views.ts';

/** The four lifecycle phases in the order the methodology names them, with the colours both documents use. */
export const PHASES: { key: keyof LifecyclePhases; label: string; color: string }[] = [
  { key: 'production_kg', label: 'Production', color: '#1b4965' },
  { key: 'transport_kg', label: 'Transport', color: '#5fa8d3' },
  { key: 'use_phase_kg', label: 'Use', color: '#e09f3e' },
  { key: 'end_of_life_kg', label: 'End of life', color: '#7d8f69' },
];

/** Bars for the four phases, each labelled "215.0 kg · 74.8 %"; `barStep` points a bar (a certificate packs them closer). */
export function phaseChart(phases: LifecyclePhases, total: number, width: number, barStep = 19): Promise<Chart> {
  return barChart(
    PHASES.map(({ key, label, color }) => ({
      label,
      value: Math.max(phases[key], 0),
      text: `${fmt.kg(phases[key])} kg · ${fmt.pct(total > 0 ? (phases[key] / total) * 100 : 0)}`,
      color,
    })),
    width,
    barStep,
  );
}
