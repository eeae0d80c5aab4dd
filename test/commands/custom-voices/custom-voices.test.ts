import { encodeWav } from 'svc-formats/audio-codecs';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir, writeTemp } from '../../helpers/files.js';
import { needTools } from '../../helpers/tools.js';

const ffmpeg = (args: string[]) =>
  needTools('ffmpeg', 'ffprobe') ?? execa('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

/** A PCM WAV of `seconds` of silence (8 kHz mono 16-bit). */
function wav(seconds: number): Buffer {
  return encodeWav(Buffer.alloc(Math.round(seconds * 8000) * 2), { sampleRate: 8000, channels: 1 });
}

/** MPEG-1 Layer III frames at 128 kbit/s, 44.1 kHz (417 bytes, 1152 samples each), after an ID3v2 tag. */
function mp3(seconds: number): Buffer {
  const frames = Math.ceil((seconds * 44100) / 1152);
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0x00]);
  const id3 = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 10, ...Buffer.alloc(10)]);
  return Buffer.concat([id3, ...Array.from({ length: frames }, () => frame)]);
}

describe('svc custom-voices', () => {
  let id: string;
  const clip = writeTemp('me.wav', wav(3));

  it('create uploads the clip as multipart field `file` with the name, and prints the voice', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['custom-voices', 'create', clip, '--name', 'my voice'], { emu });
    expect(r.exitCode).toBe(0);
    const rows = Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')),
    );
    expect(rows.voice_id).toMatch(/^[a-z0-9]{8}$/);
    expect(rows.name).toBe('my voice');
    id = rows.voice_id!;
    const req = emu.requests()[0]!;
    expect(String(req.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    // the emulator stored the clip byte for byte, with its type and name
    const rec = emu.core.store
      .collection<{ blob: string; content_type: string; filename: string }>('custom_voices')
      .get(id)!;
    expect(readFileSync(rec.blob).equals(readFileSync(clip))).toBe(true);
    expect(rec).toMatchObject({ content_type: 'audio/wav', filename: 'me.wav' });
  });

  it('the new voice works as an agent voice', async () => {
    const r = await svcInProcess(['agents', 'create', '--name', 'cloned', '--voice', id, '--json', '--jq', '.agent'], {
      emu,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).voice).toEqual({ voice_id: id });
    const v = await svcInProcess(['tts', 'voice', id, '--json'], { emu });
    expect(JSON.parse(v.stdout)).toEqual({ voice_id: id, name: 'my voice' });
  });

  it('get / update / list (--json one per line)', async () => {
    const g = await svcInProcess(['custom-voices', 'get', id, '--json'], { emu });
    expect(JSON.parse(g.stdout)).toMatchObject({
      voice_id: id,
      name: 'my voice',
      created_at: expect.stringMatching(/Z$/),
    });
    emu.clearRequests();
    const u = await svcInProcess(['custom-voices', 'update', id, '--name', 'narrator', '--json'], { emu });
    expect(JSON.parse(u.stdout).name).toBe('narrator');
    expect(emu.requests()[0]).toMatchObject({ method: 'PATCH', path: `/v1/custom-voices/${id}` });
    expect(JSON.parse(emu.requests()[0]!.body!)).toEqual({ name: 'narrator' });
    const l = await svcInProcess(['custom-voices', 'list'], { emu });
    expect(l.stdout.trim().split('\t').slice(0, 2)).toEqual([id, 'narrator']);
  });

  it('list pages with pagination_token; --all follows them', async () => {
    const more = writeTemp('b.mp3', mp3(2));
    for (let i = 0; i < 2; i++)
      expect((await svcInProcess(['custom-voices', 'create', more, '--name', `v${i}`], { emu })).exitCode).toBe(0);
    const one = await svcInProcess(['custom-voices', 'list', '--limit', '1'], { emu });
    expect(one.stdout.trim().split('\n')).toHaveLength(1);
    expect(one.stderr).toMatch(/more custom voices: --page-token \w+ \(or --all\)/);
    emu.clearRequests();
    const all = await svcInProcess(['custom-voices', 'list', '--limit', '1', '--all', '--json'], { emu });
    expect(
      all.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).name),
    ).toEqual(['narrator', 'v0', 'v1']);
    expect(emu.requests().map((q) => q.query.pagination_token)).toEqual([
      undefined,
      id,
      expect.stringMatching(/^[a-z0-9]{8}$/),
    ]);
  });

  it('download -o FILE writes atomically (no temp file left) the bytes uploaded', async () => {
    const dir = tempDir();
    const out = join(dir, 'ref.wav');
    const r = await svcInProcess(['custom-voices', 'download', id, '-o', out], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe(out);
    expect(readFileSync(out).equals(readFileSync(clip))).toBe(true);
    expect(readdirSync(dir)).toEqual(['ref.wav']);
    const missing = await svcInProcess(['custom-voices', 'download', 'zzzzzzzz', '-o', join(dir, 'x.wav')], { emu });
    expect(missing.exitCode).toBe(5);
    expect(existsSync(join(dir, 'x.wav'))).toBe(false);
    expect(readdirSync(dir)).toEqual(['ref.wav']);
  });

  it('delete asks for --yes in a script, then prints {deleted: true} with --json', async () => {
    emu.clearRequests();
    expect((await svcInProcess(['custom-voices', 'delete', id], { emu })).exitCode).toBe(2);
    expect(emu.requests()).toHaveLength(0);
    const r = await svcInProcess(['custom-voices', 'delete', id, '--yes', '--json'], { emu });
    expect(JSON.parse(r.stdout)).toEqual({ deleted: true });
    expect((await svcInProcess(['custom-voices', 'get', id], { emu })).exitCode).toBe(5);
  });
});

