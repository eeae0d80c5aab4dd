// `npm run build:exe`: svc and svc-emulator as single executables (Node's SEA) for the machine it runs on, in
// dist/exe/. Reads what `npm run build` made (dist/ and the packages' dist/), bundles each program into CommonJS
// chunks with every dependency inside (an executable has no node_modules: require() there loads Node's own modules
// only), makes the SEA blob with the pinned Node (package.json config.executableNode) and injects it into a copy of
// that Node with postject. The chunks are the blob's assets, run by its main script, scripts/exe/loader.cjs (each
// compiled on first use, with a code cache); what the code reads by path is an asset too (svc-formats/assets:
// ASSETS). The Node comes from, in order: $SVC_EXE_NODE (a binary of the pinned version), the
// Node running this script when it is that version, or the npm registry's node-<os>-<arch> package of that
// version, installed once into $SVC_NODE_CACHE or ~/.cache/svc-dev/node/<version> (as scripts/test-node.mjs does).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import { lazyAssert, lazyChildProcess, noHttp2, undiciWithoutHttp } from './bundle-plugins.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'exe');
const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const emulatorPkg = JSON.parse(readFileSync(join(ROOT, 'packages', 'emulator', 'package.json'), 'utf8'));
const NODE_VERSION = pkg.config.executableNode;
const EXE = process.platform === 'win32' ? '.exe' : '';
/** Node's fuse for a SEA blob (its documentation's value) */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

for (const built of ['dist/cli.js', 'packages/emulator/dist/main.js', 'packages/formats/dist/assets.js'])
  if (!existsSync(join(ROOT, built))) fail(`${built} is missing: run \`npm run build\` first`);
const { ASSETS } = await import(join(ROOT, 'packages', 'formats', 'dist', 'assets.js'));
/** where each asset is read from at build time */
const ASSET_FILES = {
  [ASSETS.aec]: join(ROOT, 'assets', 'speexdsp', 'aec.wasm'),
  [ASSETS.jq]: join(dirname(require.resolve('jq-web')), 'jq.wasm'),
  [ASSETS.openapi]: join(ROOT, 'packages', 'emulator', 'spec', 'openapi.json'),
};
const OPENAPI_MODULE = '\0svc-exe:openapi-from-asset';
/** bin/svc.cjs's table of how to set each V8 flag svc sets back (the loader keeps the code caches as it does) */
const FLAGS_SET_BACK = (() => {
  const found = /\bconst FLAGS_SET_BACK = (\{[^}]*\});/.exec(readFileSync(join(ROOT, 'bin', 'svc.cjs'), 'utf8'));
  if (!found) fail('bin/svc.cjs no longer has its FLAGS_SET_BACK table: update scripts/build-exe.mjs');
  return new Function(`return ${found[1]}`)();
})();

function fail(message) {
  console.error(`build:exe: ${message}`);
  process.exit(1);
}

/** A Node binary of the pinned version for this platform. */
function pinnedNode() {
  const versionOf = (bin) => execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
  const given = process.env.SVC_EXE_NODE;
  if (given) {
    if (versionOf(given) !== `v${NODE_VERSION}`)
      fail(`SVC_EXE_NODE (${given}) is ${versionOf(given)}; the executables pin Node ${NODE_VERSION}`);
    return given;
  }
  if (process.version === `v${NODE_VERSION}`) return process.execPath;
  const name = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
  const cache = join(process.env.SVC_NODE_CACHE || join(homedir(), '.cache', 'svc-dev', 'node'), NODE_VERSION);
  const bin = join(cache, 'node_modules', name, 'bin', `node${EXE}`);
  if (!existsSync(bin)) {
    console.error(`build:exe: installing Node ${NODE_VERSION} (${name}) into ${cache}`);
    mkdirSync(cache, { recursive: true });
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    try {
      execFileSync(
        npm,
        ['install', '--prefix', cache, '--no-save', '--no-audit', '--no-fund', `${name}@${NODE_VERSION}`],
        {
          stdio: ['ignore', 'ignore', 'inherit'],
          shell: process.platform === 'win32',
        },
      );
    } catch {
      fail(`no ${name}@${NODE_VERSION} from npm: run this script with Node ${NODE_VERSION} or set SVC_EXE_NODE`);
    }
  }
  return bin;
}

