// The packages' own dependency lists are the rule of who may use whom: every import of a package's source and tests
// is a Node built-in, a file of the same package, or a package its package.json lists (tests may also use the
// repository's tools and dependencies). svc-emulator lists svc-formats and no part of the CLI, so the emulator — the
// suite's oracle — cannot share a constant with the client; svc-formats lists neither.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
// @ts-expect-error: a script of ours, plain JavaScript
import { TARGETS } from '../../scripts/release-archive.mjs';
import { ROOT } from '../helpers/files.js';
import { readSourceGraph } from '../helpers/source-graph.js';

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  engines?: Record<string, string>;
}
const manifest = (dir: string): Manifest => JSON.parse(readFileSync(`${ROOT}/${dir}package.json`, 'utf8')) as Manifest;
const root = manifest('');
const graph = readSourceGraph(ROOT);
const PACKAGES = ['packages/formats', 'packages/emulator'];

describe('packages', () => {
  for (const dir of PACKAGES) {
    const pkg = manifest(`${dir}/`);
    it(`${pkg.name} imports only its own files and what its package.json lists`, () => {
      const listed = new Set(Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies }));
      const devTools = new Set(Object.keys({ ...root.dependencies, ...root.devDependencies }));
      const offenders: string[] = [];
      const files = graph.files.filter((f) => f.startsWith(`${dir}/`));
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const test = file.startsWith(`${dir}/test/`);
        for (const name of graph.packages.get(file) ?? []) {
          if (name !== pkg.name && !listed.has(name) && !(test && devTools.has(name)))
            offenders.push(`${file} imports ${name}`);
        }
      }
      for (const i of graph.imports) {
        if (i.from.startsWith(`${dir}/`) && !i.to.startsWith(`${dir}/`) && !i.to.startsWith('packages/'))
          offenders.push(`${i.from} reaches ${i.to}`);
        if (i.from.startsWith(`${dir}/`) && i.to.startsWith('packages/') && !i.to.startsWith(`${dir}/`)) {
          const other = manifest(`${i.to.split('/').slice(0, 2).join('/')}/`).name;
          if (!listed.has(other)) offenders.push(`${i.from} reaches ${i.to} (${other} is not a dependency)`);
        }
      }
      expect(offenders).toEqual([]);
    });
  }

  it('the emulator depends on the formats package and on nothing of the CLI', () => {
    const emulator = manifest('packages/emulator/');
    expect(Object.keys(emulator.dependencies ?? {})).toContain('svc-formats');
    expect(Object.keys(emulator.dependencies ?? {})).not.toContain(root.name);
    expect(Object.keys(manifest('packages/formats/').dependencies ?? {}).filter((d) => d.startsWith('svc-'))).toEqual(
      [],
    );
  });

  // the bundle holds both packages' code and every package they and the CLI import (scripts/bundle.mjs), so the
  // CLI's tarball needs none of them installed: they are devDependencies; its dependencies are what the bundle
  // requires from node_modules (a native module, a package loading a file beside itself, undici's whole package)
  it('the CLI builds on both packages, and depends on what its bundle leaves outside, nothing else', () => {
    const cli = manifest('') as Manifest & { workspaces?: string[] };
    expect(cli.devDependencies).toMatchObject({ 'svc-emulator': cli.version, 'svc-formats': cli.version });
    const dev = new Set(Object.keys(cli.devDependencies ?? {}));
    const theirs = PACKAGES.flatMap((dir) => Object.keys(manifest(`${dir}/`).dependencies ?? {})).filter(
      (d) => !d.startsWith('svc-'),
    );
    expect(theirs.filter((d) => !dev.has(d))).toEqual([]);
    const outside = new Set<string>();
    const bundle = join(ROOT, 'dist', 'bundle');
    for (const file of readdirSync(bundle, { recursive: true }).map(String)) {
      if (!file.endsWith('.cjs')) continue;
      // (a require in a template literal is code ajv generates, not one the bundle makes)
      const code = readFileSync(join(bundle, file), 'utf8');
      // require("x"), and createRequire(…)(`x`) or its .resolve(`x`) (a package found from the installed copy)
      const byName =
        /(?<!`)\brequire\("([^".][^"]*)"\)|createRequire\)?\((?:[^()]|\([^()]*\))*\)(?:\.resolve)?\(`([^`]+)`\)/g;
      // and NAME(`x`) where NAME holds a createRequire(…) (const requireCjs = createRequire(import.meta.url))
      const bound = [...code.matchAll(/\b(?:const|let) ([\w$]+)=\(0,[\w$]+\.createRequire\)\(/g)].map((m) => m[1]!);
      const ids = [
        ...[...code.matchAll(byName)].map((m) => (m[1] ?? m[2])!),
        ...bound.flatMap((name) =>
          [...code.matchAll(new RegExp(`\\b${name}\\(\`([^\`]+)\`\\)`, 'g'))].map((m) => m[1]!),
        ),
      ];
      for (const id of ids) {
        const name = id.startsWith('@') ? id.split('/').slice(0, 2).join('/') : id.split('/')[0]!;
        if (!isBuiltin(name)) outside.add(name);
      }
    }
    // ws's optional native helpers, which it requires in a try and does without
    for (const optional of ['bufferutil', 'utf-8-validate']) outside.delete(optional);
    expect([...outside].sort()).toEqual(Object.keys({ ...cli.dependencies, ...cli.optionalDependencies }).sort());
    expect(cli.workspaces).toEqual(PACKAGES);
  });
});

// issue 39: every package can be published as it is, and the release workflow publishes each of them
describe('ready to publish', () => {
  const all = ['', ...PACKAGES.map((dir) => `${dir}/`)];
  for (const dir of all) {
    const pkg = manifest(dir) as Manifest & Record<string, unknown>;
    it(`${pkg.name}: licence, repository, engines, files and a README`, () => {
      expect(pkg.license).toBe('MIT');
      expect(pkg.repository).toMatchObject({ type: 'git', url: expect.stringMatching(/^git\+https:\/\/.+\.git$/) });
      if (dir) expect((pkg.repository as { directory?: string }).directory).toBe(dir.slice(0, -1));
      expect(pkg.engines).toMatchObject({ node: root.engines?.node });
      expect((pkg.files as string[]).some((f) => f === 'dist' || f.startsWith('dist/'))).toBe(true);
      expect(existsSync(join(ROOT, dir, 'README.md'))).toBe(true);
      if (dir) expect(pkg.files).toEqual(expect.arrayContaining(['README.md']));
    });
  }

  it('the licence is one file, which each package gets at pack time', () => {
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    for (const dir of PACKAGES)
      expect((manifest(`${dir}/`) as { scripts?: Record<string, string> }).scripts).toMatchObject({
        prepack: 'node ../../scripts/pack-package.mjs prepack',
        postpack: 'node ../../scripts/pack-package.mjs postpack',
      });
  });

  // the emulator's tarball holds svc-formats (no registry has it), so its third-party packages are the emulator's
  it("svc-emulator bundles svc-formats and depends on what formats' code imports", () => {
    const emulator = manifest('packages/emulator/') as Manifest & { bundleDependencies?: string[] };
    expect(emulator.bundleDependencies).toEqual(['svc-formats']);
    const own = new Set(Object.keys(emulator.dependencies ?? {}));
    expect(Object.keys(manifest('packages/formats/').dependencies ?? {}).filter((d) => !own.has(d))).toEqual([]);
  });

  it('.github/workflows/release.yml publishes every package with provenance on a tag, after the suite', () => {
    const workflow = parse(readFileSync(join(ROOT, '.github/workflows/release.yml'), 'utf8')) as {
      on: { push: { tags: string[]; branches?: unknown } }; // other triggers (a manual run) may join push
      jobs: Record<string, ReleaseJob>;
    };
    expect(workflow.on.push.tags.some((t) => t.startsWith('v'))).toBe(true);
    expect(workflow.on.push.branches).toBeUndefined();
    const publishing = Object.entries(workflow.jobs).filter(([, job]) =>
      job.steps.some((s) => /\bnpm publish\b/.test(s.run ?? '')),
    );
    expect(publishing.map(([name]) => name)).toEqual(['publish-npm']);
    const [, job] = publishing[0]!;
    expect(job.needs).toBe('publish-suite');
    expect(job.if).toBe("startsWith(github.ref, 'refs/tags/v')"); // a manual run publishes nothing
    expect(workflow.jobs['publish-suite']!.steps.map((s) => s.run).filter(Boolean)).toEqual(['.ci/run']);
    expect(job.permissions).toMatchObject({ 'id-token': 'write' });
    const publish = job.steps.find((s) => /\bnpm publish\b/.test(s.run ?? ''))!;
    expect(publish.run).toContain('--provenance');
    const matrix = job.strategy!.matrix.package.map((p) => [p.name, p.dir]);
    expect(matrix.sort()).toEqual(all.map((dir) => [manifest(dir).name, dir ? dir.slice(0, -1) : '.']).sort());
  });
});

// issue 40: the executables of every platform, built on its own runner, packed by scripts/release-archive.mjs (the
// part that runs here: test/repo/release-archive.test.ts, and single-executable.test.ts on the real ones)
describe('the executables in a release', () => {
  const workflow = parse(readFileSync(join(ROOT, '.github/workflows/release.yml'), 'utf8')) as {
    jobs: Record<string, ReleaseJob & { 'runs-on': string; strategy?: { matrix: { include?: ExeTarget[] } } }>;
  };
  const build = workflow.jobs['executables-build']!;
  const steps = build.steps;
  const at = (test: (s: ReleaseJob['steps'][number]) => boolean, what: string) => {
    const i = steps.findIndex(test);
    expect(i, what).toBeGreaterThanOrEqual(0);
    return i;
  };

  it('builds each platform of release-archive.mjs on a runner of that platform (no retired image)', () => {
    const matrix = build.strategy!.matrix.include!;
    expect(matrix.map((m) => m.target).sort()).toEqual([...(TARGETS as string[])].sort());
    expect(build['runs-on']).toBe('${{ matrix.os }}');
    const os = Object.fromEntries(matrix.map((m) => [m.target, m.os]));
    expect(os['linux-x64']).toMatch(/^ubuntu-\d+\.\d+$/);
    expect(os['linux-arm64']).toMatch(/^ubuntu-\d+\.\d+-arm$/);
    expect(os['darwin-arm64']).toMatch(/^macos-(1[4-9]|2\d)$/); // Apple silicon images
    expect(os['darwin-x64']).toMatch(/^macos-\d+-intel$/); // macos-13, the last plain Intel label, is retired
    expect(os['win32-x64']).toMatch(/^windows-\d+$/);
  });

  it('builds, signs where it can, smoke-tests, packs, attests and uploads, in that order', () => {
    const built = at((s) => s.run === 'npm run build:exe', 'npm run build:exe');
    const windows = at((s) => /signtool/.test(s.run ?? ''), 'signtool');
    const mac = at((s) => /notarytool submit/.test(s.run ?? ''), 'notarytool');
    expect(steps[windows]!.if).toContain("runner.os == 'Windows'");
    expect(steps[mac]!.if).toContain("runner.os == 'macOS'");
    const smoke = at((s) => /env -i PATH=/.test(s.run ?? ''), 'the smoke test with no node on PATH');
    expect(steps[smoke]!.run).toContain('completion man chat');
    const pack = at(
      (s) =>
        /node scripts\/release-archive\.mjs pack --target "\$\{\{ matrix\.target \}\}" --out out/.test(s.run ?? ''),
      'release-archive.mjs pack',
    );
    const attest = at((s) => s.uses?.startsWith('actions/attest-build-provenance@') ?? false, 'attestation');
    const upload = at((s) => s.uses?.startsWith('actions/upload-artifact@') ?? false, 'upload');
    expect(steps[upload]!.with).toMatchObject({ path: 'out/*', 'if-no-files-found': 'error' });
    expect([built, windows, mac, smoke, pack, attest, upload]).toEqual(
      [built, windows, mac, smoke, pack, attest, upload].sort((a, b) => a - b),
    );
    expect(build.permissions).toMatchObject({ 'id-token': 'write', attestations: 'write' });
  });

  it('attaches them to a tag’s release after the suite, with one SHA256SUMS made by release-archive.mjs sums', () => {
    const release = workflow.jobs['executables-release']!;
    expect(release.needs).toEqual(expect.arrayContaining(['executables-build', 'publish-suite']));
    expect(release.if).toBe("startsWith(github.ref, 'refs/tags/v')");
    const runs = release.steps.map((s) => s.run ?? s.uses ?? '');
    const download = runs.findIndex((r) => r.startsWith('actions/download-artifact@'));
    const sums = runs.indexOf('node scripts/release-archive.mjs sums out');
    const upload = runs.findIndex((r) => /gh release upload "\$GITHUB_REF_NAME" out\/\*/.test(r));
    expect(download).toBeGreaterThan(runs.findIndex((r) => r.startsWith('actions/checkout@')));
    expect([download, sums, upload].every((i) => i >= 0)).toBe(true);
    expect(download < sums && sums < upload).toBe(true);
    expect(release.permissions).toMatchObject({ contents: 'write' });
  });
});

interface ExeTarget {
  os: string;
  target: string;
}

interface ReleaseJob {
  needs?: string | string[];
  if?: string;
  permissions?: Record<string, string>;
  strategy?: { matrix: { package: { name: string; dir: string }[] } };
  steps: { run?: string; uses?: string; if?: string; with?: Record<string, unknown> }[];
}