describe('the clip is checked before upload (exit 2, nothing sent)', () => {
  const run = async (args: string[], env?: Record<string, string>) => {
    emu.clearRequests();
    const r = await svcInProcess(['custom-voices', 'create', ...args], { emu, env });
    expect(emu.requests()).toHaveLength(0);
    return r;
  };

  it('a WAV longer than 120 s (from its header)', async () => {
    const r = await run([writeTemp('long.wav', wav(121))]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      'long.wav is not allowed: a reference clip of at most 120 seconds (this one is 121.0 s)',
    );
  });

  it('an MP3 longer than 120 s (from its frame headers)', async () => {
    const r = await run([writeTemp('long.mp3', mp3(125))]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /long\.mp3 is not allowed: a reference clip of at most 120 seconds \(this one is 125\.\d s\)/,
    );
  });

  it('a file that is not audio', async () => {
    const r = await run([writeTemp('notes.txt', 'hello there, this is text')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('notes.txt is not readable audio: unknown format');
  });

  it('a broken WAV header', async () => {
    const w = wav(1);
    w.write('junk', 12, 'latin1');
    const r = await run([writeTemp('broken.wav', w.subarray(0, 40))]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('broken.wav is not readable audio');
  });

  it('a missing file', async () => {
    const r = await run(['/nonexistent/clip.wav']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('cannot read /nonexistent/clip.wav: ENOENT');
  });

  // The real ffprobe (installed by scripts/install-system-deps.sh) measures clips that ffmpeg made.
  it('another container goes to ffprobe: a clip over 120 s is refused', async () => {
    const long = join(tempDir(), 'talk.m4a');
    await ffmpeg(['-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', '150.5', '-c:a', 'aac', '-b:a', '16k', long]);
    emu.clearRequests();
    const r = await run([long]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /talk\.m4a is not allowed: a reference clip of at most 120 seconds \(this one is 150\.[56] s\)/,
    );
    expect(emu.requests()).toHaveLength(0);
  });

  it('another container under 120 s is measured by ffprobe and uploaded without a note', async () => {
    const short = join(tempDir(), 'short.ogg');
    await ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=16000:duration=2', '-c:a', 'libopus', short]);
    emu.clearRequests();
    const r = await svcInProcess(['custom-voices', 'create', short], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('trusting its extension');
    expect(emu.requests()).toHaveLength(1);
  });

  it('another container without an audio stream (per ffprobe) is refused', async () => {
    const video = join(tempDir(), 'clip.ogg');
    await ffmpeg(['-f', 'lavfi', '-i', 'color=c=black:s=16x16:d=1:r=5', '-c:v', 'libtheora', video]);
    emu.clearRequests();
    const r = await run([video]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('clip.ogg is not readable audio: ffprobe finds no audio stream in it');
    expect(emu.requests()).toHaveLength(0);
  });

  it('a file in a container ffprobe cannot read is refused', async () => {
    const r = await run([writeTemp('clip.ogg', Buffer.concat([Buffer.from('OggS'), Buffer.alloc(60)]))]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('clip.ogg is not readable audio');
  });

  // the one test with a stand-in: ffprobe missing (a path that does not exist)
  it('without ffprobe another container is trusted by its extension (with a note) and uploaded', async () => {
    emu.clearRequests();
    const r = await svcInProcess(
      ['custom-voices', 'create', writeTemp('clip.ogg', Buffer.concat([Buffer.from('OggS'), Buffer.alloc(60)]))],
      { emu, env: { SVC_FFPROBE: '/nonexistent/ffprobe' } },
    );
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('trusting its extension (.ogg)');
    expect(emu.requests()).toHaveLength(1);
  });

  it('list --limit is 1 to 1000', async () => {
    for (const bad of ['0', '1001']) {
      emu.clearRequests();
      const r = await svcInProcess(['custom-voices', 'list', '--limit', bad], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`--limit: ${bad} is not allowed: a whole number from 1 to 1000`);
      expect(emu.requests()).toHaveLength(0);
    }
  });
});
