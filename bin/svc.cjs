#!/usr/bin/env node
'use strict';
// Tiny launcher, CommonJS so that `--version` never starts the ES module loader: `--version` answers without
// loading anything, the top-level help loads only the help text, everything else runs the CLI.
// The CLI is the bundle dist/bundle/*.cjs (scripts/bundle.mjs) compiled with V8's code cache (below); without a
// fresh bundle (after a bare `tsc`) or with SVC_NO_BUNDLE=1 it is the ES modules in dist/.
const argv = process.argv.slice(2);
const only = argv.length === 1 ? argv[0] : undefined;
if (only === '--version' || only === '-V') {
  process.stdout.write(require('../package.json').version + '\n');
} else if (only === '--help' || only === '-h' || argv.length === 0) {
  load('help').then(({ printTopLevelHelp }) => {
    process.exitCode = printTopLevelHelp(argv.length === 0);
  });
} else if (argv[0] === '__complete') {
  // shell completion's dynamic values (runs on every TAB: no commander, no command tree)
  import('../dist/commands/completion/dynamic.js').then(({ main }) => main(argv.slice(1)));
} else {
  load('cli').then(({ main }) => main(argv));
}

/** The named entry of the bundle when it is fresh, else the ES module in dist/. */
function load(name) {
  const { join } = require('node:path');
  const { statSync } = require('node:fs');
  const dist = join(__dirname, '..', 'dist');
  const bundled = join(dist, 'bundle', `${name}.cjs`);
  if (!process.env.SVC_NO_BUNDLE) {
    try {
      if (statSync(bundled).mtimeMs >= statSync(join(dist, `${name}.js`)).mtimeMs) {
        // the bundle's import() of packages (scripts/bundle.mjs): resolved from here, the same package root
        globalThis[Symbol.for('svc.import')] = (specifier) => import(specifier);
        if (!process.env.SVC_NO_COMPILE_CACHE) useCodeCache(join(dist, 'bundle'));
        return Promise.resolve(require(bundled));
      }
    } catch {
      // no bundle: the ES modules below
    }
  }
  return import(`../dist/${name}.js`);
}

/**
 * Compile the files of the bundle with V8's code cache: the first run of a file stores what V8 compiled (after the
 * command ran, so the functions it used are included) and later runs skip parsing and compiling. Node ≥ 22.1 does
 * this itself (module.enableCompileCache); on Node 20 it is vm.Script's cachedData. One cache file per bundle file,
 * keyed by its size and mtime (V8 checks its own version, flags and the source length and rejects a mismatch, in
 * which case the file is compiled as usual and the cache written again). Cache dir: $SVC_CACHE_DIR, else
 * $XDG_CACHE_HOME/svc, else ~/.cache/svc; a cache that cannot be read or written only costs the time it saves.
 */
function useCodeCache(bundleDir) {
  const Module = require('node:module');
  const { join, relative, dirname } = require('node:path');
  const env = process.env;
  const root = env.SVC_CACHE_DIR || join(env.XDG_CACHE_HOME || join(env.HOME || require('node:os').homedir(), '.cache'), 'svc');
  // one folder per Node version and per installed copy of svc (a hash of its path), pruned when written to
  let hash = 5381;
  for (let i = 0; i < bundleDir.length; i++) hash = ((hash * 33) ^ bundleDir.charCodeAt(i)) >>> 0;
  const dir = join(root, `v8-${process.version}-${process.arch}`, hash.toString(36));
  if (typeof Module.enableCompileCache === 'function') {
    Module.enableCompileCache(dir);
    return;
  }
  // V8 rejects a cache made under other flags. svc sets two at run time (core/http.ts before undici compiles its
  // WebAssembly, core/download.ts to collect streamed chunks early): both are set here, before anything is
  // compiled, so that the caches written at exit match the next run whatever it does.
  require('node:v8').setFlagsFromString('--liftoff-only --expose-gc');
  const fs = require('node:fs');
  const vm = require('node:vm');
  const prefix = bundleDir + require('node:path').sep;
  const toWrite = [];
  const compile = Module.prototype._compile;
  Module.prototype._compile = function compileWithCache(content, filename) {
    if (!filename.startsWith(prefix)) return compile.call(this, content, filename);
    let cacheFile;
    let cachedData;
    try {
      const st = fs.statSync(filename);
      cacheFile = join(dir, `${relative(bundleDir, filename).replace(/[\\/]/g, '~')}.${st.size}.${Math.floor(st.mtimeMs)}.bin`);
      cachedData = fs.readFileSync(cacheFile);
    } catch {
      // not cached yet
    }
    const script = new vm.Script(Module.wrap(content), { filename, cachedData });
    if (cacheFile && (!cachedData || script.cachedDataRejected)) toWrite.push({ script, cacheFile });
    const fn = script.runInThisContext({ displayErrors: true });
    const mod = this;
    const req = (id) => mod.require(id);
    req.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
    req.cache = Module._cache;
    req.main = require.main;
    return fn.call(mod.exports, mod.exports, req, mod, filename, dirname(filename));
  };
  process.once('exit', () => {
    if (toWrite.length === 0) return;
    try {
      fs.mkdirSync(dir, { recursive: true });
      for (const { script, cacheFile } of toWrite) {
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, script.createCachedData());
        fs.renameSync(tmp, cacheFile);
      }
      pruneCache(fs, dir, bundleDir);
    } catch {
      // read-only or full: run uncached next time
    }
  });
}

/** Remove the caches of bundle files that are gone or changed (a rebuild or an upgrade). */
function pruneCache(fs, dir, bundleDir) {
  const { join } = require('node:path');
  for (const name of fs.readdirSync(dir)) {
    const m = /^(.+)\.(\d+)\.(\d+)\.bin$/.exec(name);
    if (!m) continue; // another process's temp file, being written
    let stale = true;
    try {
      const st = fs.statSync(join(bundleDir, m[1].replace(/~/g, '/')));
      stale = st.size !== Number(m[2]) || Math.floor(st.mtimeMs) !== Number(m[3]);
    } catch {
      // the bundle file is gone
    }
    if (stale) fs.rmSync(join(dir, name), { force: true });
  }
}
