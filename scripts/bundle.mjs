// Second build step (after scripts/build.mjs): dist/*.js → dist/bundle/*.cjs, the code bin/svc.cjs runs. One CommonJS
// file per command (named after its module, e.g. commands/models/list-<hash>.cjs) plus shared chunks; the packages are
// bundled in (the parts of undici a request needs), but for what must stay in node_modules (OUTSIDE, below).
// Why: the ES module loader costs ~1 ms per file on this machine and CommonJS chunks can be compiled with
// V8's code cache on Node 20 (see bin/svc.cjs and docs/performance.md).
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, relative } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import { lazyAssert, lazyChildProcess, noHttp2, rareUndiciOutside, undiciWithoutHttp } from './bundle-plugins.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const OUT = join(DIST, 'bundle');
// chalk and the Markdown renderer's marked and highlight.js too: their import() would start Node's ES module loader
// and compile them without a cache (chalk: +11 ms CPU of every command printing in colour on a terminal; marked and
// highlight.js: +33 ms of every chat answer rendered on a terminal). Bundled, each is a CommonJS chunk with a code
// cache; highlight.js's languages stay one chunk each, loaded when a code block names one.
// svc's own packages (the emulator, the formats) are bundled too: `--emulator` loads them as chunks with a code cache.
// The MCP SDK and zod (svc mcp serve, chat --mcp): as ES modules their import took ~160 ms of the server's start.
// Every other package is bundled too (issue 41: the install was 64 MB in 161 packages, most of them the MCP SDK's web
// server stack): as chunks loaded where they were imported, with a code cache. What stays in node_modules (the
// package's `dependencies`) is what cannot be bundled: a native module (speaker), a package that loads a
// WebAssembly file beside itself by path (jq-web), ws's optional native helpers, and undici's whole package (the
// proxy agent and the fallback for an unknown undici layout, net/http.ts; its rare modules, RARE_UNDICI below).
const OUTSIDE = /^(speaker|jq-web|bufferutil|utf-8-validate)(\/|$)/;
/** the dist/ folders of svc's own packages, whose modules' chunks are named after them (emulator/http/server-….cjs) */
const PACKAGE_DISTS = ['emulator', 'formats'].map((name) => [
  name,
  realpathSync(join(ROOT, 'node_modules', `svc-${name}`, 'dist')),
]);
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
/**
 * undici's HTTP/1.1 client compiles its WebAssembly parser on the first connection; src/net/http-parser.ts
 * compiles it beforehand on V8's worker threads, from the file written below (LLHTTP_FILE, beside undici's chunk),
 * and undici takes that module when it is ready (else it compiles its own, as usual). undici's own copy of the
 * parser, a module of base64 text (72 KB of source and code cache to read in every request), reads that file
 * too. The build fails if undici's code changes.
 */
const LLHTTP_FILE = 'net/llhttp_simd.wasm';
const parserCompiledBeforehand = {
  name: 'svc-parser-compiled-beforehand',
  load(id) {
    if (!/[\\/]undici[\\/]lib[\\/]llhttp[\\/]llhttp_simd-wasm\.js$/.test(id)) return null;
    const own = readFileSync(id, 'utf8');
    if (!/^const wasmBase64 = '[A-Za-z0-9+/=]+'$/m.test(own))
      this.error("undici's llhttp_simd-wasm.js is no longer base64 text: update scripts/bundle.mjs");
    return (
      `let bytes\nObject.defineProperty(module, 'exports', { get: () => (bytes ??= ` +
      `require('node:fs').readFileSync(__dirname + '/${LLHTTP_FILE.split('/').pop()}')) })\n`
    );
  },
  transform(code, id) {
    if (!/[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/.test(id)) return null;
    const own = "mod = new WebAssembly.Module(require('../llhttp/llhttp_simd-wasm.js'))";
    if (!code.includes(own))
      this.error("undici's client-h1.js no longer compiles its parser as expected: update scripts/bundle.mjs");
    return code.replace(
      own,
      `mod = globalThis[Symbol.for('svc.llhttpModule')] ?? new ` +
        `WebAssembly.Module(require('../llhttp/llhttp_simd-wasm.js'))`,
    );
  },
};

/**
 * Packages stay in node_modules and are loaded with import() (several are ES modules only). An import() compiled
 * from V8's code cache on Node 20 has no loader to call ("A dynamic import callback was not specified"), so the
 * bundle asks the launcher to import them: bin/svc.cjs is compiled by Node itself.
 */
const importViaLauncher = {
  name: 'svc-import-via-launcher',
  renderChunk(code) {
    return code.replace(/\bimport\("((?:node:)?[a-z@][^"]*)"\)/g, (_, spec) =>
      spec.startsWith('node:')
        ? // Node's own modules: require() them, which does not start the ES module loader (~3 ms); the namespace
          // object import() gives is mimicked (named exports, and the module as default)
          `Promise.resolve().then(() => { const m = require(${JSON.stringify(spec)}); return Object.create(m, { ` +
          `default: { value: m, enumerable: true } }); })`
        : `(globalThis[Symbol.for("svc.import")] ?? ((s) => import(s)))(${JSON.stringify(spec)})`,
    );
  },
};

