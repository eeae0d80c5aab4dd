// Every environment variable the source reads is listed by `svc help environment` (generated from
// src/core/environment.ts) and in the README's environment table; help topics and `svc version` work in a pipe.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT } from '../../src/core/environment.js';
import { ExitCode } from '../../src/core/errors.js';
import { ROOT } from '../helpers/files.js';
import { svcInProcess } from '../helpers/in-process.js';
import { svcProcess } from '../helpers/subprocess.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : /\.(ts|cjs|mjs)$/.test(name) ? [p] : [];
  });
}

/** Names the code reads: env.NAME, env['NAME'], readEnv(env, 'NAME'), and any SVC_* name it spells out. */
function variablesRead(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'bin'))]) {
    const text = readFileSync(file, 'utf8');
    const patterns = [
      /\benv\??\.([A-Z][A-Z0-9_]+)\b/g,
      /\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]/g,
      /readEnv\([^,]+,\s*'([A-Z][A-Z0-9_]+)'\)/g,
      /\b(SVC_[A-Z0-9_]+)\b/g,
    ];
    for (const re of patterns)
      for (const m of text.matchAll(re)) if (!found.has(m[1]!)) found.set(m[1]!, file.slice(ROOT.length + 1));
  }
  return found;
}

describe('svc help environment', () => {
  it('lists every variable the source reads', async () => {
    const r = await svcInProcess(['help', 'environment']);
    expect(r.exitCode, r.stderr).toBe(0);
    // (curl spells the proxy variables in lower case too: https_proxy, no_proxy)
    const listed = new Set([...r.stdout.matchAll(/^ {2}([A-Za-z][A-Za-z0-9_]+) /gm)].map((m) => m[1]!));
    const read = variablesRead();
    expect(read.size).toBeGreaterThan(20);
    const missing = [...read].filter(([name]) => !listed.has(name)).map(([name, file]) => `${name} (read in ${file})`);
    expect(missing).toEqual([]);
    expect([...listed].sort()).toEqual(ENVIRONMENT.map((v) => v.name).sort());
  });

  it('--json: one {name, description} per line', async () => {
    const r = await svcInProcess(['help', 'environment', '--json']);
    const rows = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(rows).toEqual(ENVIRONMENT.map((v) => ({ name: v.name, description: v.description })));
  });

  it('the README environment table names every variable', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const table = readme.slice(
      readme.indexOf('## Environment'),
      readme.indexOf('\n## ', readme.indexOf('## Environment') + 5),
    );
    expect(ENVIRONMENT.filter((v) => !table.includes(`\`${v.name}\``)).map((v) => v.name)).toEqual([]);
  });
});

describe('svc help and svc version', () => {
  it('svc help exit-codes names every exit code', async () => {
    const r = await svcInProcess(['help', 'exit-codes']);
    expect(r.exitCode).toBe(0);
    for (const code of Object.values(ExitCode)) expect(r.stdout).toMatch(new RegExp(`^ {2}${code} +\\S`, 'm'));
  });

  it('svc help globals lists the global options, --jq included', async () => {
    const r = await svcInProcess(['help', 'globals']);
    expect(r.exitCode).toBe(0);
    for (const flag of ['--profile <name>', '--json', '--jq <expr>', '-q, --quiet', '--no-color'])
      expect(r.stdout).toContain(flag);
  });

  it("svc help COMMAND is the command's --help; bare svc help is the top-level help on stdout, exit 0", async () => {
    const viaHelp = await svcInProcess(['help', 'files', 'list']);
    const viaFlag = await svcInProcess(['files', 'list', '--help']);
    expect(viaHelp.exitCode).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaHelp.stdout).toContain('--page-token');
    const top = await svcInProcess(['help']);
    expect(top.exitCode).toBe(0);
    expect(top.stdout).toBe((await svcInProcess(['--help'])).stdout);
    // whichever way the root's help is asked, and in the binary too (its launcher answers a bare --help itself)
    expect((await svcInProcess(['--no-color', '--help'])).stdout).toBe(top.stdout);
    expect((await svcProcess(['--help'])).stdout).toBe(top.stdout);
  });

  it('an unknown command or topic exits 2 with a suggestion', async () => {
    const r = await svcInProcess(['help', 'fils']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('(did you mean files?)');
    const t = await svcInProcess(['help', 'environmnt']);
    expect(t.exitCode).toBe(2);
    expect(t.stderr).toContain('(did you mean environment?)');
  });

  it('svc version prints the package version; --json adds node and platform', async () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    expect((await svcInProcess(['version'])).stdout).toBe(`${version}\n`);
    expect(JSON.parse((await svcInProcess(['version', '--json'])).stdout)).toEqual({
      version,
      node: process.versions.node,
      platform: `${process.platform}-${process.arch}`,
    });
  });
});
