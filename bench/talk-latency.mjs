// Client-added latency per turn of `svc realtime talk` with the microphone and the speaker: capture → socket (a
// frame from `arecord`'s pipe to its append handed to the socket, the longest among the frames of the turn's
// speech) and socket → device (the answer's first audio delta received to its samples taken by the speaker's native
// ALSA write), as svc reports them (svc.turn.latency, --json), against a minimal client measured in the same run on
// the same path: `ws` and `speaker` used directly, no decoding layers, no checks. The microphone is a fake
// `arecord` producing 40 ms frames in real time (silence, a spoken clip, silence, per turn); the speaker plays into
// ALSA's `file` plugin (no sound card).
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT, cleanEnv, median } from './lib.mjs';

const TURNS = 3;
const SILENCE_MS = 300;

function fakeArecord(dir, clip) {
  writeFileSync(join(dir, 'clip.raw'), clip);
  writeFileSync(
    join(dir, 'arecord'),
    `#!/usr/bin/env node
const fs = require('fs');
const clip = fs.readFileSync(${JSON.stringify(join(dir, 'clip.raw'))});
const header = Buffer.alloc(44);
header.write('RIFF', 0); header.writeUInt32LE(0xffffffff, 4); header.write('WAVEfmt ', 8); header.writeUInt32LE(16, 16);
header.writeUInt16LE(1, 20); header.writeUInt16LE(1, 22);
header.writeUInt32LE(24000, 24); header.writeUInt32LE(48000, 28);
header.writeUInt16LE(2, 32); header.writeUInt16LE(16, 34);
header.write('data', 36); header.writeUInt32LE(0xffffffff, 40);
process.stdout.write(header);
const frame = 1920, lead = 10 * frame, turn = lead + clip.length + 150 * frame;
const start = Date.now(); let n = 0;
function tick() {
  const at = (n * frame) % turn - lead;
  const out = Buffer.alloc(frame);
  if (at >= 0 && at < clip.length) clip.copy(out, 0, at, Math.min(clip.length, at + frame));
  process.stdout.write(out);
  n++;
  setTimeout(tick, Math.max(0, start + n * 40 - Date.now()));
}
tick();
`,
  );
  chmodSync(join(dir, 'arecord'), 0o755);
}

function alsaToNull(dir) {
  const conf = join(dir, 'asound.conf');
  writeFileSync(
    conf,
    'pcm.nul { type null }\npcm.!default {\n  type file\n  slave.pcm "nul"\n  file "/dev/null"\n  format "raw"\n}\n',
  );
  return conf;
}

/** The minimal client: frames from arecord to the socket, the first audio delta of each answer to the speaker. */
const MINIMAL = `import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
const require = createRequire(process.env.ROOT + '/package.json');
const WebSocket = require('ws');
const Speaker = require('speaker');
const ws = new WebSocket(process.env.URL.replace(/^http/, 'ws') + '/v1/realtime', {
  headers: { authorization: 'Bearer ' + process.env.KEY },
});
let speaker, maxSend = 0, answered = new Set(), turns = 0;
function capture() {
  const rec = spawn('arecord', ['-q', '-f', 'S16_LE', '-r', '24000', '-c', '1', '-t', 'wav']);
  let buf = Buffer.alloc(0), header = true;
  rec.stdout.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    if (header) { if (buf.length < 44) return; buf = buf.subarray(44); header = false; }
    while (buf.length >= 1920) {
      const frame = buf.subarray(0, 1920); buf = buf.subarray(1920);
      const t0 = performance.now();
      ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: frame.toString('base64') }));
      maxSend = Math.max(maxSend, performance.now() - t0);
    }
  });
}
ws.on('open', () => ws.send(JSON.stringify({ type: 'session.update',
  session: { turn_detection: { type: 'server_vad', silence_duration_ms: ${SILENCE_MS} } } })));
ws.on('message', (data) => {
  const at = performance.now();
  const ev = JSON.parse(data.toString());
  if (ev.type === 'session.updated') capture();
  // as svc counts it: the frames of the turn's speech
  if (ev.type === 'input_audio_buffer.speech_started') maxSend = 0;
  if (ev.type !== 'response.output_audio.delta') return;
  speaker ??= new Speaker({ channels: 1, bitDepth: 16, sampleRate: 24000, signed: true });
  const pcm = Buffer.from(ev.delta, 'base64');
  if (answered.has(ev.response_id)) return void speaker.write(pcm);
  answered.add(ev.response_id);
  const capture_to_socket_ms = maxSend;
  maxSend = 0;
  speaker.write(pcm, () => {
    const first_audio_to_device_ms = performance.now() - at;
    process.stdout.write(JSON.stringify({ capture_to_socket_ms, first_audio_to_device_ms }) + '\\n');
    if (++turns >= ${TURNS}) process.exit(0);
  });
});
`;

