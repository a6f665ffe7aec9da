import { loadCalibration } from './load.ts';
import { crossValidate, defaultParameters, prepare, stats } from './model.ts';
const { rows } = loadCalibration();
const preds = crossValidate(prepare(rows), defaultParameters());
const by = new Map<string, typeof preds>();
for (const p of preds) by.set(p.prepared.fitGroup, [...(by.get(p.prepared.fitGroup) ?? []), p]);
by.set('ALL', preds);
for (const [g, ps] of by) {
  const e = (k: 'embodiedApe'|'embodiedApeReduced'|'embodiedApeDefaults') => stats(ps.map(p => p[k]).filter((v): v is number => v !== null));
  const a = e('embodiedApe'), b = e('embodiedApeReduced'), c = e('embodiedApeDefaults');
  console.log(g.padEnd(14), a.n, 'file', a.p50.toFixed(1), a.p80.toFixed(1), '| w+s', b.p50.toFixed(1), b.p80.toFixed(1), '| none', c.p50.toFixed(1), c.p80.toFixed(1));
}
