// svc realtime talk --push-to-talk on a real terminal (tmux): space toggles talking, releasing commits the turn
// and asks for the answer; `q` quits. The microphone is the real `mic` package reading a fake `arecord` that
// produces silence in real time and speaks a clip when the test says so.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, assertNoSecrets, startTestEmulator, svcEnv, tempDir, type TestEmulator } from '../../helpers/cli.js';
import { clipPcm, lastSession, realTimeEmulator, spokenIn } from './talk-helpers.js';

let emu: TestEmulator;
const socket = `svc-ptt-${process.pid}`;
beforeAll(async () => {
  emu = await startTestEmulator();
  realTimeEmulator(emu);
});
afterAll(async () => {
  try {
    execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
  } catch {
    // already gone
  }
  await emu.close();
});

const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const pane = () => tmux('capture-pane', '-p', '-J', '-t', 'ptt', '-S', '-100');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => T | undefined | false, limitMs = 30_000): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}; the terminal shows:\n${pane()}`);
    await sleep(50);
  }
}

/** A fake `arecord`: a WAV header, then 40 ms frames in real time: silence, the clip once `go` exists, silence. */
function fakeArecord(dir: string, clip: Buffer): void {
  writeFileSync(join(dir, 'clip.raw'), clip);
  const script = `#!/usr/bin/env node
const fs = require('fs');
const dir = ${JSON.stringify(dir)};
const clip = fs.readFileSync(dir + '/clip.raw');
const header = Buffer.alloc(44);
header.write('RIFF', 0); header.writeUInt32LE(0xffffffff, 4); header.write('WAVEfmt ', 8); header.writeUInt32LE(16, 16);
header.writeUInt16LE(1, 20); header.writeUInt16LE(1, 22); header.writeUInt32LE(24000, 24); header.writeUInt32LE(48000, 28);
header.writeUInt16LE(2, 32); header.writeUInt16LE(16, 34); header.write('data', 36); header.writeUInt32LE(0xffffffff, 40);
process.stdout.write(header);
const frame = 1920; let pos = -1; const start = Date.now(); let n = 0;
function tick() {
  if (pos < 0 && fs.existsSync(dir + '/go')) pos = 0;
  let out = Buffer.alloc(frame);
  if (pos >= 0 && pos < clip.length) { out = clip.subarray(pos, pos + frame); pos += frame; if (pos >= clip.length) fs.writeFileSync(dir + '/done', ''); }
  process.stdout.write(out);
  n++;
  setTimeout(tick, Math.max(0, start + n * 40 - Date.now()));
}
tick();
`;
  writeFileSync(join(dir, 'arecord'), script);
  chmodSync(join(dir, 'arecord'), 0o755);
}

describe('svc realtime talk --push-to-talk (on a terminal)', () => {
  it('talks while space is toggled on, commits on release, plays the answer and quits with q', async () => {
    const dir = tempDir('svc-ptt-');
    fakeArecord(dir, clipPcm([{ say: 'push to talk works' }, { silence: 300 }]));
    const out = join(dir, 'answer.wav');
    const env = { ...svcEnv({ emu }), PATH: `${dir}:${process.env.PATH}`, TERM: 'xterm' };
    const vars = Object.entries(env)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}='${String(v).replace(/'/g, "'\\''")}'`)
      .join(' ');
    const cmd = `cd '${ROOT}' && env -i ${vars} node '${BIN}' realtime talk --push-to-talk --output '${out}' 2>&1; echo "EXIT=$?" > '${dir}/exit'; sleep 30`;
    tmux('new-session', '-d', '-x', '200', '-y', '50', '-s', 'ptt', cmd);

    await until('the session to start', () => pane().includes('hold space to talk'));
    tmux('send-keys', '-t', 'ptt', 'Space');
    await until('talking to start', () => pane().includes('(talking… release space to send)'));
    writeFileSync(join(dir, 'go'), '');
    await until('the clip to be recorded', () => existsSync(join(dir, 'done')));
    await sleep(300);
    tmux('send-keys', '-t', 'ptt', 'Space');
    await until('the answer', () => lastSession(emu).responses[0]?.status === 'completed' && /assistant: .+\n/.test(pane()));
    tmux('send-keys', '-t', 'ptt', 'q');
    const exit = await until('svc to exit', () => existsSync(join(dir, 'exit')) && readFileSync(join(dir, 'exit'), 'utf8'));
    const screen = pane();
    assertNoSecrets(screen, 'push-to-talk');
    expect(exit.trim()).toBe('EXIT=0');

    const log = lastSession(emu);
    expect(log.session).toMatchObject({ turn_detection: null });
    expect(log.client_events).toEqual(['session.update', 'input_audio_buffer.commit', 'response.create']);
    expect(log.transcripts).toEqual(['push to talk works']);
    // frames flowed only while talking: about the clip, not the seconds of silence before and after it
    expect(log.input_audio_ms).toBeLessThan(4000);
    const answer = log.responses[0]!.transcript;
    expect(screen).toContain('you: push to talk works');
    expect(screen).toContain(`assistant: ${answer}`);
    expect(await spokenIn(out)).toBe(answer);
  });
});
