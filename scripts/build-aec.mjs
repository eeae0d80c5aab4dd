// `npm run build:aec`: builds assets/speexdsp/aec.wasm, the acoustic echo canceller of `realtime talk --aec`, from
// speexdsp's release tarball as Debian ships it (the pinned URL and sha256 below; the download is refused when the
// hash differs). It compiles speexdsp's echo canceller (MDF, mdf.c) and preprocessor (residual echo and noise
// suppression, preprocess.c) with emscripten into one standalone WebAssembly module without JavaScript glue (the
// loader is src/audio/echo-canceller.ts). The built file is committed, so `npm ci` users and CI need no emscripten;
// test/audio/echo-canceller-build.test.ts checks the committed file against AEC_WASM_SHA256 and, where emcc is
// installed, that this script rebuilds it byte for byte. Options: --out FILE (default assets/speexdsp/aec.wasm),
// --tarball FILE (a copy of the tarball already downloaded; its hash is checked the same).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SPEEXDSP_VERSION = '1.2.1';
export const TARBALL_URL = `http://deb.debian.org/debian/pool/main/s/speexdsp/speexdsp_${SPEEXDSP_VERSION}.orig.tar.gz`;
/** as in Debian's speexdsp_1.2.1-1.dsc (the download is plain HTTP: this hash is what makes it trustworthy) */
export const TARBALL_SHA256 = '8c777343e4a6399569c72abc38a95b24db56882c83dbdb6c6424a5f4aeb54d3d';
/** the emscripten release the committed file was built with (Debian's emscripten package) */
export const EMCC_VERSION = '3.1.6';
/** where the tarball is kept once downloaded */
const CACHE = join(ROOT, 'node_modules', '.cache', 'speexdsp');
const SOURCES = ['mdf.c', 'fftwrap.c', 'kiss_fft.c', 'kiss_fftr.c', 'preprocess.c', 'filterbank.c'];
const EXPORTS = [
  'speex_echo_state_init',
  'speex_echo_cancellation',
  'speex_echo_state_reset',
  'speex_echo_state_destroy',
  'speex_echo_ctl',
  'speex_preprocess_state_init',
  'speex_preprocess_state_destroy',
  'speex_preprocess_ctl',
  'speex_preprocess_run',
  'malloc',
  'free',
];
/** speexdsp's configure output, reduced to what these files need: floating point, KISS FFT, plain exports */
const CONFIG_H = '#define FLOATING_POINT 1\n#define USE_KISS_FFT 1\n#define EXPORT\n';
const TYPES_H =
  '#ifndef __SPEEX_TYPES_H__\n#define __SPEEX_TYPES_H__\n#include <stdint.h>\ntypedef int16_t spx_int16_t;\n' +
  'typedef uint16_t spx_uint16_t;\ntypedef int32_t spx_int32_t;\ntypedef uint32_t spx_uint32_t;\n#endif\n';

const sha256 = (b) => createHash('sha256').update(b).digest('hex');

async function tarball(given) {
  const path = given ?? join(CACHE, `speexdsp_${SPEEXDSP_VERSION}.orig.tar.gz`);
  if (!existsSync(path)) {
    if (given) throw new Error(`--tarball ${given}: no such file`);
    process.stderr.write(`downloading ${TARBALL_URL}\n`);
    const res = await fetch(TARBALL_URL);
    if (!res.ok) throw new Error(`${TARBALL_URL}: HTTP ${res.status}`);
    const bytes = Buffer.from(await res.arrayBuffer());
    if (sha256(bytes) !== TARBALL_SHA256)
      throw new Error(`${TARBALL_URL}: sha256 ${sha256(bytes)}, not the pinned one`);
    mkdirSync(CACHE, { recursive: true });
    writeFileSync(path, bytes);
  }
  const bytes = readFileSync(path);
  if (sha256(bytes) !== TARBALL_SHA256) throw new Error(`${path}: sha256 ${sha256(bytes)}, not ${TARBALL_SHA256}`);
  return path;
}

export async function buildAec({ out = join(ROOT, 'assets', 'speexdsp', 'aec.wasm'), tarballPath } = {}) {
  const tgz = await tarball(tarballPath);
  const work = mkdtempSync(join(tmpdir(), 'svc-speexdsp-'));
  try {
    execFileSync('tar', ['-xzf', tgz, '-C', work]);
    const src = join(work, `speexdsp-${SPEEXDSP_VERSION}`);
    writeFileSync(join(work, 'config.h'), CONFIG_H);
    writeFileSync(join(work, 'speexdsp_config_types.h'), TYPES_H);
    const wasm = join(work, 'aec.wasm');
    const args = [
      '-O2',
      `-I${work}`,
      '-Iinclude',
      '-DHAVE_CONFIG_H',
      ...SOURCES.map((f) => `libspeexdsp/${f}`),
      '-o',
      wasm,
      '--no-entry',
      '-sSTANDALONE_WASM',
      '-sALLOW_MEMORY_GROWTH',
      `-sEXPORTED_FUNCTIONS=${EXPORTS.map((e) => `_${e}`).join(',')}`,
    ];
    execFileSync('emcc', args, { cwd: src, stdio: ['ignore', 'inherit', 'inherit'] });
    mkdirSync(dirname(out), { recursive: true });
    copyFileSync(wasm, out);
    chmodSync(out, 0o644); // emcc's output is executable; the committed file is not
    if (out === join(ROOT, 'assets', 'speexdsp', 'aec.wasm'))
      copyFileSync(join(src, 'COPYING'), join(dirname(out), 'COPYING'));
    return sha256(readFileSync(out));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const opt = (name) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const hash = await buildAec({ out: opt('--out'), tarballPath: opt('--tarball') });
  process.stdout.write(`${hash}\n`);
}
