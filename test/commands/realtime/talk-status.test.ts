// The live status line of svc realtime talk: on a real terminal (tmux) it shows the input level, who is speaking
// and the last turn's latencies on the row below the transcript, which stays intact, and it is gone once the
// session ends; in a pipe nothing of it is written. The microphone is the real `mic` package reading a fake
// `arecord` that produces 40 ms frames in real time: silence, a spoken clip once the test says so (the status line
// seen listening, or the session connected), then silence. The emulators answer at once (what is checked is the
// status line, not the answer's pace), and the two tests run at once, each with its own.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { TmuxTerminal } from '../../helpers/terminal.js';
import { spawnSvc } from '../../helpers/subprocess.js';
import { tempDir } from '../../helpers/files.js';
import { clipPcm, fakeArecord, lastSession, talking as it, wavClip } from './talk-helpers.js';

const term = new TmuxTerminal();
afterAll(() => term.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** the screen, each line without the trailing cells tmux capture keeps after a longer line was cleared */
const screen = async () =>
  (await term.read())
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');

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

describe.concurrent('svc realtime talk: the status line', () => {
  it('on a terminal: level, who speaks, the last turn latencies; the transcript intact; erased at end', async ({
    emu,
  }) => {
    const dir = tempDir('svc-status-');
    fakeArecord(dir, clipPcm([{ say: 'hello from the terminal' }]));
    const log = join(dir, 'latency.jsonl');
    term.start(['realtime', 'talk', '--output', join(dir, 'answer.wav'), '--latency-log', log], {
      emu,
      env: { PATH: `${dir}:${process.env.PATH}` },
      cols: 200,
      rows: 30,
    });
    // before anyone speaks: the silent microphone, listening
    await until('the status line', async () => /^mic \.{10} -inf dB \| listening$/m.test(await screen()));
    writeFileSync(join(dir, 'go'), '');
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

  it('in a pipe: nothing of it (no status text, no cursor control on stderr)', async ({ emu }) => {
    const dir = tempDir('svc-status-pipe-');
    fakeArecord(dir, clipPcm([{ say: 'hello from a pipe' }]));
    const proc = spawnSvc(['realtime', 'talk', '--output', join(dir, 'answer.wav')], {
      emu,
      env: { PATH: `${dir}:${process.env.PATH}` },
      timeout: 45_000,
    });
    let stdout = '';
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes('connected to session')) writeFileSync(join(dir, 'go'), '');
    });
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
    expect(String(r.stderr)).toContain('connected to session');
    expect(String(r.stderr)).not.toMatch(/mic |turn 1|\u001b/);
    expect(stdout).not.toMatch(/\u001b/);
  });
});

describe.concurrent('svc realtime talk --input FILE --output FILE on a terminal (issue 42, item 9)', () => {
  for (const cols of [40, 80, 200])
    it(`${cols} columns: the status line shows, within the width, and is gone at the end`, async ({ emu }) => {
      const dir = tempDir('svc-status-files-');
      const input = wavClip('in.wav', [{ silence: 300 }, { say: 'hello from a file' }, { silence: 1500 }]);
      const own = new TmuxTerminal();
      try {
        own.start(['realtime', 'talk', '--input', input, '--output', join(dir, 'answer.wav')], { emu, cols });
        const seen = await until('the status line', async () => {
          const s = (await own.read()).split('\n').map((l) => l.trimEnd());
          return s.some((l) => /(listening|speaking)/.test(l)) && s;
        });
        // the status row within the width (-J would join it with the next row had it wrapped)
        for (const l of seen.filter((l) => /listening|speaking|^mic /.test(l)))
          expect(l.length, seen.join('\n')).toBeLessThanOrEqual(cols);
        if (cols >= 80) expect(seen.join('\n')).toMatch(STATUS);
        const end = await own.waitFor(/EXIT=\d+/);
        expect(end).toContain('EXIT=0');
        expect(end).not.toMatch(/listening|is speaking/);
      } finally {
        own.stop();
      }
    });
});
