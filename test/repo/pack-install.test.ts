// The package as users get it: a copy of the working tree without dist/ is packed (prepack builds it), the tarball
// is installed into an empty prefix, and the installed svc answers --version, chats with the emulator and prints a
// completion script. Dependencies come from npm's cache when it has them (--prefer-offline), else the registry.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/files.js';
import { svcInstalled } from '../helpers/subprocess.js';

const work = tempDir('svc-pack-');
const clone = join(work, 'clone');
const prefix = join(work, 'prefix');
let tarball = '';
let listing: string[] = [];

beforeAll(async () => {
  mkdirSync(clone);
  for (const entry of [
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'README.md',
    'src',
    'packages',
    'bin',
    'types',
    'scripts',
    'completions',
    'man',
    'assets',
  ]) {
    // the packages' sources, not what a build left in them
    const source = (from: string) => !/[\\/]packages[\\/][^\\/]+[\\/](dist|node_modules)$/.test(from);
    if (existsSync(join(ROOT, entry)))
      cpSync(join(ROOT, entry), join(clone, entry), { recursive: true, filter: source });
  }
  // the build tools of the working copy (a fresh clone would have run npm ci)
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
  expect(existsSync(join(clone, 'dist'))).toBe(false);
  const packed = await execa('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: clone,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, info!.filename);
  listing = info!.files.map((f) => f.path);
  mkdirSync(prefix);
  await execa(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      tarball,
      '--prefer-offline',
      '--omit=optional',
      '--no-audit',
      '--no-fund',
    ],
    {
      cwd: work,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    },
  );
}, 300_000);

describe('npm pack, then npm install -g of the tarball', () => {
  it('the tarball holds the bundled CLI, the completions and the man pages (prepack built dist/)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(listing).toEqual(
      expect.arrayContaining([
        pkg.bin.svc!.replace(/^\.\//, ''),
        'dist/bundle/cli.cjs',
        'dist/bundle/help.cjs',
        'dist/bundle/build-id',
        'completions/svc.bash',
        'man/svc.1',
        'man/svc-chat.1',
        'package.json',
        // the echo canceller (committed: no emscripten at install) and speexdsp's licence beside it
        'assets/speexdsp/aec.wasm',
        'assets/speexdsp/COPYING',
      ]),
    );
    // a chunk for every command, the emulator and formats packages bundled, and only the bundle of dist/: the
    // launcher runs it (the ES modules it was built from are for development)
    expect(listing.filter((f) => f.startsWith('dist/bundle/commands/')).length).toBeGreaterThan(100);
    expect(listing.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/bundle/'))).toEqual([]);
    expect(listing.filter((f) => /^dist\/bundle\/emulator\/http\/server-[\w-]+\.cjs$/.test(f))).toHaveLength(1);
    expect(listing.some((f) => f.startsWith('node_modules/') || f.startsWith('packages/'))).toBe(false);
    expect(listing.some((f) => f.startsWith('src/') || f.startsWith('test/'))).toBe(false);
  });

  // issue 41: every package the bundle can hold is in it; the install has only what it cannot hold (64 MB in 161
  // packages before, ~13 MB in 3 after: bench/install-size.mjs)
  it('installs only the dependencies the bundle leaves outside, and what an optional one brings', () => {
    const manifest = (dir: string) =>
      JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
        optionalDependencies?: Record<string, string>;
      };
    const pkg = manifest(ROOT);
    const modules = join(prefix, 'lib', 'node_modules', 'svc-cli', 'node_modules');
    const installed = readdirSync(modules)
      .filter((n) => !n.startsWith('.'))
      .flatMap((n) => (n.startsWith('@') ? readdirSync(join(modules, n)).map((m) => `${n}/${m}`) : [n]));
    // an optional dependency (speaker, when npm installs it) brings its own
    const allowed = new Set(Object.keys(pkg.dependencies ?? {}));
    const brought = (name: string): void => {
      if (!installed.includes(name)) return;
      for (const dep of Object.keys(manifest(join(modules, name)).dependencies ?? {}))
        if (!allowed.has(dep)) {
          allowed.add(dep);
          brought(dep);
        }
    };
    for (const optional of Object.keys(pkg.optionalDependencies ?? {})) {
      allowed.add(optional);
      brought(optional);
    }
    expect(installed.filter((n) => !allowed.has(n))).toEqual([]);
    expect(installed).toEqual(expect.arrayContaining(Object.keys(pkg.dependencies ?? {})));
  });

  it('svc --version', async () => {
    const r = await svcInstalled(prefix, ['--version']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('svc --emulator chat hi', async () => {
    const r = await svcInstalled(prefix, ['--emulator', 'chat', 'hi'], { key: null });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('"hi"');
  });

  // the MCP SDK is bundled with the packages it requires (ajv, zod …): none of them is in the install
  it('svc --emulator mcp serve answers initialize, tools/list and a tool call', async () => {
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pack', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_models', arguments: {} } },
    ];
    const input = messages.map((m) => `${JSON.stringify(m)}\n`).join('');
    const r = await svcInstalled(prefix, ['--emulator', 'mcp', 'serve'], { key: null, input });
    expect(r.exitCode, r.stderr).toBe(0);
    const replies = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(replies.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(replies[1].result.tools.length).toBeGreaterThan(5);
    expect(replies[2].result.content[0].text).toContain('svc-4');
  });

  it('svc completion bash', async () => {
    const r = await svcInstalled(prefix, ['completion', 'bash']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('complete -F _svc svc');
    expect(readdirSync(join(prefix, 'lib', 'node_modules', 'svc-cli', 'man'))).toContain('svc-chat.1');
  });

  it('the echo canceller is installed where the bundle looks for it (up from dist/bundle/ to assets/)', () => {
    const installed = join(prefix, 'lib', 'node_modules', 'svc-cli');
    const wasm = readFileSync(join(installed, 'assets', 'speexdsp', 'aec.wasm'));
    expect(wasm.equals(readFileSync(join(ROOT, 'assets', 'speexdsp', 'aec.wasm')))).toBe(true);
    expect(WebAssembly.validate(wasm)).toBe(true);
    expect(readdirSync(join(installed, 'dist', 'bundle'), { recursive: true }).join('\n')).toMatch(
      /echo-canceller[-\w]*\.cjs/,
    );
  });
});
