/**
 * One-off / repeatable audit of family templates in data/catalogue/*.json (see family-templates.ts).
 *   npx tsx scripts/catalogue/audit.ts          lists the templates
 *   npx tsx scripts/catalogue/audit.ts --fix    deletes the template weights (left empty: the engine estimates them)
 *   --dir <path>                                audits another copy of the catalogue (e.g. an older revision)
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOGUE_DIR } from '../../src/catalogue/catalogue-data.ts';
import { templateFamilyOf, findFamilyTemplates, type AuditedEntry } from './family-templates.ts';

const fix = process.argv.includes('--fix');
const dirFlag = process.argv.indexOf('--dir');
const dir = dirFlag > 0 ? (process.argv[dirFlag + 1] ?? CATALOGUE_DIR) : CATALOGUE_DIR;
let total = 0;
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()) {
  const path = join(dir, file);
  const entries = JSON.parse(readFileSync(path, 'utf8')) as AuditedEntry[];
  const templates = findFamilyTemplates(entries);
  for (const t of templates) {
    console.log(
      `${file}: ${t.family} weight_kg=${t.weight_kg} on ${t.entries.length} entries (${t.copies.length} full copies): ${t.entries.join(', ')}`,
    );
    total += t.entries.length;
  }
  if (!fix || templates.length === 0) continue;
  const template = new Set(templates.map((t) => `${t.family}\u0000${t.weight_kg}`));
  for (const e of entries) {
    if (e.specs && template.has(`${templateFamilyOf(e)}\u0000${e.specs.weight_kg}`)) delete e.specs.weight_kg;
  }
  writeFileSync(path, `${JSON.stringify(entries, null, 2)}\n`);
}
console.log(`${total} template weights${fix ? ' deleted' : ''}`);
