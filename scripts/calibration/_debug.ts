import { readFileSync } from 'node:fs';
import { loadCalibration } from './load.ts';
import { crossValidate, prepare } from './model.ts';
import { defaultParameters } from './model.ts';
const base = defaultParameters();
const { rows } = loadCalibration();
const prepared = prepare(rows);
const preds = crossValidate(prepared, base);
const want = process.argv[2] ?? 'server';
const csv = readFileSync('/work/shared/calibration/manufacturer-pcf.csv','utf8').split('\n');
for (const p of preds) {
  if (p.prepared.category.id !== want && p.prepared.fitGroup !== want) continue;
  const r = p.prepared.row;
  const name = (csv[r.index] ?? '').split(',').slice(0,2).join(' ').slice(0,40);
  console.log(name.padEnd(40), p.prepared.category.id.padEnd(12), 'emb', r.embodied?.toFixed(0).padStart(5), 'pred', p.embodied.toFixed(0).padStart(5), 'ape', p.embodiedApe?.toFixed(0).padStart(4), JSON.stringify(r.specs), 'blocks', Object.values(p.prepared.blocks).map(v=>v.toFixed(0)).join('/'));
}
