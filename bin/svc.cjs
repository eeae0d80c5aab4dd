#!/usr/bin/env node
'use strict';
// Tiny launcher, CommonJS so that `--version` never starts the ES module loader: `--version` answers without
// loading anything, help into a pipe prints the page the build rendered, everything else runs the CLI.
// The CLI is the bundle dist/bundle/*.cjs (scripts/bundle.mjs) compiled with V8's code cache (below); without a
// fresh bundle (after a bare `tsc`) or with SVC_NO_BUNDLE=1 it is the ES modules in dist/.
const argv = process.argv.slice(2);
const only = argv.length === 1 ? argv[0] : undefined;
/** Node 20's compile of a chunk of the bundle with its code cache, from its file (set by useCodeCache) */
let compileChunk;
if (only === '--version' || only === '-V') {
  // a write that fails (a full disk, /dev/full) is reported by the CLI, whose one stdout writer says why (exit 1)
  if (!writeStdout(Buffer.from(require('../package.json').version + '\n'))) runCli();
} else if (only === '--help' || only === '-h' || argv.length === 0) {
  // into a pipe or a file the page the build rendered (~4 ms less: no code cache, no chunk); on a terminal help.cjs
  if (!printPage(argv.length === 0 ? '_overview' : '_options', false))
    load('help')
      .then(({ printTopLevelHelp }) => {
        process.exitCode = printTopLevelHelp(argv.length === 0);
      })
      .catch(runCli);
} else if (argv[0] === '__complete') {
  // shell completion's dynamic values (runs on every TAB: no commander, no command tree)
  import('../dist/commands/completion/dynamic.js').then(({ main }) => main(argv.slice(1)));
} else if (
  !printHelpPage(argv[0] === 'help' && argv[1] !== '--help' && argv[1] !== '-h' ? [...argv.slice(1), '--help'] : argv)
) {
  // (`svc help files list` is `svc files list --help`, `svc help --help` the help command's own; a topic has no page)
  runCli();
}

function runCli() {
  emptyStdinFromNullDevice();
  load('cli').then(({ main }) => main(argv));
}

/**
 * Bytes to stdout with writeSync (no stream to make): true once written, or when the reader closed the pipe (not an
 * error, as in the CLI); false when the write failed otherwise (a full disk, an I/O error): the CLI then runs, and
 * its stdout writer reports the failure with its reason and exit 1.
 */
function writeStdout(bytes) {
  const fs = require('node:fs');
  let written = 0;
  try {
    while (written < bytes.length) written += fs.writeSync(1, bytes, written);
  } catch (err) {
    if (err.code === 'EAGAIN')
      process.stdout.write(bytes.subarray(written)); // a non-blocking pipe: the stream waits
    else if (err.code !== 'EPIPE') return false;
  }
  return true;
}

/**
 * `svc <command...> --help` without loading the CLI (~10 ms less for a command with many flags), from what the build
 * rendered (scripts/help-pages.mjs): into a pipe, a file or /dev/null the page, the same bytes commander prints
 * there; on a terminal the page's layout, laid out at the terminal's width by commander's own Help class alone
 * (dist/bundle/help-layout.cjs), as commander would. With options before --help, an alias, or no page of this
 * build: the CLI.
 */
function printHelpPage(args) {
  const last = args[args.length - 1];
  if (args.length < 2 || (last !== '--help' && last !== '-h')) return false;
  const words = args.slice(0, -1);
  return words.every((w) => /^[a-z0-9][a-z0-9-]*$/.test(w)) && printPage(words.join('/'), true);
}

/**
 * A page of dist/bundle/help/ (its name without the extension) when the bundle is fresh: into a pipe, a file or
 * /dev/null its text; on a terminal its layout laid out at the terminal's width, or false for a page without one.
 * False too when there is no such page or it cannot be written (a full disk: the CLI's to report).
 */
function printPage(name, hasLayout) {
  if (process.env.SVC_NO_BUNDLE) return false;
  const fs = require('node:fs');
  const bundle = `${__dirname}/../dist/bundle`;
  let page;
  try {
    // a page of this build only (the bundle is fresh, as load() checks)
    if (!bundleIsFresh(fs, `${bundle}/cli.cjs`, `${__dirname}/../dist/cli.js`)) return false;
    const file = `${bundle}/help/${name}`;
    // a character device is a terminal unless it is the null device
    const out = fs.fstatSync(1);
    if (out.isCharacterDevice() && out.rdev !== fs.statSync('/dev/null').rdev) {
      if (!hasLayout) return false;
      const layout = JSON.parse(fs.readFileSync(`${file}.json`, 'utf8'));
      // the width as commander reads it (a tty.WriteStream: ~2 ms, the cost of this path)
      const stdout = process.stdout;
      page = Buffer.from(
        require(`${bundle}/help-layout.cjs`).formatHelpLayout(layout, stdout.isTTY ? stdout.columns : undefined),
      );
    } else page = fs.readFileSync(`${file}.txt`);
  } catch {
    return false;
  }
  return writeStdout(page);
}

