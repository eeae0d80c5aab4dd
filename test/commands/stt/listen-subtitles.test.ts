// svc stt listen --srt / --vtt: a cue per final segment as the transcript arrives (its words' timings), on stdout
// or with -o FILE into a file put in place at the end (Ctrl-C included) while stdout shows the transcript.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { encodeWav, interleave } from 'svc-formats/audio-codecs';
import { type InProcessOptions, svcInProcess } from '../../helpers/in-process.js';
import { spawnSvc } from '../../helpers/subprocess.js';
import { itWithEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { clipPcm } from '../realtime/talk-helpers.js';

const RATE = 16_000;
const first = () => clipPcm([{ silence: 300 }, { say: 'hello world' }, { silence: 1200 }], RATE);
const second = () => clipPcm([{ say: 'good morning everyone' }, { silence: 1200 }], RATE);

function twoUtterances(): string {
  const f = join(tempDir('svc-subs-'), 'two.wav');
  writeFileSync(f, encodeWav(Buffer.concat([first(), second()]), { sampleRate: RATE, channels: 1 }));
  return f;
}

interface Word {
  text: string;
  start: number;
  end: number;
}

/** the final segments' words as the service sent them (--json), to check the cue times against */
async function finalWords(emu: InProcessOptions['emu'], clip: string): Promise<Word[][]> {
  const r = await svcInProcess(['stt', 'listen', '--input', clip, '--no-realtime', '--json'], { emu });
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((e) => (e.type === 'transcript.partial' && e.is_final) || (e.type === 'transcript.done' && e.text))
    .map((e) => e.words as Word[]);
}

const srtTime = (s: number) => new Date(Math.round(s * 1000)).toISOString().slice(11, 23).replace('.', ',');

describe.concurrent('svc stt listen --srt / --vtt', () => {
  const it = itWithEmulator();

  it('--srt: numbered cues with the final segments’ word timings, on stdout', async ({ emu }) => {
    const clip = twoUtterances();
    const segments = await finalWords(emu, clip);
    expect(segments.map((w) => w.map((x) => x.text).join(' '))).toEqual(['hello world', 'good morning everyone']);
    const r = await svcInProcess(['stt', 'listen', '--input', clip, '--no-realtime', '--srt'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const cue = (n: number, w: Word[]) =>
      `${n}\n${srtTime(w[0]!.start)} --> ${srtTime(w[w.length - 1]!.end)}\n${w.map((x) => x.text).join(' ')}\n\n`;
    expect(r.stdout).toBe(cue(1, segments[0]!) + cue(2, segments[1]!));
    expect(segments[1]![0]!.start).toBeGreaterThan(1.5); // the times run on from the start of the audio
  });

  it('--vtt: the WEBVTT header, then cues with dotted milliseconds', async ({ emu }) => {
    const r = await svcInProcess(['stt', 'listen', '--input', twoUtterances(), '--no-realtime', '--vtt'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^WEBVTT\n\n(\d\d:){2}\d\d\.\d{3} --> (\d\d:){2}\d\d\.\d{3}\nhello world\n\n\S+ --> \S+\ngood morning everyone\n\n$/,
    );
  });

  it('a cue is written as its segment arrives, before the audio after it is sent', async ({ emu }) => {
    // --no-realtime: the audio goes out as it comes (the test holds back the second utterance, not a pacer)
    const proc = spawnSvc(['stt', 'listen', '--input', '-', '--no-realtime', '--srt', '--sample-rate', String(RATE)], {
      emu,
      stdin: 'pipe',
    });
    proc.stdin!.write(first());
    let out = '';
    await new Promise<void>((resolve, reject) => {
      proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.endsWith('hello world\n\n')) resolve();
      });
      proc.then(() => reject(new Error(`ended before the first cue: ${out}`)), reject);
    });
    expect(out).toMatch(/^1\n00:00:00,\d{3} --> 00:00:0\d,\d{3}\nhello world\n\n$/);
    proc.stdin!.end(second());
    const r = await proc;
    expect(r.exitCode).toBe(0);
    expect(out).toMatch(/\n\n2\n\S+ --> \S+\ngood morning everyone\n\n$/);
  });

  it('-o FILE: the subtitles into FILE, put in place at the end; stdout shows the transcript', async ({ emu }) => {
    const target = join(tempDir('svc-subs-'), 'talk.vtt');
    writeFileSync(target, 'old');
    const r = await svcInProcess(
      ['stt', 'listen', '--input', twoUtterances(), '--no-realtime', '--vtt', '-o', target, '--force'],
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('hello world\ngood morning everyone\n');
    expect(readFileSync(target, 'utf8')).toMatch(/^WEBVTT\n\n.*\nhello world\n\n.*\ngood morning everyone\n\n$/);
  });

  it('Ctrl-C with -o FILE keeps the cues received (exit 130)', async ({ emu }) => {
    const target = join(tempDir('svc-subs-'), 'live.srt');
    const args = ['--input', '-', '--no-realtime', '--srt', '-o', target, '--sample-rate', String(RATE)];
    const proc = spawnSvc(['stt', 'listen', ...args], {
      emu,
      stdin: 'pipe',
    });
    proc.stdin!.write(first());
    let out = '';
    await new Promise<void>((resolve, reject) => {
      proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out === 'hello world\n') resolve();
      });
      proc.then(() => reject(new Error(`ended before the first line: ${out}`)), reject);
    });
    expect(existsSync(target)).toBe(false); // in place only at the end
    proc.kill('SIGINT');
    const r = await proc;
    expect(r.exitCode).toBe(130);
    expect(readFileSync(target, 'utf8')).toMatch(/^1\n00:00:00,\d{3} --> \S+\nhello world\n\n$/);
  });

  it('--multichannel: each cue says its channel', async ({ emu }) => {
    const left = clipPcm([{ say: 'left' }, { silence: 600 }], RATE);
    const right = clipPcm([{ silence: 100 }, { say: 'right' }, { silence: 500 }], RATE);
    const len = Math.max(left.length, right.length);
    const pad = (b: Buffer) => Buffer.concat([b, Buffer.alloc(len - b.length)]);
    const wav = join(tempDir('svc-subs-'), 'stereo.wav');
    writeFileSync(wav, encodeWav(interleave([pad(left), pad(right)]), { sampleRate: RATE, channels: 2 }));
    const args = ['stt', 'listen', '--input', wav, '--multichannel', '--channels', '2', '--no-realtime', '--vtt'];
    const r = await svcInProcess(args, { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const texts = r.stdout.split('\n').filter((l) => l.startsWith('['));
    expect(texts.sort()).toEqual(['[channel 0] left', '[channel 1] right']);
    expect(r.stdout.startsWith('WEBVTT\n\n')).toBe(true);
  });

  for (const [args, message] of [
    [['--srt', '--vtt'], '--srt: true is not allowed: not together with --vtt'],
    [['--srt', '--json'], '--json: true is not allowed: not together with --srt or --vtt'],
    [['-o', '/tmp/x.srt'], '--output: /tmp/x.srt is not allowed: only with --srt or --vtt'],
    [['--srt', '-o', '/no/such/dir/x.srt'], '--output: /no/such/dir/x.srt: the folder /no/such/dir does not exist'],
  ] as const)
    it(`${args.join(' ')}: exit 2, nothing sent`, async ({ emu }) => {
      const r = await svcInProcess(['stt', 'listen', '--input', twoUtterances(), ...args], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(message);
      expect(emu.requests()).toEqual([]);
    });
});