/**
 * api-facts (~17 kB) is required by a chunk that uses it at its top, which rolldown hoists even for a require() in
 * a function (src/core/lazy-api-facts.ts): the chunk is loaded on first use of its exports instead, so that a
 * command whose flags read a list only when given (`svc chat hi`) does not load it. The build fails if rolldown
 * stops naming it so.
 */
const lazyApiFactsChunk = {
  name: 'svc-lazy-api-facts-chunk',
  renderChunk(code, chunk) {
    const eager = /\bconst require_api_facts\s*=\s*require\(("[^"]+")\);/;
    if (!chunk.moduleIds.some((id) => id.endsWith('/core/lazy-api-facts.js'))) return null;
    if (!eager.test(code))
      this.error('api-facts is no longer required as require_api_facts: update scripts/bundle.mjs');
    return code.replace(
      eager,
      (_, path) =>
        `let api_facts_chunk;const require_api_facts=new Proxy({},` +
        `{get:(_,key)=>(api_facts_chunk??=require(${path}))[key]});`,
    );
  },
};

/**
 * A package a module loads on first use with `createRequire(import.meta.url)('pkg')` (a synchronous require, so
 * that it is not loaded with the module): a plain require() here, so that the package is bundled like the others
 * (left so, it would be looked up in node_modules, where an installed svc no longer has it). Packages that stay
 * outside (OUTSIDE) keep theirs.
 */
const createRequireBundled = {
  name: 'svc-create-require-bundled',
  transform(code) {
    if (!code.includes('createRequire(import.meta.url)')) return null;
    const bundled = (call, pkg) =>
      OUTSIDE.test(pkg) || pkg.startsWith('.') ? call : `require(${JSON.stringify(pkg)})`;
    // inline, and through a name bound to it (`const requireCjs = createRequire(import.meta.url)`: alawmulaw)
    let out = code.replace(/createRequire\(import\.meta\.url\)\((['"])([^'"]+)\1\)/g, (c, _, pkg) => bundled(c, pkg));
    for (const [, name] of code.matchAll(/\bconst (\w+) = createRequire\(import\.meta\.url\);/g))
      out = out.replace(new RegExp(`\\b${name}\\((['"])([^'"]+)\\1\\)`, 'g'), (c, _, pkg) => bundled(c, pkg));
    return out;
  },
};

/**
 * The MCP SDK's server makes an ajv validator (~200 KB of ajv and its formats, compiled when made) in its
 * constructor, for the answers to elicitation requests, which `svc mcp serve` never sends: in the bundle it is made
 * on first use, and its module loaded then (`svc mcp serve` ready ~7 ms of CPU sooner). The build fails if the SDK
 * changes.
 */
const lazyServerValidator = {
  name: 'svc-lazy-mcp-server-validator',
  transform(code, id) {
    if (!/[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]index\.js$/.test(id)) return null;
    const eagerImport = "import { AjvJsonSchemaValidator } from '../validation/ajv-provider.js';\n";
    const eagerMake = 'options?.jsonSchemaValidator ?? new AjvJsonSchemaValidator()';
    if (!code.includes(eagerImport) || code.split('AjvJsonSchemaValidator').length !== 3)
      this.error("the MCP SDK's server no longer makes its validator as expected: update scripts/bundle.mjs");
    return code
      .replace(eagerImport, '')
      .replace(
        eagerMake,
        'options?.jsonSchemaValidator ?? { getValidator(schema) { return (this.made ??= new (require(' +
          "'../validation/ajv-provider.js').AjvJsonSchemaValidator)()).getValidator(schema); } }",
      );
  },
  // ajv's chunks, which the chunk of the validator's module requires at its top, are loaded on first use of theirs
  generateBundle(_, bundle) {
    const ajvOnly = (chunk) =>
      chunk.type === 'chunk' &&
      chunk.moduleIds.some((m) => AJV_PACKAGES.test(m)) &&
      chunk.moduleIds.every((m) => AJV_PACKAGES.test(m) || m.startsWith('\0'));
    const holder = Object.values(bundle).find(
      (c) => c.type === 'chunk' && c.moduleIds.some((m) => m.endsWith('/sdk/dist/esm/validation/ajv-provider.js')),
    );
    let made = 0;
    holder.code = holder.code.replace(/\bconst (require_[\w$]+)=require\("(\.\/[^"]+)"\);/g, (eager, name, path) => {
      const target = bundle[join(dirname(holder.fileName), path).split('\\').join('/')];
      if (!target || !ajvOnly(target)) return eager;
      made++;
      return `let ${name}_chunk;const ${name}=new Proxy({},{get:(_,key)=>(${name}_chunk??=require("${path}"))[key]});`;
    });
    if (made === 0)
      this.error("ajv's chunk is no longer required by the MCP validator's chunk: update scripts/bundle.mjs");
  },
};
const AJV_PACKAGES = /[\\/]node_modules[\\/](ajv|ajv-formats|fast-deep-equal|json-schema-traverse|fast-uri)[\\/]/;

/**
 * Chunks of modules that load together. A bundle file costs ~0.1 ms to load whatever its size (two files read,
 * a compile from the code cache, a module), and a request command loaded ~30 of them: the modules every
 * command line needs, those of every request and those of text generation are one chunk each (`svc chat
 * --no-stream hi`: 37 files → 9). A module named here that is not in dist/ fails the build.
 */
/** A chunk of the named modules of dist/ (and nothing else: their dependencies go where they would go anyway). */
function group(name, priority, modules) {
  for (const m of modules)
    if (!existsSync(join(DIST, `${m}.js`)))
      throw new Error(`scripts/bundle.mjs: the chunk ${name} names ${m}, which is not in dist/`);
  const files = new Set(modules.map((m) => join(DIST, `${m}.js`)));
  return { name, priority, includeDependenciesRecursively: false, test: (id) => files.has(id) };
}
const CHUNK_GROUPS = [
  // besides cli.ts (cli.cjs): what parsing a command line needs (help.ts and global-flags.ts stay apart: the
  // launcher loads them alone for `svc --help`; commander is its own chunk, loaded for the lines cmdutil/simple-line
  // leaves to it)
  group('cli-core', 3, [
    'core/errors',
    'core/signals',
    'core/validate',
    // (its require of api-facts is made lazy by lazyApiFactsChunk; here, any command's flag may read a list)
    'core/lazy-api-facts',
    'core/environment',
    'core/global-options',
    'core/suggest',
    'cmdutil/command-options',
    'cmdutil/command',
    'cmdutil/simple-line',
    // (134 bytes, a file of its own otherwise: one file less to read and compile on every command line)
    'core/option-spec',
  ]),
  // a command's context and its HTTP client, up to undici (its own chunk, loaded on the first request)
  group('request', 2, [
    'runtime/context',
    'runtime/config',
    'core/paths',
    'term/output',
    'term/color',
    'term/terminal-safe',
    'term/reply',
    'net/http',
    'net/http-parser',
    'net/v8-flags',
    'apilog/recorder',
    'apilog/log',
    'core/json-file',
    'endpoints/guard',
    'net/origin',
    'term/stdout-guard',
    'runtime/stdin',
    'core/input-file',
  ]),
  // text generation (chat, messages, responses, and the commands that share their flags)
  group('generation', 1, [
    'cmdutil/flag-sets',
    'core/request-table',
    'cmdutil/tool-file',
    'cmdutil/image-ref',
    'cmdutil/local-tools',
    'cmdutil/text-input',
    'net/sse',
    'term/usage',
    'cmdutil/answer-writer',
    'store/conversations',
    'endpoints/chat',
    'commands/chat/request',
    'commands/chat/render',
    'term/code-blocks',
    'cmdutil/mcp-command',
  ]),
];

/** less to read and hash on every run: no comments, no indentation; names kept for readable stack traces */
const COMPACT = { comments: false, minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } } };

/**
 * A build is quiet: a warning of rolldown (an import() that moves nothing into another chunk, an option it had to
 * guess) fails it, so that none reaches a newcomer who cannot tell it from an error. Make the dynamic import
 * effective (every import of that module dynamic) or static.
 */
function warningsFail(level, log, handler) {
  if (level === 'warn')
    handler('error', { ...log, message: `${log.code ?? 'warning'}: ${log.message} (a build is quiet)` });
  else handler(level, log);
}

// `svc mcp serve`'s tools/list entries, made from the commands (scripts/mcp-listing.mjs, in a child process as the
// help pages are), and the SDK's protocol versions, written over dist/mcp/built-listing.js, which the bundle then
// holds: the server answers initialize and tools/list without loading the commands its tools run or the SDK
const toolListing = execFileSync(process.execPath, [join(ROOT, 'scripts', 'mcp-listing.mjs')], {
  encoding: 'utf8',
  maxBuffer: 16 << 20,
});
const { listing, protocol } = JSON.parse(toolListing);
writeFileSync(
  join(DIST, 'mcp', 'built-listing.js'),
  `export const BUILT_LISTING = ${JSON.stringify(listing)};\n` +
    `export const BUILT_PROTOCOL = ${JSON.stringify(protocol)};\n`,
);
rmSync(OUT, { recursive: true, force: true });
await build({
  input: { cli: join(DIST, 'cli.js'), help: join(DIST, 'help.js') },
  platform: 'node',
  // `import('undici')` in net/http.ts is the fallback for an unknown undici layout: keep it out of the bundle
  // (`#name`: a bundled package's own subpath import, e.g. chalk's #ansi-styles)
  external: (id) => id.startsWith('node:') || id === 'undici' || (!/^[./\0#]/.test(id) && OUTSIDE.test(id)),
  plugins: [
    noHttp2,
    lazyAssert,
    rareUndiciOutside,
    parserCompiledBeforehand,
    undiciWithoutHttp,
    importViaLauncher,
    lazyChildProcess,
    lazyApiFactsChunk,
    createRequireBundled,
    lazyServerValidator,
  ],
  transform: { define: { __SVC_BUNDLE__: 'true', __SVC_VERSION__: JSON.stringify(VERSION) } },
  // the entries' exports are never read (bin/svc.cjs calls main() of cli.cjs, help.cjs prints): chunks may add to
  // them, which code splitting without recursive dependencies requires (rolldown set it implicitly, with a warning)
  preserveEntrySignatures: 'allow-extension',
  logLevel: 'warn',
  onLog: warningsFail,
  output: {
    dir: OUT,
    format: 'cjs',
    ...COMPACT,
    charset: 'ascii',
    entryFileNames: '[name].cjs',
    codeSplitting: { groups: CHUNK_GROUPS },
    chunkFileNames: (chunk) => {
      const facade = chunk.facadeModuleId;
      if (facade?.startsWith(`${DIST}/`)) return `${relative(DIST, facade).replace(/\.js$/, '')}-[hash].cjs`;
      const own = facade && PACKAGE_DISTS.find(([, dir]) => facade.startsWith(`${dir}/`));
      if (own) return `${own[0]}/${relative(own[1], facade).replace(/\.js$/, '')}-[hash].cjs`;
      // a bundled package's entry: named after it (shared/chalk-…, shared/marked-…, shared/highlight.js-bash-…)
      const pkg = facade && /[\\/]node_modules[\\/]([^\\/]+)[\\/]/.exec(facade)?.[1];
      if (pkg) return `shared/${pkg}-[name]-[hash].cjs`;
      return 'shared/[name]-[hash].cjs';
    },
  },
});
// undici's parser as a file (its package holds it as base64 text in a module), for src/net/http-parser.ts; undici's
// own copy reads it from beside its chunk (__dirname), so that chunk must be in the same folder
writeFileSync(join(OUT, LLHTTP_FILE), createRequire(import.meta.url)('undici/lib/llhttp/llhttp_simd-wasm.js'));
const undiciChunk = readdirSync(OUT, { recursive: true })
  .map(String)
  .find((f) => f.endsWith('.cjs') && readFileSync(join(OUT, f), 'latin1').includes('svc.llhttpModule'));
if (!undiciChunk || dirname(undiciChunk) !== dirname(LLHTTP_FILE))
  throw new Error(`scripts/bundle.mjs: undici's chunk (${undiciChunk}) is not beside ${LLHTTP_FILE}`);
// help pages: `svc <command…> --help` into a pipe or a file, rendered once here (scripts/help-pages.mjs renders
// them in a child process whose stdout is a pipe, as commander sees it then); bin/svc.cjs prints them without loading
// the CLI, the text (.txt) into anything else, on a terminal the layout (.json) laid out at its width with
// help-layout.cjs (the top-level help and overview have no layout: help.cjs prints them on a terminal)
const pages = JSON.parse(
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'help-pages.mjs')], { encoding: 'utf8', maxBuffer: 64 << 20 }),
);
for (const [words, { text, layout }] of Object.entries(pages)) {
  const file = join(OUT, 'help', words.split(' ').join('/'));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.txt`, text);
  if (layout) writeFileSync(`${file}.json`, JSON.stringify(layout));
}
// term/help-layout.ts with commander's help.js alone (its Help class; not the whole package, which the CLI's chunks
// hold)
const commanderHelp = join(dirname(createRequire(import.meta.url).resolve('commander')), 'lib', 'help.js');
await build({
  input: { 'help-layout': join(DIST, 'term', 'help-layout.js') },
  platform: 'node',
  plugins: [
    { name: 'svc-commander-help-only', resolveId: (source) => (source === 'commander' ? commanderHelp : null) },
  ],
  logLevel: 'warn',
  onLog: warningsFail,
  output: { dir: OUT, format: 'cjs', ...COMPACT, entryFileNames: '[name].cjs' },
});
// Each chunk written inside a CommonJS wrapper of its own: on Node 20, bin/svc.cjs compiles a chunk's file as it is
// (read as one flat string), where Module.wrap's joined string would be copied flat again by V8 (docs/performance.md,
// issue 41, tenth round). Run by Node's own loader (Node >= 22, a worker), which wraps it once more, the arrow passes
// that wrapper's arguments and `this` on; compiled as a script, it is the wrapper function itself.
const CHUNK_HEAD =
  '(f=>typeof arguments==="object"?f.apply(this,arguments):f)(function(exports,require,module,__filename,__dirname){';
for (const file of readdirSync(OUT, { recursive: true }).map(String)) {
  const path = join(OUT, file);
  if (file.endsWith('.cjs'))
    writeFileSync(path, Buffer.concat([Buffer.from(CHUNK_HEAD), readFileSync(path), Buffer.from('\n})')]));
}
// the id of this build: bin/svc.cjs keeps V8's code cache in a folder of that name (no stat of each file per run)
const hash = createHash('sha256');
for (const file of readdirSync(OUT, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.cjs'))
  .sort()) {
  hash
    .update(`${file}\0`)
    .update(readFileSync(join(OUT, file)))
    .update('\0');
}
writeFileSync(join(OUT, 'build-id'), `${hash.digest('hex').slice(0, 16)}\n`);
// bin/svc.cjs runs the bundle only when it is newer than dist/cli.js (a bare `tsc` leaves it stale)
const now = new Date(Math.max(Date.now(), statSync(join(DIST, 'cli.js')).mtimeMs + 1));
for (const name of ['cli.cjs', 'help.cjs']) utimesSync(join(OUT, name), now, now);
