// npm pack / publish of a workspace package (packages/*), run from its folder as `prepack` and `postpack`.
// prepack: a build, the repository's LICENSE beside its package.json (npm ships it from there), and each workspace
// package it names in `bundleDependencies` copied into its node_modules/ as npm would install it (package.json and
// `files`): npm bundles only a real folder there, never the workspace's symlink at the root. So svc-emulator's tarball
// holds svc-formats and installs alone. postpack removes both again, so the workspace link is what development
// resolves.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const dir = process.cwd();
const event = process.argv[2];
const manifest = (folder) => JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
const pkg = manifest(dir);
if (!dir.startsWith(join(ROOT, 'packages'))) throw new Error(`pack-package.mjs runs in a folder of packages/ (${dir})`);

const workspaces = new Map(manifest(ROOT).workspaces.map((w) => [manifest(join(ROOT, w)).name, join(ROOT, w)]));
const staged = (pkg.bundleDependencies ?? []).map((name) => {
  const from = workspaces.get(name);
  if (!from) throw new Error(`${pkg.name} bundles ${name}, which is no workspace package of this repository`);
  return { from, to: join(dir, 'node_modules', name) };
});

for (const { to } of staged) rmSync(to, { recursive: true, force: true });
rmSync(join(dir, 'LICENSE'), { force: true });
const modules = join(dir, 'node_modules');
if (existsSync(modules) && readdirSync(modules).length === 0) rmSync(modules, { recursive: true });
if (event === 'prepack') {
  // every package's dist/ from its src/ now, so no tarball ships a stale module (the bundle is the CLI's, not needed)
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  cpSync(join(ROOT, 'LICENSE'), join(dir, 'LICENSE'));
  for (const { from, to } of staged) {
    const bundled = manifest(from);
    for (const entry of ['package.json', 'LICENSE', 'README.md', ...bundled.files])
      if (existsSync(join(from, entry))) cpSync(join(from, entry), join(to, entry), { recursive: true });
    cpSync(join(ROOT, 'LICENSE'), join(to, 'LICENSE'));
  }
} else if (event !== 'postpack') throw new Error('usage: node pack-package.mjs prepack|postpack');