/** Run a client until it reported TURNS turns; its JSON lines (svc: only svc.turn.latency). */
function run(args, env) {
  const child = spawn('node', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const turns = [];
  let buf = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    const limit = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gave up after 90 s with ${turns.length} turns; stderr: ${err.slice(-500)}`));
    }, 90_000);
    child.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const ev = JSON.parse(line);
        if (ev.type && ev.type !== 'svc.turn.latency') continue;
        turns.push(ev);
        if (turns.length === TURNS) child.kill('SIGINT');
      }
    });
    child.once('exit', () => {
      clearTimeout(limit);
      if (turns.length < TURNS) reject(new Error(`${turns.length} turns of ${TURNS}; stderr: ${err.slice(-500)}`));
      else resolve(turns);
    });
  });
}

export default async function talkLatency() {
  const { startEmulator } = await import(join(ROOT, 'packages/emulator/dist/http/server.js'));
  const { encodeTones } = await import(join(ROOT, 'packages/emulator/dist/voice/tones.js'));
  // answers paced at real time, as the service sends them
  const emu = await startEmulator({
    settings: { realtimePace: 1, realtimeResponseDelayMs: 150 },
  });
  try {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-talk-'));
    fakeArecord(dir, encodeTones('hello there', 24000));
    writeFileSync(join(dir, 'minimal.mjs'), MINIMAL);
    const env = cleanEnv({
      PATH: `${dir}:${process.env.PATH}`,
      ALSA_CONFIG_PATH: alsaToNull(dir),
      SVC_BASE_URL: emu.url,
      SVC_API_KEY: emu.defaultKey,
      URL: emu.url,
      KEY: emu.defaultKey,
      ROOT,
    });
    const svc = await run([BIN, 'realtime', 'talk', '--json', '--vad-silence-ms', String(SILENCE_MS)], env);
    const base = await run([join(dir, 'minimal.mjs')], env);
    const pick = (turns, key) => turns.map((t) => t[key]);
    const rows = [];
    for (const [key, what] of [
      ['capture_to_socket_ms', 'capture → socket'],
      ['first_audio_to_device_ms', 'socket → device (first audio)'],
    ]) {
      const b = median(pick(base, key));
      const s = median(pick(svc, key));
      rows.push({ name: `talk ${what}, minimal client (median of ${TURNS} turns)`, value: b, unit: 'ms' });
      rows.push({
        name: `talk ${what}, svc (median of ${TURNS} turns)`,
        value: s,
        unit: 'ms',
        baseline: 'minimal client',
        ratio: s / Math.max(b, 0.05),
        baseValue: b,
      });
    }
    const added = pick(svc, 'client_added_ms');
    rows.push({ name: `talk client-added latency per turn, svc (median)`, value: median(added), unit: 'ms', goal: 20 });
    rows.push({
      name: `talk client-added latency per turn, svc (worst of ${TURNS})`,
      value: Math.max(...added),
      unit: 'ms',
    });
    return rows;
  } finally {
    await emu.close();
  }
}