/**
 * The executable's bundle differs from dist/bundle (scripts/bundle.mjs) in having every package in it (no
 * node_modules beside it) and no files beside it:
 * - `createRequire(import.meta.url)('x')` (lazy CommonJS loads in the ES modules of dist/) becomes `require('x')`,
 *   which the bundler follows;
 * - jq-web reads its jq.wasm beside its script: it is handed the asset's bytes instead; the API document is an
 *   asset, not a module of the bundle;
 * - an `import()` left in the output (Node's modules; the optional native `speaker`, which an executable cannot
 *   load and never asks for: it plays through a program, src/audio/backend.ts) would need a module loader that a
 *   chunk compiled by the loader (vm.Script, with a code cache) does not have: Node's modules are require()d,
 *   speaker refused.
 */
const exePlugins = [
  // as dist/bundle's: no node:assert, node:http nor HTTP/2 client (tls, crypto) loaded by undici, no child_process
  // by commander, which a request would load after svc sets V8 flags (compiled without Node's code cache then)
  noHttp2,
  lazyAssert,
  undiciWithoutHttp,
  lazyChildProcess,
  {
    // the API document is an asset (packages/emulator/src/core/api-document.ts reads it there): not in the script
    name: 'svc-exe-openapi-asset',
    resolveId: (source) => (/[\\/]spec[\\/]openapi\.json$/.test(source) ? OPENAPI_MODULE : null),
    load: (id) => (id === OPENAPI_MODULE ? 'export default null;' : null),
  },
  {
    name: 'svc-exe-require',
    transform(code) {
      if (!code.includes('createRequire(import.meta.url)')) return null;
      let out = code.replace(/\bcreateRequire\(import\.meta\.url\)\((?=['"])/g, 'require(');
      // a named require function (`const requireCjs = createRequire(import.meta.url);`): its calls
      for (const [, name] of out.matchAll(/\bconst (\w+) = createRequire\(import\.meta\.url\);/g))
        out = out.replace(new RegExp(`\\b${name}\\((?=['"])`, 'g'), 'require(');
      return out === code ? null : out;
    },
  },
  {
    name: 'svc-exe-jq-wasm',
    transform(code, id) {
      if (!/[\\/]jq-web[\\/]jq\.js$/.test(id)) return null;
      const own = "var wasmBinary = Module['wasmBinary'];";
      if (!code.includes(own)) this.error("jq-web's jq.js no longer reads Module['wasmBinary']: update build-exe.mjs");
      return code.replace(
        own,
        `var wasmBinary = require('svc-formats/assets').readAsset(${JSON.stringify(ASSETS.jq)}, () => '');`,
      );
    },
  },
  {
    name: 'svc-exe-no-import',
    renderChunk(code) {
      const out = code.replace(/\bimport\(\s*["']([^"']+)["']\s*\)/g, (_, spec) =>
        /^node:|^[a-z_]+$/.test(spec) && spec !== 'speaker'
          ? `Promise.resolve().then(() => { const m = require(${JSON.stringify(spec)}); return Object.create(m, { ` +
            `default: { value: m, enumerable: true } }); })`
          : `Promise.reject(new Error(${JSON.stringify(`${spec} is not part of the single executable`)}))`,
      );
      // a module named at run time (a worker shim of a dependency that svc never starts as a module worker)
      return out.replace(
        /\bimport\((?!\s*["'])/g,
        '((_) => Promise.reject(new Error("a module named at run time cannot be loaded in the single executable")))(',
      );
    },
  },
];

/**
 * Bundle one program into chunks (dist/exe/<name>-bundle/: the entry <name>.cjs and a chunk per command and per
 * shared part, as rolldown splits at each import()), and its main script, scripts/exe/loader.cjs with the entry,
 * the program's name and the build's id written in. Returns the main script and the chunks as the blob's assets.
 */
async function bundle(name, entry, define) {
  const dir = join(OUT, `${name}-bundle`);
  await build({
    input: { [name]: entry },
    platform: 'node',
    external: (id) => id.startsWith('node:') || id === 'speaker' || require('node:module').isBuiltin(id),
    plugins: exePlugins,
    transform: { define: { __SVC_EXECUTABLE__: 'true', ...define } },
    logLevel: 'warn',
    // a warning here is a bundle that may fail at run time: the build fails (as scripts/bundle.mjs's)
    // (but a module imported both ways, which stays in the chunk of its static import: only less split)
    onLog(level, log, handler) {
      if (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT') return;
      if (level === 'warn') handler('error', { ...log, message: `${log.code ?? 'warning'}: ${log.message}` });
      else handler(level, log);
    },
    output: {
      dir,
      format: 'cjs',
      entryFileNames: '[name].cjs',
      chunkFileNames: '[name]-[hash].cjs',
      comments: false,
      minify: 'dce-only',
    },
  });
  const chunks = readdirSync(dir, { recursive: true })
    .map((f) => String(f).split('\\').join('/'))
    .filter((f) => f.endsWith('.cjs'))
    .sort();
  const hash = createHash('sha256');
  for (const f of chunks)
    hash
      .update(`${f}\0`)
      .update(readFileSync(join(dir, f)))
      .update('\0');
  const constants = {
    EXE_ENTRY: `${name}.cjs`,
    EXE_NAME: name,
    EXE_BUILD_ID: hash.digest('hex').slice(0, 16),
    EXE_FLAGS_SET_BACK: FLAGS_SET_BACK,
  };
  let main = readFileSync(join(ROOT, 'scripts', 'exe', 'loader.cjs'), 'utf8');
  for (const [key, value] of Object.entries(constants)) main = main.replace(key, JSON.stringify(value));
  const script = join(OUT, `${name}-main.cjs`);
  writeFileSync(script, main);
  return { script, chunks: Object.fromEntries(chunks.map((f) => [`bundle/${f}`, join(dir, f)])) };
}

/** The blob of one program, injected into a copy of the pinned Node. */
async function executable(node, name, script, assets) {
  const blob = join(OUT, `${name}.blob`);
  const config = join(OUT, `${name}.sea-config.json`);
  writeFileSync(
    config,
    JSON.stringify({ main: script, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, assets }),
  );
  execFileSync(node, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'inherit'] });
  const target = join(OUT, `${name}${EXE}`);
  rmSync(target, { force: true });
  copyFileSync(node, target);
  chmodSync(target, 0o755);
  // macOS: the copy's signature no longer matches once the blob is in (re-signed below, ad hoc)
  if (process.platform === 'darwin') execFileSync('codesign', ['--remove-signature', target]);
  const { inject } = require('postject');
  await inject(target, 'NODE_SEA_BLOB', readFileSync(blob), {
    sentinelFuse: SEA_FUSE,
    ...(process.platform === 'darwin' ? { machoSegmentName: 'NODE_SEA' } : {}),
  });
  if (process.platform === 'darwin') execFileSync('codesign', ['--sign', '-', target]);
  rmSync(blob);
  rmSync(config);
  return target;
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const node = pinnedNode();
const version = JSON.stringify(pkg.version);
const programs = [
  {
    name: 'svc',
    ...(await bundle('svc', join(ROOT, 'scripts', 'exe', 'svc.mjs'), {
      __SVC_BUNDLE__: 'true',
      __SVC_VERSION__: version,
    })),
    assets: ASSET_FILES,
  },
  {
    name: 'svc-emulator',
    ...(await bundle('svc-emulator', join(ROOT, 'scripts', 'exe', 'svc-emulator.mjs'), {
      __SVC_EMULATOR_VERSION__: JSON.stringify(emulatorPkg.version),
    })),
    assets: { [ASSETS.openapi]: ASSET_FILES[ASSETS.openapi] },
  },
];
for (const p of programs) {
  const target = await executable(node, p.name, p.script, { ...p.assets, ...p.chunks });
  const mb = (statSync(target).size / 2 ** 20).toFixed(1);
  const chunks = Object.keys(p.chunks).length;
  console.error(
    `build:exe: ${target} (${mb} MiB, ${chunks} chunks; Node ${NODE_VERSION}, ${process.platform}-${process.arch})`,
  );
}
