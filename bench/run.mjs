// `npm run bench`: runs every bench/*.mjs that exports a default function (each returns rows) and prints one
// table; every figure is measured in this run, ratios against a baseline measured in the same run.
import { readdirSync } from 'node:fs';

const only = process.argv.slice(2);
const files = readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs' && f !== 'lib.mjs')
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

const fmt = (v) => (typeof v === 'number' ? (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2)) : String(v ?? ''));
let failed = false;
for (const file of files) {
  const mod = await import(new URL(file, import.meta.url));
  if (typeof mod.default !== 'function') continue;
  process.stdout.write(`\n## ${file}\n`);
  try {
    const rows = await mod.default();
    for (const r of rows) {
      const ratio = r.ratio !== undefined ? `  ${r.ratio.toFixed(2)}x ${r.baseline ?? ''}` : '';
      const target = r.target ? `  (target ${r.target})` : '';
      process.stdout.write(`${r.name.padEnd(52)} ${fmt(r.value).padStart(10)} ${r.unit ?? ''}${ratio}${target}\n`);
    }
  } catch (err) {
    failed = true;
    process.stdout.write(`failed: ${err.stack ?? err}\n`);
  }
}
process.exit(failed ? 1 : 0);
