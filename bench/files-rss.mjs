// Peak RSS of the CLI while it uploads a 300 MB file and downloads it back (streamed both ways), and a sha256
// check that the bytes survived. The emulator runs in this process with its file limit raised; the CLI runs as
// its own process, measured with /usr/bin/time -v (or by polling VmHWM in /proc when time is missing).
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SIZE = 300 * 1000 * 1000;
const LIMIT_MB = 100;

async function sha256(path) {
  const h = createHash('sha256');
  for await (const c of createReadStream(path, { highWaterMark: 1 << 20 })) h.update(c);
  return h.digest('hex');
}

async function writeRandom(path, size) {
  const ws = createWriteStream(path);
  // 1 MiB of random data repeated with a counter, so no two blocks are alike (nothing compresses or dedupes)
  const block = randomBytes(1 << 20);
  for (let off = 0, i = 0; off < size; i++) {
    const n = Math.min(block.length, size - off);
    const b = Buffer.from(block.subarray(0, n));
    b.writeUInt32LE(i, 0);
    if (!ws.write(b)) await new Promise((r) => ws.once('drain', r));
    off += n;
  }
  await new Promise((r, j) => ws.end((e) => (e ? j(e) : r())));
}

/**
 * Run the CLI; resolve with exit code, stdout, stderr and peak RSS in bytes. With `slowReader`, stdout is read
 * the way a slow consumer reads a pipe (a pause of `slowReader` ms after every chunk) and hashed, not kept.
 */
function runMeasured(args, env, { slowReader } = {}) {
  const useTime = existsSync('/usr/bin/time');
  const cmd = useTime ? '/usr/bin/time' : process.execPath;
  const argv = useTime
    ? ['-v', process.execPath, join(ROOT, 'bin', 'svc.cjs'), ...args]
    : [join(ROOT, 'bin', 'svc.cjs'), ...args];
  return new Promise((resolveRun, reject) => {
    const child = spawn(cmd, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let hwm = 0;
    const hash = createHash('sha256');
    let bytes = 0;
    if (slowReader) {
      child.stdout.on('data', (d) => {
        hash.update(d);
        bytes += d.length;
        child.stdout.pause();
        setTimeout(() => child.stdout.resume(), slowReader);
      });
    } else child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const poll = useTime
      ? undefined
      : setInterval(() => {
          try {
            const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
            if (m) hwm = Math.max(hwm, Number(m[1]) * 1024);
          } catch {
            // exited
          }
        }, 20);
    child.on('error', reject);
    child.on('close', (code) => {
      if (poll) clearInterval(poll);
      if (useTime) {
        const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
        if (m) hwm = Number(m[1]) * 1024;
      }
      resolveRun({ code, stdout, stderr, rss: hwm, sha256: slowReader ? hash.digest('hex') : undefined, bytes });
    });
  });
}

export default async function run() {
  const { startEmulator } = await import(
    pathToFileURL(join(ROOT, 'packages', 'emulator', 'dist', 'http', 'server.js')).href
  );
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-rss-'));
  const emu = await startEmulator({
    port: 0,
    stateDir: join(dir, 'state'),
    quietLog: true,
    settings: { maxFileBytes: 400 * 1024 * 1024 },
  });
  try {
    const src = join(dir, 'big.bin');
    await writeRandom(src, SIZE);
    const want = await sha256(src);
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NO_COLOR: '1',
      SVC_CONFIG_DIR: join(dir, 'cfg'),
      SVC_BASE_URL: emu.url,
      SVC_API_KEY: emu.defaultKey,
      SVC_MAX_UPLOAD_BYTES: String(400 * 1024 * 1024),
    };
    const t0 = Date.now();
    const up = await runMeasured(['files', 'upload', src], env);
    const upMs = Date.now() - t0;
    if (up.code !== 0) throw new Error(`upload failed: ${up.stderr}`);
    const id = up.stdout.split('\t')[0];
    const out = join(dir, 'back.bin');
    const t1 = Date.now();
    const down = await runMeasured(['files', 'download', id, '-o', out], env);
    const downMs = Date.now() - t1;
    if (down.code !== 0) throw new Error(`download failed: ${down.stderr}`);
    const got = await sha256(out);
    if (got !== want) throw new Error(`sha256 mismatch after the round trip: ${want} != ${got}`);
    // -o - into a pipe read slowly: memory must stay bounded by the buffers, not grow with the file
    const slow = await runMeasured(['files', 'download', id, '-o', '-'], env, { slowReader: 2 });
    if (slow.code !== 0) throw new Error(`download to stdout failed: ${slow.stderr}`);
    if (slow.sha256 !== want)
      throw new Error(`sha256 mismatch on stdout: ${want} != ${slow.sha256} (${slow.bytes} bytes)`);
    const mb = (b) => Math.round((b / (1024 * 1024)) * 10) / 10;
    return [
      { name: 'files upload 300 MB: CLI peak RSS', value: mb(up.rss), unit: 'MiB', goal: LIMIT_MB },
      { name: 'files download 300 MB to a file: CLI peak RSS', value: mb(down.rss), unit: 'MiB', goal: LIMIT_MB },
      { name: 'files download -o - 300 MB to a slow reader: peak RSS', value: mb(slow.rss), unit: 'MiB', goal: 64 },
      { name: 'files upload 300 MB: throughput', value: Math.round(SIZE / 1e6 / (upMs / 1000)), unit: 'MB/s' },
      { name: 'files download 300 MB: throughput', value: Math.round(SIZE / 1e6 / (downMs / 1000)), unit: 'MB/s' },
      { name: 'files 300 MB round trip: sha256 identical', value: 1, unit: 'bool' },
    ];
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await run();
  for (const r of rows)
    console.log(`${r.name}: ${r.value} ${r.unit}${r.goal !== undefined ? ` (goal ≤ ${r.goal})` : ''}`);
}
