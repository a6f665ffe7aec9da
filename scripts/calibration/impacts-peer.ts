/**
 * Peer check of the impacts beyond carbon: our embedded ADPe and PE against BoaviztAPI's published
 * results (data/impact-factors/boavizta-peer-results.json: the figures with their file and test at
 * the boaviztapi commit, and the devices compared against them). Prints one line per device and the
 * distribution of the ratios ours / BoaviztAPI's, per category and criterion; the numbers are quoted
 * in docs/methodology.md section 13.4 and test/calibration/impacts-peer.test.ts keeps them within the
 * bounds stated there. `npx tsx scripts/calibration/impacts-peer.ts`
 */
import { resolve } from 'node:path';
import desktops from '../../data/catalogue/desktops.json' with { type: 'json' };
import laptops from '../../data/catalogue/laptops.json' with { type: 'json' };
import monitors from '../../data/catalogue/monitors.json' with { type: 'json' };
import phonesTablets from '../../data/catalogue/phones-tablets.json' with { type: 'json' };
import peer from '../../data/impact-factors/boavizta-peer-results.json' with { type: 'json' };
import { type DeviceSpecs, footprintModel, getCategory, type ResourceCriterion } from '../../src/footprint/engine/index.ts';
import { percentile } from './model.ts';

export type PeerCriterion = 'adpe' | 'pe' | 'pe_vs_adpf';

/** The categories issue 42 asks the peer comparison to cover. */
export const PEER_CATEGORIES = ['laptop', 'desktop', 'monitor', 'smartphone', 'tablet', 'server'] as const;

interface PeerValue {
  value: number;
  /** the decimal place BoaviztAPI rounded `value` to (absent: not rounded) */
  resolution?: number;
  min?: number;
  max?: number;
}

interface PeerFigure {
  id: string;
  category: string;
  kind: 'ademe_device' | 'server_configuration' | 'cloud_instance';
  scope: string;
  adpe: PeerValue | null;
  pe: PeerValue | null;
  adpf: PeerValue | null;
  source: string;
  /** cloud instances: [instance, platform] */
  allocation?: { vcpu: [number, number]; memory_gb: [number, number]; ssd_gb: [number, number] | null };
}

interface PeerDevice {
  id: string;
  figure: string;
  specs?: DeviceSpecs;
  /** name of a device of data/catalogue/ whose specs and release year the engine is given */
  catalogue?: string;
}

export interface PeerRow {
  device: string;
  figure: string;
  category: string;
  kind: PeerFigure['kind'];
  /** a catalogue device, compared against the figure BoaviztAPI answers for any device of its type */
  identified: boolean;
  criterion: PeerCriterion;
  ours: number;
  theirs: number;
  ratio: number;
  /** half the rounding step of BoaviztAPI's figure, in % of it */
  rounding_pct: number;
  /** ADPe: the processor's part of ours (in the figure's scope) */
  processor?: number;
}

export interface RatioDistribution {
  n: number;
  min: number;
  p10: number;
  median: number;
  p90: number;
  max: number;
  geometric_mean: number;
}

const FIGURES = new Map((peer.figures as PeerFigure[]).map((f) => [f.id, f]));

interface CatalogueEntry {
  name: string;
  category: string;
  brand: string;
  release_year?: number;
  specs: DeviceSpecs;
}
const CATALOGUE = new Map(([...laptops, ...desktops, ...monitors, ...phonesTablets] as CatalogueEntry[]).map((d) => [d.name, d]));

/** Our embedded impacts of one device in BoaviztAPI's scope for its figure, per criterion. */
function oursFor(device: PeerDevice, figure: PeerFigure): { value: (c: ResourceCriterion) => number; processorAdpe: number } {
  const entry = device.catalogue === undefined ? undefined : CATALOGUE.get(device.catalogue);
  if (device.catalogue !== undefined && !entry) throw new Error(`${device.id}: no catalogue device named '${device.catalogue}'`);
  const categoryId = entry?.category ?? figure.category;
  if (categoryId !== figure.category) throw new Error(`${device.id}: a ${categoryId} compared with a ${figure.category} figure`);
  const category = getCategory(categoryId);
  if (!category) throw new Error(`unknown category ${categoryId}`);
  const specs = entry?.specs ?? device.specs ?? {};
  const result = footprintModel({
    category,
    specs,
    supplied_spec_count: Object.keys(specs).length,
    grid_factor_kg_per_kwh: 0.3,
    use_region: 'FR',
    ...(entry ? { brand: entry.brand } : {}),
    ...(entry?.release_year !== undefined ? { release_year: entry.release_year } : {}),
  });
  const impacts = result.impacts;
  if (!impacts) throw new Error(`${device.id}: the engine gave no impacts`);
  const components = (c: ResourceCriterion) => {
    const byComponent = impacts[c].production_components;
    if (!byComponent) throw new Error(`${device.id}: no production components`);
    return byComponent;
  };
  const value = (c: ResourceCriterion): number => {
    const phases = impacts[c].phases;
    switch (figure.kind) {
      // ADEME's device figures cover manufacture, distribution and end of life.
      case 'ademe_device':
        return phases.production + phases.transport + phases.end_of_life;
      // BoaviztAPI's server embedded is manufacture only ("End of life is not included").
      case 'server_configuration':
        return phases.production;
      case 'cloud_instance': {
        const a = figure.allocation;
        if (!a) throw new Error(`${figure.id}: a cloud instance without its allocation`);
        const share = ([instance, platform]: [number, number]) => instance / platform;
        let total = 0;
        for (const [component, v] of Object.entries(components(c))) {
          if (component === 'memory') total += v * share(a.memory_gb);
          else if (component === 'storage') total += a.ssd_gb ? v * share(a.ssd_gb) : 0;
          else total += v * share(a.vcpu);
        }
        return total;
      }
    }
  };
  const processor = components('adpe').processor ?? 0;
  const vcpuShare = figure.allocation ? figure.allocation.vcpu[0] / figure.allocation.vcpu[1] : 1;
  return { value, processorAdpe: processor * vcpuShare };
}

