#!/usr/bin/env node
// The suite's strength as a number: plants known small bugs in the CLI's rooms one at a time, rebuilds, runs the
// tests that should notice, and prints which were caught. Not part of `npm test` (it rebuilds once per bug).
//   node scripts/mutate.mjs            every mutant
//   node scripts/mutate.mjs no-color   the mutants whose name contains a word
// The source is restored after each mutant, also on failure and Ctrl-C. Run it in a clean work tree.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MUTANTS } from './mutants.mjs';

const ROOT = resolve(import.meta.dirname, '..');

const only = process.argv.slice(2);
const chosen = MUTANTS.filter((m) => only.length === 0 || only.some((w) => m.name.includes(w)));
const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' });
if (dirty.trim()) {
  console.error(`src/ has uncommitted changes; commit or stash them first:\n${dirty}`);
  process.exit(2);
}

let restore = () => {};
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    restore();
    process.exit(130);
  });
}

/** Run a command to its end (asynchronously, so that Ctrl-C reaches the handler above and restores the source). */
function run(cmd, args, env = process.env) {
  return new Promise((done) => {
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.resume();
    child.on('close', (status) => done({ status, stdout }));
  });
}
const build = () => run('npm', ['run', 'build', '--silent']);
const rows = [];
try {
  for (const m of chosen) {
    const path = join(ROOT, m.file);
    const original = readFileSync(path, 'utf8');
    const hits = original.split(m.find).length - 1;
    if (hits !== 1) {
      rows.push({ ...m, result: `NOT PLANTED (the line occurs ${hits} times; update the script)` });
      process.stderr.write(`${m.name}: ${rows.at(-1).result}\n`);
      continue;
    }
    restore = () => writeFileSync(path, original);
    writeFileSync(path, original.replace(m.find, m.replace));
    const started = Date.now();
    try {
      const b = await build();
      if (b.status !== 0) {
        rows.push({ ...m, result: 'caught (does not compile)' });
        process.stderr.write(`${m.name}: ${rows.at(-1).result}\n`);
        continue;
      }
      const t = await run('npx', ['vitest', 'run', '--reporter=dot', ...m.tests], { ...process.env, FORCE_COLOR: '0' });
      const failed = /(\d+) failed/.exec(t.stdout)?.[1];
      rows.push({
        ...m,
        result: t.status === 0 ? 'MISSED' : `caught (${failed ?? '?'} failing)`,
        seconds: Math.round((Date.now() - started) / 1000),
      });
    } finally {
      restore();
      restore = () => {};
    }
    process.stderr.write(`${m.name}: ${rows.at(-1).result}\n`);
  }
} finally {
  restore();
  await build();
}

const caught = rows.filter((r) => r.result.startsWith('caught')).length;
const pad = (s, n) => String(s).padEnd(n);
console.log(`| ${pad('mutant', 32)} | ${pad('file', 24)} | ${pad('result', 22)} | tests run`);
console.log(`|${'-'.repeat(34)}|${'-'.repeat(26)}|${'-'.repeat(24)}|${'-'.repeat(10)}`);
for (const r of rows)
  console.log(`| ${pad(r.name, 32)} | ${pad(r.file, 24)} | ${pad(r.result, 22)} | ${r.tests.join(' ')}`);
console.log(`\n${caught} of ${rows.length} planted bugs caught`);
process.exitCode = caught === rows.length ? 0 : 1;
