// Voice pacing: `svc stt listen` must send 100 ms frames at real time (interval median and 99th percentile,
// measured where the frames arrive: an in-process emulator), and `svc tts say` must hand audio to its sink
// at once (time from the emulator sending the first audio.delta to the first bytes on the CLI's stdout).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { BIN, ROOT, cleanEnv, median, percentile } from './lib.mjs';

function run(args, env, onStdout) {
  return new Promise((resolve, reject) => {
    const child = spawn('node', [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stdout.on('data', (d) => onStdout?.(d));
    child.stderr.on('data', (d) => (err += d));
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`svc ${args.join(' ')} exited ${code}: ${err}`)),
    );
  });
}

export default async function main() {
  const { startEmulator } = await import('../packages/emulator/dist/http/server.js');
  const { textToTones } = await import('../packages/emulator/dist/voice/tones.js');
  const { encodeWav } = await import('../dist/audio/codecs.js');
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-voice-'));
  const emu = await startEmulator({ port: 0, quietLog: true });
  const env = cleanEnv({
    SVC_BASE_URL: emu.url,
    SVC_API_KEY: emu.defaultKey,
    ALSA_CONFIG_PATH: join(ROOT, 'test', 'fixtures', 'asound-null.conf'),
  });
  const rows = [];
  try {
    // ~6 s of audio: about 60 frames
    const clip = join(dir, 'clip.wav');
    writeFileSync(
      clip,
      encodeWav(textToTones('pacing is measured where the frames arrive, one every tenth of a second.', 16000), {
        sampleRate: 16000,
        channels: 1,
      }),
    );
    const arrivals = [];
    const onFrame = (f) => arrivals.push(f.time);
    emu.core.on('stt.frame', onFrame);
    await run(['stt', 'listen', '--input', clip], env);
    emu.core.off('stt.frame', onFrame);
    const intervals = arrivals.slice(1).map((t, i) => t - arrivals[i]);
    const drift = arrivals.length > 1 ? arrivals[arrivals.length - 1] - arrivals[0] - 100 * (arrivals.length - 1) : NaN;
    rows.push({
      name: `stt listen frame interval, median (${intervals.length} intervals)`,
      value: median(intervals),
      unit: 'ms',
      target: '100',
    });
    rows.push({
      name: 'stt listen frame interval, p99',
      value: percentile(intervals, 99),
      unit: 'ms',
      target: '≤ 110',
    });
    rows.push({ name: 'stt listen frame interval, p1', value: percentile(intervals, 1), unit: 'ms', target: '≥ 90' });
    rows.push({ name: 'stt listen drift over the whole clip', value: drift, unit: 'ms', target: '|x| < 10' });

    const latencies = [];
    for (let i = 0; i < 7; i++) {
      let sent;
      let got;
      const onDelta = (e) => (sent ??= e.time);
      emu.core.on('tts.audio.delta', onDelta);
      await run(
        ['tts', 'say', 'latency to the sink', '--codec', 'pcm', '--sample-rate', '16000'],
        env,
        () => (got ??= performance.now()),
      );
      emu.core.off('tts.audio.delta', onDelta);
      latencies.push(got - sent);
    }
    rows.push({
      name: 'tts first audio.delta → first bytes at the sink, median',
      value: median(latencies),
      unit: 'ms',
      target: '< 20',
    });
    rows.push({
      name: 'tts first audio.delta → first bytes at the sink, max of 7',
      value: Math.max(...latencies),
      unit: 'ms',
    });
  } finally {
    await emu.close();
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  for (const r of await main())
    console.log(`${r.name.padEnd(60)} ${r.value.toFixed(2)} ${r.unit}${r.target ? `  (target ${r.target})` : ''}`);
}