/** Every device of the peer set against its BoaviztAPI figure, one row per criterion the figure has. */
export function peerComparison(): PeerRow[] {
  const rows: PeerRow[] = [];
  for (const device of peer.devices as PeerDevice[]) {
    const figure = FIGURES.get(device.figure);
    if (!figure) throw new Error(`${device.id}: no figure '${device.figure}'`);
    const ours = oursFor(device, figure);
    const base = {
      device: device.id,
      figure: figure.id,
      category: figure.category,
      kind: figure.kind,
      identified: device.catalogue !== undefined,
    };
    const add = (criterion: PeerCriterion, oursValue: number, theirs: PeerValue | null, processor?: number) => {
      if (!theirs) return;
      const t = theirs.value;
      rows.push({
        ...base,
        criterion,
        ours: oursValue,
        theirs: t,
        ratio: oursValue / t,
        rounding_pct: theirs.resolution === undefined ? 0 : (100 * theirs.resolution) / 2 / t,
        ...(processor === undefined ? {} : { processor }),
      });
    };
    add('adpe', ours.value('adpe'), figure.adpe, ours.processorAdpe);
    add('pe', ours.value('pe'), figure.pe);
    // ADEME gives no PE for its devices; its fossil resource use (ADPf) is a lower bound of PE.
    add('pe_vs_adpf', ours.value('pe'), figure.adpf);
  }
  return rows;
}

export function ratioDistribution(rows: readonly PeerRow[]): RatioDistribution | undefined {
  const ratios = rows.map((r) => r.ratio).sort((a, b) => a - b);
  if (ratios.length === 0) return undefined;
  return {
    n: ratios.length,
    min: ratios[0]!,
    p10: percentile(ratios, 10),
    median: percentile(ratios, 50),
    p90: percentile(ratios, 90),
    max: ratios.at(-1)!,
    geometric_mean: Math.exp(ratios.reduce((t, x) => t + Math.log(x), 0) / ratios.length),
  };
}

/** The groups docs/methodology.md reports per criterion: each category, terminals, servers, all. */
export function distributionGroups(rows: readonly PeerRow[]): { criterion: PeerCriterion; group: string; d: RatioDistribution }[] {
  const out: { criterion: PeerCriterion; group: string; d: RatioDistribution }[] = [];
  for (const criterion of ['adpe', 'pe', 'pe_vs_adpf'] as const) {
    const of = rows.filter((r) => r.criterion === criterion);
    const groups: [string, PeerRow[]][] = [
      ['all', of],
      ['terminals', of.filter((r) => r.category !== 'server')],
      ...[...new Set(of.map((r) => r.category))].map((c): [string, PeerRow[]] => [c, of.filter((r) => r.category === c)]),
      ['one device per figure', of.filter((r) => !r.identified)],
    ];
    for (const [group, selected] of groups) {
      const d = ratioDistribution(selected);
      if (d) out.push({ criterion, group, d });
    }
  }
  return out;
}

function main(): void {
  const rows = peerComparison();
  const fmt = (v: number) => (v < 1 ? v.toPrecision(3) : v.toFixed(0));
  const f2 = (v: number) => v.toFixed(2);
  console.log('| device | figure | criterion | ours | BoaviztAPI | ratio | rounding of theirs | processor share of our ADPe |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const share = r.processor === undefined ? '' : `${((100 * r.processor) / r.ours).toFixed(0)}%`;
    const rounding = r.rounding_pct === 0 ? '' : `+-${r.rounding_pct.toFixed(1)}%`;
    console.log(
      `| ${r.device} | ${r.figure} | ${r.criterion} | ${fmt(r.ours)} | ${fmt(r.theirs)} | ${f2(r.ratio)} | ${rounding} | ${share} |`,
    );
  }
  const devices = new Set(rows.map((r) => r.device));
  const inScope = new Set(rows.filter((r) => (PEER_CATEGORIES as readonly string[]).includes(r.category)).map((r) => r.device));
  console.log(
    `\n${devices.size} devices (${inScope.size} in ${PEER_CATEGORIES.join(', ')}), ${new Set(rows.map((r) => r.figure)).size} BoaviztAPI figures\n`,
  );
  console.log('| criterion | group | n | median | p10-p90 | range | geometric mean |');
  console.log('|---|---|---|---|---|---|---|');
  for (const { criterion, group, d } of distributionGroups(rows)) {
    console.log(
      `| ${criterion} | ${group} | ${d.n} | ${f2(d.median)} | ${f2(d.p10)}-${f2(d.p90)} | ${f2(d.min)}-${f2(d.max)} | ${f2(d.geometric_mean)} |`,
    );
  }
  // The terminal gap without the processor: ours less its processor, against the same figure.
  const withoutProcessor = rows
    .filter((r) => r.criterion === 'adpe' && r.category !== 'server')
    .map((r) => ({ ...r, ratio: (r.ours - (r.processor ?? 0)) / r.theirs }));
  const d = ratioDistribution(withoutProcessor);
  if (d)
    console.log(
      `| adpe less our processor | terminals | ${d.n} | ${f2(d.median)} | ${f2(d.p10)}-${f2(d.p90)} | ${f2(d.min)}-${f2(d.max)} | ${f2(d.geometric_mean)} |`,
    );
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main();
