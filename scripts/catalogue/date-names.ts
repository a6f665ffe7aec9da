/**
 * How well the catalogue dates the names it does not know (src/catalogue/name-hints.ts, releaseYears),
 * checked leave-one-out on the catalogue itself: each device's name dated from all the other devices.
 *   npx tsx scripts/catalogue/date-names.ts     (about 3 minutes: one index per device)
 * Prints how many devices get a year, how many exactly and within a year of theirs, by rule.
 */
import { loadCatalogue } from '../../src/catalogue/catalogue-data.ts';
import { readNameHints, releaseYears } from '../../src/catalogue/name-hints.ts';

const RULES = [
  ['same model number', /\(the same model number\)/],
  ['line and generation', /\(the same line and generation\)/],
  ['digit place', /\(digit \d+ of the model number/],
] as const;

const entries = loadCatalogue();
const counts = new Map(RULES.map(([rule]) => [rule, { dated: 0, exact: 0, withinAYear: 0 }]));
entries.forEach((entry, i) => {
  const dated = readNameHints(entry.name, entry.brand, undefined, releaseYears(entries.filter((_, j) => j !== i))).release_year;
  if (!dated) return;
  const rule = RULES.find(([, pattern]) => pattern.test(dated.basis))![0];
  const c = counts.get(rule)!;
  c.dated++;
  if (dated.year === entry.release_year) c.exact++;
  if (Math.abs(dated.year - entry.release_year) <= 1) c.withinAYear++;
});
const total = [...counts.values()].reduce((t, c) => ({
  dated: t.dated + c.dated,
  exact: t.exact + c.exact,
  withinAYear: t.withinAYear + c.withinAYear,
}));
console.log(
  `${entries.length} catalogue devices, each dated from the others: ${total.dated} dated, ${total.exact} exact, ${total.withinAYear} within a year`,
);
for (const [rule, c] of counts) console.log(`  ${rule.padEnd(20)} ${c.dated} dated, ${c.exact} exact, ${c.withinAYear} within a year`);
