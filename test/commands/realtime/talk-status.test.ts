// The live status line of svc realtime talk: on a real terminal (tmux) it shows the input level, who is speaking
// and the last turn's latencies on the row below the transcript, which stays intact, and it is gone once the
// session ends; in a pipe nothing of it is written. The microphone is the real `mic` package reading a fake
// `arecord` that produces 40 ms frames in real time: silence, a spoken clip, then silence.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TmuxTerminal } from '../../helpers/terminal.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { spawnSvc } from '../../helpers/subprocess.js';
import { tempDir } from '../../helpers/files.js';
import { clipPcm, lastSession, realTimeEmulator } from './talk-helpers.js';

let emu: TestEmulator;
const term = new TmuxTerminal();
beforeAll(async () => {
  emu = await startTestEmulator();
  realTimeEmulator(emu);
});
afterAll(async () => {
  term.stop();
  await emu.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** the screen, each line without the trailing cells tmux capture keeps after a longer line was cleared */
const screen = async () =>
  (await term.read())
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');

/** A fake `arecord` in `dir`: a WAV header, then 40 ms frames in real time: `clip` after 2 s, then silence. */
function realTimeArecord(dir: string, clip: Buffer): void {
  writeFileSync(join(dir, 'clip.raw'), clip);
  const script = `#!/usr/bin/env node
const fs = require('fs');
const clip = fs.readFileSync(${JSON.stringify(join(dir, 'clip.raw'))});
const header = Buffer.alloc(44);
header.write('RIFF', 0); header.writeUInt32LE(0xffffffff, 4); header.write('WAVEfmt ', 8); header.writeUInt32LE(16, 16);
header.writeUInt16LE(1, 20); header.writeUInt16LE(1, 22);
header.writeUInt32LE(24000, 24); header.writeUInt32LE(48000, 28);
header.writeUInt16LE(2, 32); header.writeUInt16LE(16, 34);
header.write('data', 36); header.writeUInt32LE(0xffffffff, 40);
process.stdout.write(header);
const frame = 1920; const start = Date.now(); let n = 0; const lead = 50 * frame;
function tick() {
  const at = n * frame - lead;
  const out = at >= 0 && at < clip.length ? clip.subarray(at, at + frame) : Buffer.alloc(frame);
  process.stdout.write(out.length === frame ? out : Buffer.concat([out, Buffer.alloc(frame - out.length)]));
  n++;
  setTimeout(tick, Math.max(0, start + n * 40 - Date.now()));
}
tick();
`;
  writeFileSync(join(dir, 'arecord'), script);
  chmodSync(join(dir, 'arecord'), 0o755);
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, limitMs = 30_000): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}; the terminal shows:\n${await screen()}`);
    await sleep(50);
  }
}

const STATUS = /^mic [#.]{10} (-inf|-\d+) dB \| /m;

describe('svc realtime talk: the status line', () => {
  it('on a terminal: level, who speaks, the last turn latencies; the transcript intact; erased at end', async () => {
    const dir = tempDir('svc-status-');
    realTimeArecord(dir, clipPcm([{ say: 'hello from the terminal' }]));
    const log = join(dir, 'latency.jsonl');
    term.start(['realtime', 'talk', '--output', join(dir, 'answer.wav'), '--latency-log', log], {
      emu,
      env: { PATH: `${dir}:${process.env.PATH}` },
      cols: 200,
      rows: 30,
    });
    // before anyone speaks: the silent microphone, listening
    await until('the status line', async () => /^mic \.{10} -inf dB \| listening$/m.test(await screen()));
    // the clip: a level on the bar and "you are speaking" (server VAD's speech_started)
    const speaking = await until('speech', async () => {
      const s = await screen();
      return /^mic #+\.* -\d+ dB \| you are speaking/m.test(s) && s;
    });
    expect(speaking).toMatch(STATUS);
    // the answer: the transcript above, the turn's latencies in the status line
    const shown = await until('the turn latencies', async () => {
      const s = await screen();
      const answered = lastSession(emu).responses[0]?.status === 'completed';
      return answered && /\| turn 1: end of speech -> first audio \d+ ms/.test(s) && s;
    });
    const answer = lastSession(emu).responses[0]!.transcript;
    const lines = shown.split('\n');
    expect(lines).toContain('you: hello from the terminal');
    expect(lines).toContain(`assistant: ${answer}`);
    const status = lines.find((l) => STATUS.test(l))!;
    expect(status).toMatch(
      /\| turn 1: end of speech -> first audio (\d+) ms \(vad (\d+) ms \+ server (\d+) ms\), -> device (\d+) ms$/,
    );
    // one status line only, below the transcript
    expect(lines.filter((l) => STATUS.test(l))).toHaveLength(1);
    expect(lines.indexOf(status)).toBeGreaterThan(lines.indexOf(`assistant: ${answer}`));

    term.keys('C-c');
    const end = await term.waitFor(/EXIT=\d+/);
    expect(end).toContain('EXIT=0');
    expect(end).not.toMatch(/^mic /m);
    // the figures shown are the turn's, as logged
    const [turn] = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const [, total, vad, server, device] = status.match(
      /first audio (\d+) ms \(vad (\d+) ms \+ server (\d+) ms\), -> device (\d+)/,
    )!;
    expect(Number(total)).toBe(Math.round(turn.speech_end_to_first_audio_ms));
    expect(Number(vad)).toBe(Math.round(turn.vad_ms));
    expect(Number(server)).toBe(Math.round(turn.response_ms));
    expect(Number(device)).toBe(Math.round(turn.first_audio_to_device_ms));
  });

  it('in a pipe: nothing of it (no status text, no cursor control on stderr)', async () => {
    const dir = tempDir('svc-status-pipe-');
    realTimeArecord(dir, clipPcm([{ say: 'hello from a pipe' }]));
    const proc = spawnSvc(['realtime', 'talk', '--output', join(dir, 'answer.wav')], {
      emu,
      env: { PATH: `${dir}:${process.env.PATH}` },
      timeout: 45_000,
    });
    let stdout = '';
    await new Promise<void>((resolve, reject) => {
      proc.stdout!.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (/assistant: .*\n/.test(stdout)) resolve();
      });
      proc.then(() => reject(new Error(`svc ended before answering: ${stdout}`)), reject);
    });
    proc.kill('SIGINT');
    const r = await proc;
    expect(r.exitCode).toBe(0);
    const stderr = String(r.stderr);
    expect(stderr).toContain('connected to session');
    expect(stderr).not.toMatch(/mic |turn 1|\u001b/);
    expect(stdout).not.toMatch(/\u001b/);
  });
});
