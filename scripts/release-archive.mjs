// The release's files of one platform, from `npm run build:exe`'s executables (signed by then), and the one
// SHA256SUMS of them all: the part of .github/workflows/release.yml that runs anywhere, so that a test runs it here.
//
//   node scripts/release-archive.mjs pack --target linux-x64 [--exe-dir dist/exe] [--out out] [--svc PROGRAM]
//     out/svc-V-T[.exe], out/svc-emulator-V-T[.exe]: the executables by version and platform, as downloaded alone;
//     out/svc-V-T.tar.gz (.zip for Windows): one folder svc-V-T/ laid out as a prefix (extracted into ~/.local or
//     /usr/local, each file is where the tools look): bin/svc, bin/svc-emulator, share/man/man1/*.1 (not for
//     Windows: man pages do not apply), share/bash-completion/completions/svc, share/zsh/site-functions/_svc,
//     share/fish/vendor_completions.d/svc.fish, share/powershell/svc.ps1, share/doc/svc/LICENSE;
//     out/SHA256SUMS-T: the sums of those three files.
//     The man pages and completion scripts are the executable's own output (`svc completion man --install DIR`,
//     `svc completion SHELL`): generated from its command tree, nothing shipped beside it. --svc names another
//     program to ask (a test on a machine of another platform than the target's).
//   node scripts/release-archive.mjs sums out
//     every SHA256SUMS-T of the folder checked against its files and joined into one SHA256SUMS (sorted by name);
//     a file listed twice, missing or of another sum, or a file of the folder that no sum names, fails.
//
// Archives are written here (ustar + gzip by node:zlib, zip by fflate) rather than by the runner's tar and zip:
// one code path on every runner, entries in a fixed order, owner 0, mtime $SOURCE_DATE_EPOCH when set.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { createGzip } from 'node:zlib';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** the platforms the workflow builds on (its matrix is checked against these, test/repo/packages.test.ts) */
export const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-arm64', 'darwin-x64', 'win32-x64'];
const PROGRAMS = ['svc', 'svc-emulator'];
/** each shell's script and where it goes under the prefix */
const COMPLETIONS = {
  bash: 'share/bash-completion/completions/svc',
  zsh: 'share/zsh/site-functions/_svc',
  fish: 'share/fish/vendor_completions.d/svc.fish',
  powershell: 'share/powershell/svc.ps1',
};

class ReleaseError extends Error {}

async function sha256(file) {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest('hex');
}

/** The files of one platform's release into `out`; returns their names. */
export async function pack({ target, exeDir = join(ROOT, 'dist', 'exe'), out = join(ROOT, 'out'), svc, version }) {
  if (!TARGETS.includes(target)) throw new ReleaseError(`--target: ${target} is not one of ${TARGETS.join(', ')}`);
  version ??= JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
  const windows = target.startsWith('win32-');
  const ext = windows ? '.exe' : '';
  const base = `svc-${version}-${target}`;
  for (const p of PROGRAMS)
    if (!existsSync(join(exeDir, `${p}${ext}`)))
      throw new ReleaseError(`${join(exeDir, `${p}${ext}`)} is missing: run \`npm run build:exe\` first`);
  mkdirSync(out, { recursive: true });
  const names = [];
  for (const p of PROGRAMS) {
    const name = `${p}-${version}-${target}${ext}`;
    copyFileSync(join(exeDir, `${p}${ext}`), join(out, name));
    chmodSync(join(out, name), 0o755);
    names.push(name);
  }
  const entries = contents({ exeDir, ext, windows, svc: svc ?? join(exeDir, `svc${ext}`) });
  const archive = `${base}${windows ? '.zip' : '.tar.gz'}`;
  const mtime = Number(process.env.SOURCE_DATE_EPOCH) || Math.floor(Date.now() / 1000);
  const prefixed = entries.map((e) => ({ ...e, path: `${base}/${e.path}` }));
  if (windows) writeFileSync(join(out, archive), zip(prefixed, mtime));
  else await pipeline(Readable.from(tar(prefixed, mtime)), createGzip(), createWriteStream(join(out, archive)));
  names.push(archive);
  const lines = [];
  for (const n of names) lines.push(`${await sha256(join(out, n))}  ${n}\n`);
  writeFileSync(join(out, `SHA256SUMS-${target}`), lines.join(''));
  return names;
}

