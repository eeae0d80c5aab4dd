// `npm run bench`: runs every bench/*.mjs that exports a default function (each returns rows) and prints one
// table; every figure is measured in this run, ratios against a baseline measured in the same run.
// [cpu …x] is the same ratio in CPU time, for reading a run on a loaded machine; verdicts use wall time.
// A row with a `goal` is checked: a ratio (or, without a baseline, the value) above goal + spread — the
// run-to-run spread that row measured — is a miss, and a miss makes the exit status 1. A row with `atLeast` is
// checked the other way: a value below it (ERLE, a correlation) is a miss.
// `npm run bench -- startup` runs only the files whose name contains "startup".
import { readdirSync } from 'node:fs';

const only = process.argv.slice(2);
const files = readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs' && f !== 'lib.mjs')
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

const fmt = (v) => (typeof v === 'number' ? (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2)) : String(v ?? ''));
let failed = false;
const misses = [];
for (const file of files) {
  const mod = await import(new URL(file, import.meta.url));
  if (typeof mod.default !== 'function') continue;
  process.stdout.write(`\n## ${file}\n`);
  try {
    const rows = await mod.default();
    for (const r of rows) {
      let line = `${r.name.padEnd(58)} ${fmt(r.value).padStart(8)} ${(r.unit ?? '').padEnd(4)}`;
      if (r.ratio !== undefined) {
        const spread = r.spread !== undefined ? ` ±${r.spread.toFixed(2)}` : '';
        const base = r.baseValue !== undefined ? ` (${fmt(r.baseValue)} ${r.unit ?? ''})` : '';
        const cpu = r.cpuRatio !== undefined ? ` [cpu ${r.cpuRatio.toFixed(2)}x]` : '';
        line += `  ${r.ratio.toFixed(2)}x${spread}${cpu} of ${r.baseline ?? ''}${base}`;
      }
      if (r.atLeast !== undefined) {
        // a figure that must reach its goal (ERLE, correlation): no ratio, no spread
        const ok = r.value >= r.atLeast;
        line += `  goal ≥ ${r.atLeast} ${r.unit ?? ''}: ${ok ? 'ok' : 'MISS'}`;
        if (!ok) misses.push(`${r.name}: ${fmt(r.value)} < ${r.atLeast} ${r.unit ?? ''}`);
      } else if (r.goal !== undefined) {
        const measured = r.ratio ?? r.value;
        const unit = r.ratio !== undefined ? 'x' : ` ${r.unit ?? ''}`;
        const ok = measured <= r.goal + (r.spread ?? 0);
        line += `  goal ≤ ${r.goal}${unit}: ${ok ? 'ok' : 'MISS'}`;
        if (!ok) misses.push(`${r.name}: ${fmt(measured)}${unit} > ${r.goal}${unit} + ${fmt(r.spread ?? 0)}`);
      } else if (r.target) line += `  (target ${r.target})`;
      process.stdout.write(`${line}\n`);
    }
  } catch (err) {
    failed = true;
    process.stdout.write(`failed: ${err.stack ?? err}\n`);
  }
}
if (misses.length)
  process.stdout.write(`\ngoals missed by more than the measured spread:\n${misses.map((m) => `  ${m}`).join('\n')}\n`);
process.exit(failed || misses.length ? 1 : 0);
