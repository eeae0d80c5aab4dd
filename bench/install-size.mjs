// The install footprint (issue 41): the package as users get it, packed from a copy of the working tree (prepack
// builds it, as in test/repo/pack-install.test.ts) and installed with npm into an empty folder (optional
// dependencies left out: speaker is built from source where ALSA's headers are); the folder's size on disk (du),
// the packages in it, and the tarball's size.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

const SOURCES = ['package.json', 'package-lock.json', 'tsconfig.json', 'README.md', 'src', 'packages', 'bin'];
const MORE = ['types', 'scripts', 'completions', 'man', 'assets'];

/** node_modules/<name> and node_modules/@scope/<name>, nested ones included */
function countPackages(dir) {
  let n = 0;
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) n += countPackages(join(dir, name));
    else {
      n++;
      n += countPackages(join(dir, name, 'node_modules'));
    }
  }
  return n;
}

export default async function installSize() {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-install-'));
  const clone = join(work, 'clone');
  mkdirSync(clone);
  const source = (from) => !/[\\/]packages[\\/][^\\/]+[\\/](dist|node_modules)$/.test(from);
  for (const entry of [...SOURCES, ...MORE])
    if (existsSync(join(ROOT, entry)))
      cpSync(join(ROOT, entry), join(clone, entry), { recursive: true, filter: source });
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
  const env = { ...process.env, npm_config_update_notifier: 'false' };
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: clone, env, encoding: 'utf8' }),
  );
  const tarball = join(work, packed[0].filename);
  const prefix = join(work, 'installed');
  mkdirSync(prefix);
  execFileSync(
    'npm',
    ['install', '--prefix', prefix, tarball, '--prefer-offline', '--omit=optional', '--no-audit', '--no-fund'],
    { cwd: prefix, env, stdio: 'ignore' },
  );
  const kb = Number(execFileSync('du', ['-sk', prefix], { encoding: 'utf8' }).split('\t')[0]);
  const mb = (bytes) => bytes / 1e6;
  return [
    { name: 'installed: npm install of the packed tarball, du', value: mb(kb * 1024), unit: 'MB', goal: 30 },
    { name: 'installed: packages (svc-cli and its dependencies)', value: countPackages(join(prefix, 'node_modules')) },
    { name: 'packed: the tarball', value: mb(statSync(tarball).size), unit: 'MB' },
  ];
}
