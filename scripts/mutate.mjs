#!/usr/bin/env node
// The suite's strength as a number: plants known single-line bugs in src/core one at a time, rebuilds, runs the
// tests that should notice, and prints which were caught. Not part of `npm test` (it rebuilds once per bug).
//   node scripts/mutate.mjs            every mutant
//   node scripts/mutate.mjs no-color   the mutants whose name contains a word
// The source is restored after each mutant, also on failure and Ctrl-C. Run it in a clean work tree.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

/** name, file, the exact line text to find (must occur once), its replacement, the tests that should fail */
const MUTANTS = [
  {
    name: 'no-color ignored',
    file: 'src/term/color.ts',
    find: "if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;",
    replace: 'if (false) return false;',
    tests: ['test/cli.test.ts', 'test/term/color.test.ts'],
  },
  {
    name: 'force-color ignored',
    file: 'src/term/color.ts',
    find: "if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;",
    replace: 'if (false) return true;',
    tests: ['test/cli.test.ts', 'test/term/color.test.ts'],
  },
  {
    name: '429 not retried',
    file: 'src/net/http.ts',
    find: 'const RETRY_ALWAYS = new Set([429]);',
    replace: 'const RETRY_ALWAYS = new Set<number>([]);',
    tests: ['test/net/http.test.ts', 'test/commands/emulator/server-routes.test.ts'],
  },
  {
    name: 'POST retried on 5xx',
    file: 'src/net/http.ts',
    find: "return (method === 'GET' || method === 'HEAD') && RETRY_IDEMPOTENT.has(status);",
    replace: 'return RETRY_IDEMPOTENT.has(status);',
    tests: ['test/net/http.test.ts', 'test/commands/emulator/server-routes.test.ts'],
  },
  {
    name: 'backoff not exponential',
    file: 'src/net/http.ts',
    find: 'const base = Math.min(500 * 2 ** attempt, 8000);',
    replace: 'const base = Math.min(500, 8000);',
    tests: ['test/net/http.test.ts'],
  },
  {
    name: 'key not redacted in traces',
    file: 'src/net/http.ts',
    find: "return key ? text.split(key).join('[REDACTED]') : text;",
    replace: 'return text;',
    tests: ['test/net/http.test.ts', 'test/commands/auth', 'test/commands/emulator/server-routes.test.ts'],
  },
  {
    name: 'authorization header traced',
    file: 'src/net/http.ts',
    find: "this.traceLine(`> ${k}: ${k === 'authorization' ? 'Bearer [REDACTED]' : v}`);",
    replace: 'this.opts.trace?.(`> ${k}: ${v}`);',
    tests: ['test/net/http.test.ts', 'test/commands/auth', 'test/commands/emulator/server-routes.test.ts'],
  },
  {
    name: 'path segment not encoded',
    file: 'src/net/http.ts',
    find: 'return encodeURIComponent(s);',
    replace: 'return s;',
    tests: ['test/net/http.test.ts', 'test/commands/files'],
  },
  {
    name: 'range: max off by one',
    file: 'src/core/validate.ts',
    find: 'if (max !== undefined && value > max) fail(flag, shown, allowed);',
    replace: 'if (max !== undefined && value > max + 1) fail(flag, shown, allowed);',
    tests: ['test/commands/chat/validation.test.ts', 'test/commands/tts/say.test.ts'],
  },
  {
    name: 'range: integer accepts fractions',
    file: 'src/core/validate.ts',
    find: 'if ((rule.integer || rule.int32) && !Number.isInteger(value)) fail(flag, shown, allowed);',
    replace: 'if (rule.int32 && !Number.isInteger(value)) fail(flag, shown, allowed);',
    tests: [
      'test/commands/chat/validation.test.ts',
      'test/commands/tts/say.test.ts',
      'test/commands/files/paging.test.ts',
    ],
  },
  {
    name: '404 exits 1 (not 5)',
    file: 'src/core/errors.ts',
    find: 'if (status === 404) return ExitCode.notFound;',
    replace: 'if (status === 404) return ExitCode.error;',
    tests: ['test/cli.test.ts', 'test/commands/emulator/server-routes.test.ts'],
  },
  {
    name: '--json lists pretty-printed',
    file: 'src/term/output.ts',
    find: 'this.line(jsonSafe(JSON.stringify(value)));',
    replace: 'this.line(jsonSafe(JSON.stringify(value, null, 2)));',
    tests: ['test/commands/chat/stream.test.ts', 'test/commands/models'],
  },
  {
    name: 'stream end marker not required',
    file: 'src/net/sse.ts',
    find: 'if (!complete) throw new IncompleteError(',
    replace: 'if (complete && !complete) throw new IncompleteError(',
    tests: ['test/net/sse.test.ts', 'test/commands/chat/stream.test.ts'],
  },
  {
    name: 'temp file kept on a signal',
    file: 'src/core/atomic-file.ts',
    find: 'unlinkSync(p);',
    replace: 'void p;',
    tests: ['test/core/atomic-file.test.ts', 'test/commands/files/interrupt.test.ts'],
  },
  {
    name: 'config file not 0600',
    file: 'src/runtime/config.ts',
    find: "chmodSync(store.path, 0o600); // conf's mode applies only when it creates the file",
    replace: 'chmodSync(store.path, 0o644);',
    tests: ['test/commands/auth'],
  },
  {
    name: 'realtime usage not summed over answers',
    file: 'src/apilog/ws-session.ts',
    find:
      "for (const [k, v] of Object.entries(u)) if (typeof v === 'number' && Number.isFinite(v)) sum[k] = " +
      '(sum[k] ?? 0) + v;',
    replace: "for (const [k, v] of Object.entries(u)) if (typeof v === 'number' && Number.isFinite(v)) sum[k] = v;",
    tests: ['test/apilog/ws-session.test.ts'],
  },
  {
    name: 'calls lost when the process exits before the exit hooks',
    file: 'src/runtime/context.ts',
    find: "process.once('exit', atExit);",
    replace: 'void atExit;',
    tests: ['test/apilog/ws-session.test.ts'],
  },
  {
    name: 'WebSocket upgrade refusal not logged',
    file: 'src/net/ws.ts',
    find: 'handshake(res.statusCode ?? null, redact(message));',
    replace: 'void message;',
    tests: ['test/apilog/ws-session.test.ts'],
  },
];

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
