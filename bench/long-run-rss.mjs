// Memory of the long-lived commands over hours of audio: `tail -f notes | svc tts stream -o notes.pcm` and
// `svc realtime talk` must stay flat whatever the length. The emulator (in this process) renders speech at once, so
// hours of audio take seconds. The CLI's RSS is sampled from /proc with the audio written so far: its median over the
// last quarter of the audio is compared with its median over the second quarter (the baseline, measured in the same
// run; the first holds the start-up, ~55 MiB), and the difference is given per hour of audio. The heap is capped at
// 64 MB (what a session keeps must fit in it, whatever its length): uncapped, V8 sizes its heap by the allocation
// rate, which audio rendered hours faster than real time makes far higher than a real session's, and the samples
// swing ±25 MiB (one such run: 99 -> 123 MiB, peak 143).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeWav } from 'svc-formats/audio-codecs';
import { encodeTones } from 'svc-emulator/tones';
import { BIN, cleanEnv, median } from './lib.mjs';

/** ~20 s of speech a line, an utterance each */
const LINE = `${'the lighthouse keeper wrote down every ship that passed the rocks at night '.repeat(3).trim()}.`;
const PCM_BYTES_PER_SECOND = 24000 * 2;

/** Feed `lines` lines into `svc tts stream -o FILE`; resolve with RSS samples, each at the seconds of audio written. */
function ttsStream(lines, env, dir) {
  const out = join(dir, `notes-${lines}.pcm`);
  const child = spawn('node', [BIN, 'tts', 'stream', '-o', out], { env, stdio: ['pipe', 'ignore', 'pipe'] });
  child.stdin.on('error', () => undefined); // reported by the exit status
  child.stdin.end(Array.from({ length: lines }, (_, i) => `${i} ${LINE}\n\n`).join(''));
  return sampled(child, 'svc tts stream', out, dir);
}

/**
 * `svc realtime talk --input question.wav --output FILE.pcm` against an emulator that says its one answer `repeat`
 * times over without real-time pacing: RSS samples, each at the seconds of answer written.
 */
function realtimeTalk(env, dir) {
  const question = join(dir, 'question.wav');
  const speech = encodeTones('what is the weather', 24000);
  const silence = (ms) => Buffer.alloc(24 * ms * 2);
  writeFileSync(
    question,
    encodeWav(Buffer.concat([silence(200), speech, silence(300)]), { sampleRate: 24000, channels: 1 }),
  );
  const out = join(dir, 'answer.pcm');
  const child = spawn('node', [BIN, 'realtime', 'talk', '--input', question, '--output', out], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return sampled(child, 'svc realtime talk', out, dir);
}

/** RSS of `child` sampled from /proc with the size of its output so far (the temp file beside `out`). */
function sampled(child, what, out, dir) {
  const name = out.slice(dir.length + 1);
  return new Promise((resolve, reject) => {
    let err = '';
    const samples = [];
    child.stderr.on('data', (d) => (err += d));
    const poll = setInterval(() => {
      try {
        const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        // the temp file beside the target (core/atomic-file.ts) holds what was written so far
        const part = readdirSync(dir).find((f) => f.startsWith(`.${name}.`));
        if (rss && part) samples.push({ rss: Number(rss[1]) * 1024, at: statSync(join(dir, part)).size });
      } catch {
        // exited, or the file was just renamed
      }
    }, 10);
    child.once('error', reject);
    child.once('close', (code) => {
      clearInterval(poll);
      if (code !== 0) return reject(new Error(`${what} exited ${code}: ${err.slice(-500)}`));
      const seconds = statSync(out).size / PCM_BYTES_PER_SECOND;
      rmSync(out, { force: true });
      resolve({ seconds, samples: samples.map((s) => ({ rss: s.rss, at: s.at / PCM_BYTES_PER_SECOND })) });
    });
  });
}

/** The rows of one run: RSS over the last quarter of the audio against the second, its growth per hour, the peak. */
function rssRows(what, { seconds, samples }) {
  const mib = (b) => Math.round((b / (1024 * 1024)) * 10) / 10;
  const quarter = (q) => samples.filter((x) => x.at >= (q * seconds) / 4 && x.at < ((q + 1) * seconds) / 4);
  const first = quarter(1);
  const last = quarter(3);
  if (first.length < 10 || last.length < 10) throw new Error(`too few RSS samples: ${first.length}, ${last.length}`);
  const firstRss = median(first.map((x) => x.rss));
  const lastRss = median(last.map((x) => x.rss));
  const hours = (median(last.map((x) => x.at)) - median(first.map((x) => x.at))) / 3600;
  return [
    {
      name: `${what}, 64 MB heap: RSS, last quarter of ${(seconds / 3600).toFixed(1)} h`,
      value: mib(lastRss),
      unit: 'MiB',
      ratio: lastRss / firstRss,
      baseValue: mib(firstRss),
      baseline: 'the second quarter',
      goal: 1.25,
    },
    {
      name: `${what}, 64 MB heap: RSS growth per hour of audio`,
      value: mib((lastRss - firstRss) / hours),
      unit: 'MiB',
      goal: 10,
    },
    { name: `${what}, 64 MB heap: peak RSS`, value: mib(Math.max(...samples.map((x) => x.rss))), unit: 'MiB' },
  ];
}

export default async function main() {
  const { startEmulator } = await import('../packages/emulator/dist/http/server.js');
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-longrun-'));
  const emu = await startEmulator({ port: 0, quietLog: true });
  const env = cleanEnv({ SVC_BASE_URL: emu.url, SVC_API_KEY: emu.defaultKey, NODE_OPTIONS: '--max-old-space-size=64' });
  try {
    const tts = rssRows('tts stream PCM to a file', await ttsStream(600, env, dir));
    // one answer said 2,500 times over (~3.6 s each: 2.5 h), sent as fast as it is written
    Object.assign(emu.core.settings, { realtimePace: 0, realtimeResponseDelayMs: 0, realtimeAnswerRepeat: 2500 });
    const talk = rssRows('realtime talk, answer to a file', await realtimeTalk(env, dir));
    return [...tts, ...talk];
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
