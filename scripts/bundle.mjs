// Second build step (after scripts/build.mjs): dist/*.js → dist/bundle/*.cjs, the code bin/svc.cjs runs. One CommonJS file per
// command (named after its module, e.g. commands/models/list-<hash>.cjs) plus shared chunks; commander and the
// parts of undici a request needs are bundled in, every other package stays in node_modules (imported on use).
// Why: the ES module loader costs ~1 ms per file on this machine and CommonJS chunks can be compiled with
// V8's code cache on Node 20 (see bin/svc.cjs and docs/performance.md).
import { readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const OUT = join(DIST, 'bundle');
const BUNDLED = /^(commander|undici)(\/|$)/;
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
const H2_STUB = '\0svc:undici-client-h2';

/** undici's HTTP/2 client (node:http2 → tls → crypto) is never used: svc does not offer h2 (allowH2 is off). */
const noHttp2 = {
  name: 'svc-no-http2',
  resolveId(source, importer) {
    if (/[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/.test(importer ?? '') && /client-h2(\.js)?$/.test(source)) return H2_STUB;
    return null;
  },
  load(id) {
    if (id !== H2_STUB) return null;
    return `module.exports = function connectH2() { throw new Error('HTTP/2 is not enabled in svc (undici allowH2 is off)'); };`;
  },
};

/**
 * commander requires node:child_process at load time for executable subcommands, which svc does not use: it gets
 * a stand-in that loads the module on first use (~1.5 ms of every command, with dgram and the rest it pulls in).
 */
const lazyChildProcess = {
  name: 'svc-lazy-child-process',
  transform(code, id) {
    if (!/[\\/]commander[\\/]lib[\\/]command\.js$/.test(id)) return null;
    const eager = "require('node:child_process')";
    if (!code.includes(eager)) this.error('commander no longer requires node:child_process as expected: update scripts/bundle.mjs');
    return code.replace(eager, "new Proxy({}, { get: (_, key) => require('node:child_process')[key] })");
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
          `Promise.resolve().then(() => { const m = require(${JSON.stringify(spec)}); return Object.create(m, { default: { value: m, enumerable: true } }); })`
        : `(globalThis[Symbol.for("svc.import")] ?? ((s) => import(s)))(${JSON.stringify(spec)})`,
    );
  },
};

rmSync(OUT, { recursive: true, force: true });
await build({
  input: { cli: join(DIST, 'cli.js'), help: join(DIST, 'help.js') },
  platform: 'node',
  // `import('undici')` in core/http.ts is the fallback for an unknown undici layout: keep it out of the bundle
  external: (id) => id.startsWith('node:') || id === 'undici' || (!id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0') && !BUNDLED.test(id)),
  plugins: [noHttp2, importViaLauncher, lazyChildProcess],
  transform: { define: { __SVC_BUNDLE__: 'true', __SVC_VERSION__: JSON.stringify(VERSION) } },
  logLevel: 'warn',
  output: {
    dir: OUT,
    format: 'cjs',
    // less to read and hash on every run: no comments, no indentation; names kept for readable stack traces
    comments: false,
    minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } },
    entryFileNames: '[name].cjs',
    chunkFileNames: (chunk) => {
      const facade = chunk.facadeModuleId;
      if (facade && facade.startsWith(DIST + '/')) return relative(DIST, facade).replace(/\.js$/, '') + '-[hash].cjs';
      return 'shared/[name]-[hash].cjs';
    },
  },
});
// bin/svc.cjs runs the bundle only when it is newer than dist/cli.js (a bare `tsc` leaves it stale)
const now = new Date(Math.max(Date.now(), statSync(join(DIST, 'cli.js')).mtimeMs + 1));
for (const name of ['cli.cjs', 'help.cjs']) utimesSync(join(OUT, name), now, now);