/** What the archive holds, in order: { path, mode, data } or, for the executables, { path, mode, file } (streamed) */
function contents({ exeDir, ext, windows, svc }) {
  const work = join(tmpdir(), `svc-release-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, 'home'), { recursive: true });
  // the executable with nothing of this machine's: an empty home, its code cache there too
  const env = { PATH: process.env.PATH, HOME: join(work, 'home'), USERPROFILE: join(work, 'home') };
  if (process.env.SYSTEMROOT) env.SYSTEMROOT = process.env.SYSTEMROOT;
  const ask = (args) => {
    try {
      return execFileSync(svc, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      throw new ReleaseError(`${svc} ${args.join(' ')} failed: ${String(err.stderr || err.message).trim()}`);
    }
  };
  try {
    const entries = PROGRAMS.map((p) => ({ path: `bin/${p}${ext}`, file: join(exeDir, `${p}${ext}`), mode: 0o755 }));
    if (!windows) {
      const man = join(work, 'man1');
      ask(['completion', 'man', '--install', man]);
      const pages = readdirSync(man).sort();
      if (!pages.includes('svc.1')) throw new ReleaseError(`${svc} completion man --install wrote no svc.1`);
      for (const page of pages)
        entries.push({ path: `share/man/man1/${page}`, data: readFileSync(join(man, page)), mode: 0o644 });
    }
    for (const [shell, path] of Object.entries(COMPLETIONS))
      entries.push({ path, data: Buffer.from(ask(['completion', shell])), mode: 0o644 });
    entries.push({ path: 'share/doc/svc/LICENSE', data: readFileSync(join(ROOT, 'LICENSE')), mode: 0o644 });
    return entries;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A ustar archive of the entries (their folders first, each once), block by block: executables are not held whole. */
async function* tar(entries, mtime) {
  const seen = new Set();
  const header = (path, size, mode, type) => {
    const h = Buffer.alloc(512);
    const name = Buffer.from(path);
    if (name.length > 100) throw new ReleaseError(`${path}: a name over 100 bytes (ustar's field)`);
    name.copy(h, 0);
    const octal = (value, at, width) => h.write(`${value.toString(8).padStart(width - 1, '0')}\0`, at, 'ascii');
    octal(mode, 100, 8);
    octal(0, 108, 8);
    octal(0, 116, 8);
    octal(size, 124, 12);
    octal(mtime, 136, 12);
    h.write('        ', 148, 'ascii');
    h.write(type, 156, 'ascii');
    h.write('ustar\0' + '00', 257, 'ascii');
    let sum = 0;
    for (const byte of h) sum += byte;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
    return h;
  };
  for (const { path, data, file, mode } of entries) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = `${parts.slice(0, i).join('/')}/`;
      if (!seen.has(dir)) yield header(dir, 0, 0o755, '5');
      seen.add(dir);
    }
    const size = file ? statSync(file).size : data.length;
    yield header(path, size, mode, '0');
    if (file) yield* createReadStream(file);
    else yield data;
    yield Buffer.alloc((512 - (size % 512)) % 512);
  }
  yield Buffer.alloc(1024);
}

/** A zip of the entries, deflated, with their Unix modes (for an unzip that keeps them). */
function zip(entries, mtime) {
  const files = {};
  for (const { path, data, file, mode } of entries)
    files[path] = [
      file ? readFileSync(file) : data,
      { level: 6, mtime: new Date(mtime * 1000), os: 3, attrs: ((0o100000 | mode) << 16) >>> 0 },
    ];
  // (loaded here: `sums` runs in a job with no node_modules)
  const { zipSync } = createRequire(import.meta.url)('fflate');
  return Buffer.from(zipSync(files));
}

/** Every SHA256SUMS-* of `dir` checked and joined into SHA256SUMS. */
export async function sums(dir) {
  const parts = readdirSync(dir).filter((f) => f.startsWith('SHA256SUMS-'));
  if (!parts.length) throw new ReleaseError(`${dir} holds no SHA256SUMS-*`);
  const listed = new Map();
  for (const part of parts)
    for (const line of readFileSync(join(dir, part), 'utf8').split('\n').filter(Boolean)) {
      const m = /^([0-9a-f]{64}) {2}([^/\\]+)$/.exec(line);
      if (!m) throw new ReleaseError(`${part}: not a sum line: ${line}`);
      const [, sum, name] = m;
      if (listed.has(name)) throw new ReleaseError(`${name} is listed twice (${part})`);
      if (!existsSync(join(dir, name))) throw new ReleaseError(`${name} (${part}) is missing`);
      if ((await sha256(join(dir, name))) !== sum)
        throw new ReleaseError(`${name}: its sha256 is not the one ${part} says`);
      listed.set(name, sum);
    }
  const unlisted = readdirSync(dir).filter((f) => !f.startsWith('SHA256SUMS') && !listed.has(f));
  if (unlisted.length) throw new ReleaseError(`no sum for ${unlisted.join(', ')}`);
  const names = [...listed.keys()].sort();
  writeFileSync(join(dir, 'SHA256SUMS'), names.map((n) => `${listed.get(n)}  ${n}\n`).join(''));
  for (const part of parts) rmSync(join(dir, part));
  return names;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { values, positionals } = parseArgs({
      allowPositionals: true,
      options: {
        target: { type: 'string' },
        'exe-dir': { type: 'string' },
        out: { type: 'string' },
        svc: { type: 'string' },
        version: { type: 'string' },
      },
    });
    const [command, folder] = positionals;
    if (command === 'pack') {
      if (!values.target) throw new ReleaseError(`--target is needed: one of ${TARGETS.join(', ')}`);
      const names = await pack({
        target: values.target,
        exeDir: values['exe-dir'] && resolve(values['exe-dir']),
        out: values.out && resolve(values.out),
        svc: values.svc && resolve(values.svc),
        version: values.version,
      });
      for (const n of names) console.log(n);
    } else if (command === 'sums' && folder) {
      for (const n of await sums(resolve(folder))) console.log(n);
    } else throw new ReleaseError('usage: release-archive.mjs pack --target T [--exe-dir D] [--out D] | sums DIR');
  } catch (err) {
    if (!(err instanceof ReleaseError) && !(err instanceof TypeError)) throw err;
    console.error(`release-archive: ${err.message}`);
    process.exit(err instanceof TypeError ? 2 : 1);
  }
}
