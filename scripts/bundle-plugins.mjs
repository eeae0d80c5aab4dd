// Plugins of rolldown that scripts/bundle.mjs (dist/bundle) and scripts/build-exe.mjs (the single executables) both
// apply: what keeps undici's HTTP/1.1 client and commander from loading Node's modules a command does not use.
// Node's modules loaded after svc sets V8 flags (net/http.ts) compile without Node's own code cache, ~3x slower.

const H2_STUB = '\0svc:undici-client-h2';

/** undici's HTTP/2 client (node:http2 → tls → crypto) is never used: svc does not offer h2 (allowH2 is off). */
export const noHttp2 = {
  name: 'svc-no-http2',
  resolveId(source, importer) {
    if (/[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/.test(importer ?? '') && /client-h2(\.js)?$/.test(source))
      return H2_STUB;
    return null;
  },
  load(id) {
    if (id !== H2_STUB) return null;
    return (
      `module.exports = function connectH2() { throw new Error('HTTP/2 is not enabled in svc (undici ` +
      `allowH2 is off)'); };`
    );
  },
};

/**
 * commander requires node:child_process at load time for executable subcommands, which svc does not use: it gets
 * a stand-in that loads the module on first use (~1.5 ms of every command, with dgram and the rest it pulls in).
 */
export const lazyChildProcess = {
  name: 'svc-lazy-child-process',
  transform(code, id) {
    if (!/[\\/]commander[\\/]lib[\\/]command\.js$/.test(id)) return null;
    const eager = "require('node:child_process')";
    if (!code.includes(eager))
      this.error('commander no longer requires node:child_process as expected: update scripts/bundle.mjs');
    return code.replace(eager, "new Proxy({}, { get: (_, key) => require('node:child_process')[key] })");
  },
};

/**
 * undici calls node:assert only as `assert(condition)`, and loading node:assert costs ~3 ms of every request
 * command. In undici's files that use it so, it is a function that loads node:assert only when a condition fails
 * (the same AssertionError then). The build fails if undici starts to use assert otherwise.
 */
const LAZY_ASSERT = '\0svc:lazy-assert';
export const lazyAssert = {
  name: 'svc-lazy-assert',
  resolveId(source) {
    return source === LAZY_ASSERT ? LAZY_ASSERT : null;
  },
  load(id) {
    if (id !== LAZY_ASSERT) return null;
    return (
      `module.exports = function assert(value, message) { if (!value) require('node:assert').ok(value, ` +
      `message); };`
    );
  },
  transform(code, id) {
    if (!/[\\/]undici[\\/]lib[\\/]/.test(id) || !code.includes("require('node:assert')")) return null;
    if (
      !/^const assert = require\('node:assert'\)$/m.test(code) ||
      /\bassert\s*\.|\bassert\b(?!\s*\()/.test(code.replace(/^const assert = require\('node:assert'\)$/m, ''))
    )
      this.error(`undici's ${id} uses node:assert other than as assert(condition): update scripts/bundle.mjs`);
    return code.replace("require('node:assert')", `require(${JSON.stringify(LAZY_ASSERT)})`);
  },
};

/**
 * Modules the HTTP/1.1 client requires only in rare cases stay in node_modules, required from there on use: the
 * fetch body (FormData request bodies, which svc does not send through undici) and the WebAssembly parser without
 * SIMD (a fallback for CPUs without it). ~90 KB less to read on every request command.
 */
const RARE_UNDICI = {
  '../web/fetch/body.js': 'undici/lib/web/fetch/body.js',
  '../llhttp/llhttp-wasm.js': 'undici/lib/llhttp/llhttp-wasm.js',
};
export const rareUndiciOutside = {
  name: 'svc-rare-undici-outside',
  resolveId(source, importer) {
    if (!/[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/.test(importer ?? '')) return null;
    return Object.hasOwn(RARE_UNDICI, source) ? { id: RARE_UNDICI[source], external: true } : null;
  },
};

/**
 * undici loads node:http (~0.8 ms with its _http_* modules, and before svc changes V8's flags, see net/http.ts)
 * for two things: the default of maxHeaderSize, which svc sets itself (net/http.ts), and IncomingMessage, to
 * recognise one in util.destroy(). Both are looked up when used. The build fails if undici's code changes.
 */
const HTTP_USES = [
  {
    file: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    from: new RegExp(
      [
        String.raw`^const http = require\('node:http'\)\n([^]*)`,
        String.raw`^const getDefaultNodeMaxHeaderSize = http &&\n  http\.maxHeaderSize &&\n`,
        String.raw`  Number\.isInteger\(http\.maxHeaderSize\) &&\n  http\.maxHeaderSize > 0\n`,
        String.raw`  \? \(\) => http\.maxHeaderSize\n`,
        String.raw`  : \(\) => \{ (throw new InvalidArgumentError\(`,
        String.raw`'http module not available or http\.maxHeaderSize invalid'\)) \}\n`,
      ].join(''),
      'm',
    ),
    to: [
      '$1const getDefaultNodeMaxHeaderSize = () => {\n',
      "  const { maxHeaderSize } = require('node:http')\n",
      '  if (Number.isInteger(maxHeaderSize) && maxHeaderSize > 0) return maxHeaderSize\n',
      '  $2\n}\n',
    ].join(''),
  },
  {
    file: /[\\/]undici[\\/]lib[\\/]core[\\/]util\.js$/,
    from: new RegExp(
      String.raw`^const \{ IncomingMessage \} = require\('node:http'\)\n([^]*)` +
        String.raw`Object\.getPrototypeOf\(stream\)\.constructor === IncomingMessage\)`,
      'm',
    ),
    to: "$1Object.getPrototypeOf(stream).constructor === require('node:http').IncomingMessage)",
  },
];
export const undiciWithoutHttp = {
  name: 'svc-undici-without-node-http',
  transform(code, id) {
    const use = HTTP_USES.find((u) => u.file.test(id));
    if (!use) return null;
    const out = code.replace(use.from, use.to);
    if (out === code || /^\S[^\n]*require\('node:http'\)/m.test(out))
      this.error(`undici's ${id} uses node:http other than as expected: update scripts/bundle.mjs`);
    return out;
  },
};
