/**
 * Peer check of the impacts beyond carbon: our embedded ADPe and PE against BoaviztAPI's published
 * results for the same devices (data/impact-factors/boavizta-peer-results.json, with their sources).
 * Prints one line per device and the distribution of the ratios ours / BoaviztAPI's; the numbers are
 * quoted in docs/methodology.md ("Impacts beyond carbon", peer comparison). For ADPe it also prints the
 * share of ours that is the processor (BoaviztAPI's per-CPU base, the suspected cause of the terminal gap). `npx tsx scripts/calibration/impacts-peer.ts`
 */
import components from '../../data/impact-factors/boavizta-components.json' with { type: 'json' };
import peer from '../../data/impact-factors/boavizta-peer-results.json' with { type: 'json' };
import { footprintModel, getCategory } from '../../src/footprint/engine/index.ts';
import { processorImpact } from '../../src/footprint/engine/production.ts';
import type { DeviceSpecs } from '../../src/footprint/engine/index.ts';

interface Row {
  id: string;
  kind: string;
  criterion: 'adpe' | 'pe' | 'pe_vs_adpf';
  ours: number;
  theirs: number;
  /** ADPe only: the processor's part of ours */
  processor?: number;
}

const cpuAdpe = components.components.cpu.adpe;
const MM2_PER_CM2 = 100;

function quantile(sorted: number[], q: number): number {
  const i = (sorted.length - 1) * q;
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (i - lo);
}

const rows: Row[] = [];
for (const d of peer.devices) {
  const category = getCategory(d.category);
  if (!category) throw new Error(`unknown category ${d.category}`);
  const specs = d.specs as DeviceSpecs;
  const r = footprintModel({
    category,
    specs,
    supplied_spec_count: Object.keys(specs).length,
    grid_factor_kg_per_kwh: 0.3,
    use_region: 'FR',
  });
  const i = r.impacts!;
  // BoaviztAPI's server embedded is manufacture only; its terminals' ADEME figures include distribution and end of life.
  const manufactureOnly = d.boavizta.scope.startsWith('embedded: manufacture only');
  const embedded = (c: 'adpe' | 'pe') =>
    manufactureOnly ? i[c].phases.production : i[c].phases.production + i[c].phases.transport + i[c].phases.end_of_life;
  const processor = processorImpact(specs.processor_tdp_w ?? category.defaults.processor_tdp_w, category.defaults.processor_count, {
    base: cpuAdpe.base,
    per_die_cm2: cpuAdpe.per_die_mm2 * MM2_PER_CM2,
  });
  const kind = d.category;
  if (d.boavizta.adpe !== null)
    rows.push({ id: d.id, kind, criterion: 'adpe', ours: embedded('adpe'), theirs: d.boavizta.adpe, processor });
  if (d.boavizta.pe !== null) rows.push({ id: d.id, kind, criterion: 'pe', ours: embedded('pe'), theirs: d.boavizta.pe });
  if (d.boavizta.adpf !== null) rows.push({ id: d.id, kind, criterion: 'pe_vs_adpf', ours: embedded('pe'), theirs: d.boavizta.adpf });
}

const fmt = (v: number) => (v < 1 ? v.toPrecision(3) : v.toFixed(0));
console.log('device                         criterion    ours        BoaviztAPI  ratio  processor share of ours');
for (const r of rows) {
  const share = r.processor === undefined ? '' : `${((100 * r.processor) / r.ours).toFixed(0)}%`;
  console.log(
    `${r.id.padEnd(31)}${r.criterion.padEnd(13)}${fmt(r.ours).padEnd(12)}${fmt(r.theirs).padEnd(12)}${(r.ours / r.theirs).toFixed(2).padEnd(7)}${share}`,
  );
}

function distribution(label: string, selected: Row[]): void {
  const ratios = selected.map((r) => r.ours / r.theirs).sort((a, b) => a - b);
  if (ratios.length === 0) return;
  const geo = Math.exp(ratios.reduce((t, x) => t + Math.log(x), 0) / ratios.length);
  console.log(
    `${label}: n=${ratios.length} min ${ratios[0]!.toFixed(2)} p25 ${quantile(ratios, 0.25).toFixed(2)} median ${quantile(ratios, 0.5).toFixed(2)} p75 ${quantile(ratios, 0.75).toFixed(2)} max ${ratios.at(-1)!.toFixed(2)} geometric mean ${geo.toFixed(2)}`,
  );
}

for (const criterion of ['adpe', 'pe', 'pe_vs_adpf'] as const) {
  const ofCriterion = rows.filter((r) => r.criterion === criterion);
  distribution(criterion, ofCriterion);
  distribution(
    `  ${criterion} terminals`,
    ofCriterion.filter((r) => r.kind !== 'server'),
  );
  for (const kind of new Set(ofCriterion.map((r) => r.kind))) {
    distribution(
      `  ${criterion} ${kind}`,
      ofCriterion.filter((r) => r.kind === kind),
    );
  }
}
// The terminal gap without the processor: ours less its processor, against the same peer figure.
distribution(
  'adpe without the processor (terminals)',
  rows.filter((r) => r.criterion === 'adpe' && r.kind !== 'server').map((r) => ({ ...r, ours: r.ours - r.processor! })),
);