/**
 * stdin from the null device (cron jobs, CI steps, `< /dev/null`): an empty stream. For a device Node makes a file
 * stream, which loads fs streams, fs/promises and readline (~3 ms of `svc chat`, which reads stdin when it is not a
 * terminal); the empty stream gives what it would (no data, then the end). Decided when stdin is first used.
 * It is marked (Symbol.for('svc.nullDevice')): ctx.readStdin() then knows it is empty without reading it, whose
 * async iterator, run cold, cost ~1.7 ms of `svc chat hi < /dev/null`.
 */
function emptyStdinFromNullDevice() {
  const made = Object.getOwnPropertyDescriptor(process, 'stdin');
  if (!made || typeof made.get !== 'function') return;
  const set = (stream) =>
    Object.defineProperty(process, 'stdin', {
      value: stream,
      configurable: true,
      enumerable: made.enumerable,
      writable: true,
    });
  Object.defineProperty(process, 'stdin', {
    configurable: true,
    enumerable: made.enumerable,
    get() {
      let stream;
      try {
        const fs = require('node:fs');
        const st = fs.fstatSync(0);
        if (st.isCharacterDevice() && st.rdev === fs.statSync('/dev/null').rdev) {
          const { Readable } = require('node:stream');
          stream = Object.assign(
            new Readable({
              read() {
                this.push(null);
              },
            }),
            { fd: 0, isTTY: false, [Symbol.for('svc.nullDevice')]: true },
          );
        }
      } catch {
        // stdin closed or not inspectable: Node's own
      }
      Object.defineProperty(process, 'stdin', made);
      stream ??= process.stdin;
      set(stream);
      return stream;
    },
  });
}

/**
 * Whether the bundle is at least as new as the ES modules it was built from. A package as installed holds the bundle
 * alone (package.json's files): an installer writes files in any order, so their times say nothing there.
 */
function bundleIsFresh(fs, bundled, module) {
  const built = fs.statSync(module, { throwIfNoEntry: false });
  return !built || fs.statSync(bundled).mtimeMs >= built.mtimeMs;
}

/** The named entry of the bundle when it is fresh, else the ES module in dist/. */
function load(name) {
  const { join } = require('node:path');
  const dist = join(__dirname, '..', 'dist');
  const bundled = join(dist, 'bundle', `${name}.cjs`);
  let fresh = false;
  try {
    fresh = !process.env.SVC_NO_BUNDLE && bundleIsFresh(require('node:fs'), bundled, join(dist, `${name}.js`));
  } catch {
    // no bundle: the ES modules below
  }
  if (fresh) {
    // the bundle's import() of packages (scripts/bundle.mjs): resolved from here, the same package root
    globalThis[Symbol.for('svc.import')] = (specifier) => import(specifier);
    // undici's parser, compiled ahead of the first connection (src/net/http-parser.ts)
    globalThis[Symbol.for('svc.llhttpFile')] = join(dist, 'bundle', 'net', 'llhttp_simd.wasm');
    if (!process.env.SVC_NO_COMPILE_CACHE) useCodeCache(join(dist, 'bundle'));
    // its path is known: no search (stat calls, realpath, the package scope) as for any chunk. A bundle that throws
    // as it loads is a broken build: said (Node prints the error, exit 1), not hidden by the slower ES modules in
    // dist/, which an installed package does not even hold
    return new Promise((resolve) =>
      resolve(requireChunk(module, `../dist/bundle/${name}.cjs`, require('node:path').sep)),
    );
  }
  return import(`../dist/${name}.js`);
}

/**
 * Compile the files of the bundle with V8's code cache: the first run of a file stores what V8 compiled (after the
 * command ran, so the functions it used are included) and later runs skip parsing and compiling. Node >= 22.1 does
 * this itself (module.enableCompileCache); on Node 20 it is vm.Script's cachedData. One cache file per bundle file,
 * in a folder per build (dist/bundle/build-id, a hash of the bundle written by scripts/bundle.mjs: no stat of each
 * file); V8 also checks its own version, its flags and the source length, and rejects a mismatch, in which case the
 * file is compiled as usual and the cache written again. Cache dir: $SVC_CACHE_DIR, else $XDG_CACHE_HOME/svc, else
 * ~/.cache/svc; a cache that cannot be read or written only costs the time it saves.
 * Path work is plain string work here: node:path's functions, run cold for each file, cost ~2 ms per command.
 */
