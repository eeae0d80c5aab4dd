'use strict';
// The main script of a single executable (scripts/build-exe.mjs): the program's bundle is in the SEA blob as assets,
// one per chunk (bundle/<file>.cjs), and this loader runs its entry, each chunk compiled when first required, with
// V8's code cache kept in a folder as bin/svc.cjs keeps it: a command compiles only the chunks it needs, where the
// whole-program script (issue 40's first executables) made every command map 4.6 MB and its cache first.
// The build writes the constants in (EXE_ below); `require` here is the SEA's, which loads Node's modules only.
/** the entry chunk, the program's name and a hash of its chunks (the cache folder of this build) */
const ENTRY = EXE_ENTRY;
const NAME = EXE_NAME;
const BUILD_ID = EXE_BUILD_ID;
/** bin/svc.cjs's FLAGS_SET_BACK (read from it at build time): each flag svc sets, back to V8's default */
const FLAGS_SET_BACK = EXE_FLAGS_SET_BACK;

const { getAsset } = require('node:sea');
const fs = require('node:fs');
const vm = require('node:vm');
const sep = require('node:path').sep;
const SEA_REQUIRE = require;

/** chunk name → its module ({ exports, … }) */
const modules = new Map();
/** the chunks compiled with no cache (or a rejected one) under the V8 flags of now: cached at exit */
let pending = [];
/** V8 flags svc set at run time (net/v8-flags.ts), sorted */
let flags = '';
/** the chunks compiled under earlier flags, with how to set the flags back: cached at exit under those */
const earlier = [];
let cache;

/** the cache folder: cacheDir()'s rule (src/core/paths.ts, as bin/svc.cjs has it), one folder per build */
function cacheFolder() {
  const env = process.env;
  const home = () => env.HOME || require('node:os').homedir();
  const tilde = (p) => (p === '~' || /^~[\\/]/.test(p) ? home() + sep + p.slice(2) : p);
  const root =
    (env.SVC_CACHE_DIR && tilde(env.SVC_CACHE_DIR)) ||
    (env.XDG_CACHE_HOME
      ? `${tilde(env.XDG_CACHE_HOME)}${sep}svc`
      : process.platform === 'win32'
        ? `${env.LOCALAPPDATA || `${env.USERPROFILE || home()}\\AppData\\Local`}\\svc\\cache`
        : `${home()}${sep}.cache${sep}svc`);
  const copy = `${root}${sep}exe-${NAME}-${process.version}-${process.arch}`;
  return { copy, dir: copy + sep + BUILD_ID };
}

function cacheFile(name) {
  cache ??= cacheFolder();
  const tag = flags ? `.f${djb2(flags).toString(36)}` : '';
  return `${cache.dir}${sep}${name.split('/').join('~')}${tag}.bin`;
}

/** Write the caches of `list`; a folder that cannot be written costs only the time the cache would save. */
function save(list) {
  if (list.length === 0) return;
  let tmp;
  try {
    makeDir(cache.dir);
    for (const { script, file } of list) {
      tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, script.createCachedData());
      fs.renameSync(tmp, file);
      tmp = undefined;
    }
    // the caches of other builds of this program (before an upgrade) are dead
    for (const name of fs.readdirSync(cache.copy))
      if (name !== BUILD_ID) fs.rmSync(cache.copy + sep + name, { recursive: true, force: true });
  } catch {
    try {
      if (tmp) fs.rmSync(tmp, { force: true });
    } catch {
      // no folder to have left it in
    }
  }
}

/**
 * mkdir -p. Not fs.mkdirSync's recursive, which loops for ever where mkdir says ENOENT under a folder that exists
 * (/proc): here a second ENOENT throws.
 */
function makeDir(dir) {
  try {
    fs.mkdirSync(dir);
  } catch (err) {
    if (err.code === 'EEXIST') return;
    const parent = dir.slice(0, dir.lastIndexOf(sep));
    if (err.code !== 'ENOENT' || !parent) throw err;
    makeDir(parent);
    fs.mkdirSync(dir);
  }
}

/** A chunk by its name in the bundle (`shared/x-1a2b.cjs`), compiled and run once. */
function load(name) {
  const made = modules.get(name);
  if (made) return made.exports;
  const filename = `${NAME}:${name}`;
  const file = process.env.SVC_NO_COMPILE_CACHE ? undefined : cacheFile(name);
  let cachedData;
  try {
    if (file) cachedData = fs.readFileSync(file);
  } catch {
    // not cached yet
  }
  const source = getAsset(`bundle/${name}`, 'utf8');
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename,
    cachedData,
  });
  if (file && (!cachedData || script.cachedDataRejected)) pending.push({ script, file });
  const module = { exports: {}, id: filename, filename, loaded: false };
  modules.set(name, module);
  const dir = name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : '';
  const req = (id) => (id.startsWith('./') || id.startsWith('../') ? load(resolve(dir, id)) : SEA_REQUIRE(id));
  try {
    script.runInThisContext({ displayErrors: true })(module.exports, req, module, filename, dir);
  } catch (err) {
    modules.delete(name);
    throw err;
  }
  module.loaded = true;
  return module.exports;
}

/** `../x.cjs` from the chunk folder `commands/models`: `commands/x.cjs` */
function resolve(dir, id) {
  const parts = dir ? dir.split('/') : [];
  for (const part of id.split('/'))
    if (part === '..') parts.pop();
    else if (part !== '.') parts.push(part);
  return parts.join('/');
}

function djb2(text) {
  let hash = 5381;
  for (let i = 0; i < text.length; i++) hash = ((hash * 33) ^ text.charCodeAt(i)) >>> 0;
  return hash;
}

// V8 rejects a cache made under other flags, and svc sets some at run time (net/v8-flags.ts calls this): what was
// compiled before is cached at exit under the flags set back (so that it holds what the whole run called), or now
// when a flag cannot be set back; what is compiled after has caches of its own (their names tagged by the flags)
globalThis[Symbol.for('svc.setV8Flags')] = (more) => {
  const next = [...new Set([...flags.split(' '), ...more.split(' ')].filter(Boolean))].sort().join(' ');
  if (next === flags) return;
  const added = next.split(' ').filter((f) => !flags.split(' ').includes(f));
  if (added.every((f) => FLAGS_SET_BACK[f])) earlier.push({ list: pending, back: added.map((f) => FLAGS_SET_BACK[f]) });
  else save(pending);
  pending = [];
  require('node:v8').setFlagsFromString(more);
  flags = next;
};
process.once('exit', () => {
  save(pending);
  // (the run is over: nothing compiles WebAssembly or collects under those flags any more)
  if (!earlier.some((step) => step.list.length > 0)) return;
  for (let step = earlier.pop(); step; step = earlier.pop()) {
    require('node:v8').setFlagsFromString(step.back.join(' '));
    save(step.list);
  }
});

load(ENTRY);
