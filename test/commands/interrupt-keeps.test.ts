// Ctrl-C keeps what was received (issue 25, item 7). `tail -f notes | svc tts stream -o notes.mp3` can only end with
// Ctrl-C: the audio received so far stays, as a complete file, and stderr says so. `svc realtime talk` in a pipe
// prints a turn once it is complete: on Ctrl-C the assistant's text received so far is printed as it stands.
// The tests run at once (they wait on processes and on an answer spoken at real time), each with its own emulator.
import { describe, expect } from 'vitest';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { decodeAudio } from 'svc-formats/audio-codecs';
import { tonesToText } from 'svc-emulator/tones';
import { spawnSvc } from '../helpers/subprocess.js';
import { HostileServer } from '../helpers/hostile-server.js';
import { registerSecret } from '../helpers/secrets.js';
import { itWithEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/files.js';
import { lastSession, realTimeEmulator, wavClip } from './realtime/talk-helpers.js';

const it = itWithEmulator();

/** Resolves once the emulator has sent `n` audio.delta events of streaming TTS. */
function deltas(emu: TestEmulator, n: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const on = () => {
      if (++seen < n) return;
      emu.core.off('tts.audio.delta', on);
      resolve();
    };
    emu.core.on('tts.audio.delta', on);
  });
}

describe.concurrent('tts stream -o FILE: Ctrl-C keeps the audio received so far', () => {
  for (const ext of ['mp3', 'wav'] as const) {
    it(`${ext}: a complete file of what arrived, said on stderr; exit 130`, async ({ emu }) => {
      const dir = tempDir('svc-keep-');
      const out = join(dir, `notes.${ext}`);
      // stdin stays open, like `tail -f`: only Ctrl-C ends it
      const proc = spawnSvc(['tts', 'stream', '-o', out], { emu, stdin: 'pipe', timeout: 40_000 });
      const arrived = deltas(emu, 2);
      proc.stdin!.write('the first note\n\n');
      await arrived;
      await new Promise((r) => setTimeout(r, 300));
      proc.kill('SIGINT');
      const r = await proc;
      expect(r.exitCode, String(r.stderr)).toBe(130);
      expect(String(r.stderr)).toContain('(stopping: keeping the audio received so far; Ctrl-C again to quit at once)');
      expect(String(r.stderr)).toMatch(
        new RegExp(
          `interrupted: kept the audio received so far in ${out.replace(/[.]/g, '\\.')} \\(${ext}, .*\\d+ bytes\\)`,
        ),
      );
      // in place (no temp file left beside it), and a file a decoder reads to its end without an error
      expect(readdirSync(dir)).toEqual([`notes.${ext}`]);
      const file = readFileSync(out);
      expect(file.length).toBeGreaterThan(ext === 'wav' ? 44 : 0);
      const check = await execa('ffmpeg', ['-v', 'error', '-i', out, '-f', 'null', '-'], { reject: false });
      expect(check.exitCode, check.stderr).toBe(0);
      expect(check.stderr).toBe('');
      if (ext === 'wav') {
        // the sizes in the header are those of the data kept
        expect(file.readUInt32LE(4)).toBe(file.length - 8);
        expect(file.readUInt32LE(40)).toBe(file.length - 44);
        const { pcm, format } = await decodeAudio(file);
        expect(tonesToText(pcm, format.sampleRate)).toBe('the first note');
      }
    });
  }

  const key = 'sk-test-interrupt-0000';
  registerSecret(key);
  it('Ctrl-C before any audio arrived leaves an existing file as it was, and says so', async () => {
    // a server that takes the text and never answers: the emulator speaks each text.delta at once, and its audio
    // could come before the signal
    const server = await HostileServer.start();
    server.plan('WS /v1/tts', 'silent');
    try {
      const dir = tempDir('svc-keep-');
      const out = join(dir, 'notes.mp3');
      writeFileSync(out, 'OLD');
      // -v: the trace says when the first text went out (Ctrl-C is the command's own from then on)
      const proc = spawnSvc(['-v', 'tts', 'stream', '-o', out, '--force'], {
        env: { SVC_BASE_URL: server.url, SVC_API_KEY: key },
        stdin: 'pipe',
        timeout: 40_000,
      });
      proc.stdin!.write('an unfinished');
      let stderr = '';
      await new Promise<void>((resolve) => {
        proc.stderr!.on('data', (d: Buffer) => {
          stderr += d.toString();
          if (stderr.includes('"type":"text.delta"')) resolve();
        });
      });
      proc.kill('SIGINT');
      const r = await proc;
      expect(r.exitCode).toBe(130);
      expect(String(r.stderr)).toContain(`interrupted before any audio arrived: ${out} not written`);
      expect(readFileSync(out, 'utf8')).toBe('OLD');
      expect(existsSync(out)).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe.concurrent('realtime talk in a pipe: Ctrl-C prints the answer received so far', () => {
  it("the assistant's words that arrived are printed, marked [interrupted]; exit 0", async ({ emu }) => {
    realTimeEmulator(emu);
    // the answer repeats the question: ~4 s of audio at real time, Ctrl-C comes 300 ms after it began
    const question = wavClip('question.wav', [
      { silence: 200 },
      { say: 'tell me a story about the sea' },
      { silence: 800 },
    ]);
    const proc = spawnSvc(['realtime', 'talk', '--input', question, '--output', join(tempDir(), 'a.wav')], {
      emu,
      timeout: 40_000,
    });
    // the answer has begun (its first audio went out) and is not done
    for (let i = 0; i < 800; i++) {
      let answer: { audio_start?: number; done_at?: number } | undefined;
      try {
        answer = lastSession(emu).responses[0];
      } catch {
        answer = undefined;
      }
      if (answer?.audio_start !== undefined && answer.done_at === undefined) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(lastSession(emu).responses[0]?.done_at).toBeUndefined();
    proc.kill('SIGINT');
    const r = await proc;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stderr)).toContain('(ending the session; Ctrl-C again to quit at once)');
    const answer = lastSession(emu).responses[0]!.transcript;
    const stdout = String(r.stdout);
    expect(stdout).toMatch(/^you: tell me a story about the sea\nassistant: .+ \[interrupted\]\n$/);
    // what is printed is the start of the answer
    const printed = /assistant: (.+) \[interrupted\]\n$/.exec(stdout)![1]!;
    expect(answer.startsWith(printed)).toBe(true);
  });
});