function useCodeCache(bundleDir) {
  // the CommonJS loader's Module class; node:module (the same class, with the loader's public API added, and the
  // modules that API needs: ~0.2 ms) only on Node >= 22.1, for enableCompileCache
  const Module = Number(process.versions.node.split('.')[0]) >= 22 ? require('node:module') : module.constructor;
  const fs = require('node:fs');
  const sep = require('node:path').sep;
  const env = process.env;
  const home = () => env.HOME || require('node:os').homedir();
  // the rule of cacheDir() in src/core/paths.ts (on Windows %LOCALAPPDATA%\svc\cache)
  const windowsCache = () => `${env.LOCALAPPDATA || `${env.USERPROFILE || home()}\\AppData\\Local`}\\svc\\cache`;
  // a leading ~ is the home, as expandHome() has it
  const tilde = (p) => (p === '~' || /^~[\\/]/.test(p) ? home() + sep + p.slice(2) : p);
  const root =
    (env.SVC_CACHE_DIR && tilde(env.SVC_CACHE_DIR)) ||
    (env.XDG_CACHE_HOME
      ? `${tilde(env.XDG_CACHE_HOME)}${sep}svc`
      : process.platform === 'win32'
        ? windowsCache()
        : `${home()}${sep}.cache${sep}svc`);
  // one folder per Node version and per installed copy of svc (a hash of its path), in it one per build
  const copyDir = `${root}${sep}v8-${process.version}-${process.arch}${sep}${djb2(bundleDir).toString(36)}`;
  // mkdir -p. Not fs.mkdirSync's recursive, which on Node 20-24 loops for ever, deaf to SIGTERM, where mkdir says
  // ENOENT under a folder that exists (SVC_CACHE_DIR=/proc/x), as enableCompileCache's does: here a second ENOENT
  // throws, and the run goes without its cache
  const makeDir = (d) => {
    try {
      fs.mkdirSync(d);
    } catch (err) {
      if (err.code === 'EEXIST') return;
      const parent = d.slice(0, d.lastIndexOf(sep));
      if (err.code !== 'ENOENT' || !parent) throw err;
      makeDir(parent);
      fs.mkdirSync(d);
    }
  };
  if (typeof Module.enableCompileCache === 'function') {
    try {
      makeDir(copyDir);
    } catch {
      return;
    }
    Module.enableCompileCache(copyDir);
    return;
  }
  let build;
  try {
    build = fs.readFileSync(`${bundleDir + sep}build-id`, 'latin1').trim();
  } catch {
    return; // a bundle without its id (an older build): no cache rather than a stale one
  }
  if (!/^[0-9a-z]+$/.test(build)) return;
  const dir = copyDir + sep + build;
  // V8 rejects a cache made under other V8 flags, and svc sets some at run time (net/v8-flags.ts: undici's
  // WebAssembly tier, the collector of streamed downloads). So caches are kept per set of flags: net/v8-flags.ts
  // calls the setter below, which first saves what was compiled under the flags so far, then changes them.
  const vm = require('node:vm');
  const prefix = bundleDir + sep;
  let flags = '';
  let pending = [];
  // A chunk's cache holds what the run that made it compiled: made by `models list`, cli-core's and request's lacked
  // what chat calls there, which every chat then compiled (~0.7-1.3 ms of CPU). So a run that misses a cache (a
  // command's first run) saves every chunk it loaded: each cache grows to what the commands run so far use
  let loaded = [];
  let missed = false;
  // what was compiled under earlier flags, its cache made at exit under those flags set back: made when the flags
  // changed, it lacked every function the run called afterwards (the reply, the output, the call log), which each
  // later run then compiled again (~80 functions of `svc chat --no-stream hi`, ~6 M instructions)
  const earlier = [];
  const cacheName = (filename) => {
    const tag = flags ? `.f${djb2(flags).toString(36)}` : '';
    return `${dir}${sep}${filename.slice(prefix.length).split(sep).join('~')}${tag}.bin`;
  };
  const save = () => {
    if (pending.length === 0) return;
    const list = pending;
    pending = [];
    let tmp;
    try {
      makeDir(dir);
      for (const { script, cacheFile } of list) {
        tmp = `${cacheFile}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, script.createCachedData());
        fs.renameSync(tmp, cacheFile);
        tmp = undefined;
      }
      // the caches of other builds of this copy (before a rebuild or an upgrade) are dead
      for (const name of fs.readdirSync(copyDir))
        if (name !== build) fs.rmSync(copyDir + sep + name, { recursive: true, force: true });
    } catch {
      // read-only or full: run uncached next time (and leave no half-written cache file)
      try {
        if (tmp) fs.rmSync(tmp, { force: true });
      } catch {
        // no folder to have left it in
      }
    }
  };
  globalThis[Symbol.for('svc.setV8Flags')] = (more) => {
    const next = [...new Set([...flags.split(' '), ...more.split(' ')].filter(Boolean))].sort().join(' ');
    if (next === flags) return;
    const added = next.split(' ').filter((f) => !flags.split(' ').includes(f));
    if (added.every((f) => FLAGS_SET_BACK[f]))
      earlier.push({ list: pending, back: added.map((f) => FLAGS_SET_BACK[f]) });
    else save();
    pending = [];
    loaded = [];
    missed = false;
    require('node:v8').setFlagsFromString(more);
    flags = next;
  };
  // how to set each flag svc sets back to V8's default, with what it implied (V8 hashes the flags that differ from
  // their defaults into every code cache); a flag not named here has the caches made before it when it is set
  const FLAGS_SET_BACK = {
    '--liftoff-only': '--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering',
    '--no-wasm-lazy-compilation': '--wasm-lazy-compilation',
    '--expose-gc': '--no-expose-gc',
  };
  // Each Script keeps its source alive. Used as a property key, a string is internalized: V8 copies it into the old
  // generation (a long string's hash is its length: no scan), so the sources do not fill the young one, whose
  // survivors of `svc chat`'s first scavenge they were (~150 KB: a second scavenge ran while the reply was awaited)
  const oldGeneration = Object.create(null);
  const run = (mod, source, filename) => {
    const cacheFile = cacheName(filename);
    let cachedData;
    try {
      cachedData = fs.readFileSync(cacheFile);
    } catch {
      // not cached yet
    }
    void (source in oldGeneration);
    const script = new vm.Script(source, { filename, cachedData });
    if (!cachedData || script.cachedDataRejected) {
      if (!missed) pending.push(...loaded);
      missed = true;
      pending.push({ script, cacheFile });
    } else (missed ? pending : loaded).push({ script, cacheFile });
    const fn = script.runInThisContext({ displayErrors: true });
    const req = (id) => (id.startsWith('./') || id.startsWith('../') ? requireChunk(mod, id, sep) : mod.require(id));
    req.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
    req.cache = Module._cache;
    req.main = require.main;
    return fn.call(mod.exports, mod.exports, req, mod, filename, filename.slice(0, filename.lastIndexOf(sep)));
  };
  const compile = Module.prototype._compile;
  Module.prototype._compile = function compileWithCache(content, filename) {
    if (!filename.startsWith(prefix)) return compile.call(this, content, filename);
    return run(this, Module.wrap(content), filename);
  };
  // a chunk's file is written inside its wrapper (scripts/bundle.mjs): read as one flat string, no copy by V8
  compileChunk = (mod, file) => run(mod, fs.readFileSync(file, 'utf8'), file);
  process.once('exit', () => {
    save();
    // (the run is over: nothing compiles WebAssembly or collects under those flags any more)
    if (!earlier.some((step) => step.list.length > 0)) return;
    for (let step = earlier.pop(); step; step = earlier.pop()) {
      require('node:v8').setFlagsFromString(step.back.join(' '));
      pending = step.list;
      save();
    }
  });
}

/**
 * A chunk of the bundle requiring another (`./x.cjs`, `../../shared/x.cjs`): the path is known, so Node's search
 * (stat calls, realpath, the package scope) is skipped; the module lands in require.cache like any other.
 */
function requireChunk(parent, id, sep) {
  const Module = module.constructor;
  let dir = parent.filename.slice(0, parent.filename.lastIndexOf(sep));
  let rest = id;
  for (; rest.startsWith('../'); rest = rest.slice(3)) dir = dir.slice(0, dir.lastIndexOf(sep));
  if (rest.startsWith('./')) rest = rest.slice(2);
  const file = dir + sep + (sep === '/' ? rest : rest.split('/').join(sep));
  const cached = Module._cache[file];
  if (cached) return cached.exports;
  if (!file.endsWith('.cjs')) return parent.require(id);
  const child = new Module(file, parent);
  child.filename = file;
  child.paths = parent.paths;
  Module._cache[file] = child;
  let loaded = false;
  const exports = child.exports;
  try {
    if (compileChunk) compileChunk(child, file);
    else child._compile(require('node:fs').readFileSync(file, 'utf8'), file);
    child.loaded = loaded = true;
  } finally {
    if (!loaded) delete Module._cache[file];
  }
  // A chunk required while it loads (cli-core requires cli.cjs back) gets, from Node's loader (>= 22: chunks then
  // require each other through it), exports whose prototype warns on any missing property, which Node's own load
  // takes off when it ends: this is that load, so take it off here ("Accessing non-existent property 'then' ...")
  if (child.exports === exports && Object.getPrototypeOf(exports) !== Object.prototype)
    Object.setPrototypeOf(exports, Object.prototype);
  return child.exports;
}

function djb2(text) {
  let hash = 5381;
  for (let i = 0; i < text.length; i++) hash = ((hash * 33) ^ text.charCodeAt(i)) >>> 0;
  return hash;
}
