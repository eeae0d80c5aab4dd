import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator({ settings: { videoDelayMs: 400 } });
  dir = tempDir('svc-videos-');
});
afterAll(() => emu.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const POLL = ['--poll-interval', '0.1'];

describe('svc videos generate', () => {
  it('prints the request id; get shows it pending, then done', async () => {
    emu.core.settings.videoDelayMs = 60_000;
    try {
      const r = await svcInProcess(
        [
          'videos',
          'generate',
          'waves',
          'at',
          'dusk',
          '--duration',
          '3',
          '--resolution',
          '720p',
          '--aspect-ratio',
          '9:16',
        ],
        { emu },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      const id = r.stdout.trim();
      expect(id).toMatch(UUID);
      const body = JSON.parse(emu.requests().find((x) => x.path === '/v1/videos/generations')!.body!);
      expect(body).toEqual({
        prompt: 'waves at dusk',
        model: 'svc-video-1',
        duration: 3,
        aspect_ratio: '9:16',
        resolution: '720p',
      });
      const g = await svcInProcess(['videos', 'get', id], { emu });
      expect(g.exitCode).toBe(0);
      expect(g.stdout).toMatch(/^status\tpending\nprogress\t\d+\nmodel\tsvc-video-1\n$/);
      const j = await svcInProcess(['videos', 'get', id, '--json'], { emu });
      expect(JSON.parse(j.stdout)).toMatchObject({ status: 'pending', model: 'svc-video-1' });
    } finally {
      emu.core.settings.videoDelayMs = 400;
    }
  });

  it('--wait -o out.mp4 ends with the video on disk (fetched without the key)', async () => {
    const out = join(dir, 'out.mp4');
    emu.clearRequests();
    const r = await svcInProcess(
      ['videos', 'generate', 'a paper boat', '--duration', '5', '--wait', '-o', out, ...POLL],
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${out}\n`);
    expect(r.stderr).toMatch(/^request id [0-9a-f-]{36}\n$/);
    const mp4 = readFileSync(out);
    expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(mp4.readUInt32BE(mp4.indexOf('mvhd') + 4 + 16)).toBe(5000); // duration in ms in the movie header
    const polls = emu.requests().filter((x) => /^\/v1\/videos\/[0-9a-f-]{36}$/.test(x.path));
    expect(polls.length).toBeGreaterThan(1); // it really waited through 202s
    const dl = emu.requests().find((x) => x.path.startsWith('/public/videos/'))!;
    expect(dl.headers.authorization).toBeUndefined();
  });

  it('a failing job exits 1 with the job’s error code and message', async () => {
    const out = join(dir, 'never.mp4');
    const r = await svcInProcess(['videos', 'generate', 'this', 'should', 'fail', '--wait', '-o', out, ...POLL], {
      emu,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/error: video [0-9a-f-]{36} failed: generation-failed: The video could not be generated/);
    expect(existsSync(out)).toBe(false);
    const id = /video ([0-9a-f-]{36})/.exec(r.stderr)![1]!;
    const g = await svcInProcess(['videos', 'get', id], { emu });
    expect(g.exitCode).toBe(1);
    expect(g.stdout).toContain('status\tfailed');
    expect(g.stderr).toContain('generation-failed');
  });

  it('--wait --json prints the final poll result as sent', async () => {
    const r = await svcInProcess(
      ['videos', 'generate', 'clouds', '--wait', '--json', '-o', join(dir, 'clouds.mp4'), ...POLL],
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ status: 'done', model: 'svc-video-1', video: { duration: 8, respect_moderation: true } });
    expect(j.video.url).toMatch(/\/public\/videos\/.*\.mp4$/);
  });
});

describe('svc videos wait / edit / extend', () => {
  it('wait ID -o downloads a job started earlier', async () => {
    const gen = await svcInProcess(['videos', 'generate', 'rain'], { emu });
    expect(gen.exitCode, gen.stderr).toBe(0);
    const id = gen.stdout.trim();
    expect(id).toMatch(UUID);
    const out = join(dir, 'rain.mp4');
    const r = await svcInProcess(['videos', 'wait', id, '-o', out, ...POLL], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(out).subarray(4, 8).toString('latin1')).toBe('ftyp');
  });

  it('extend sends a local video as a data URL and the extension duration', async () => {
    const src = join(dir, 'out.mp4');
    if (!existsSync(src)) writeFileSync(src, Buffer.concat([Buffer.from([0, 0, 0, 8]), Buffer.from('ftyp')]));
    emu.clearRequests();
    const r = await svcInProcess(['videos', 'extend', 'it', 'sails', 'away', '--video', src, '--duration', '4'], {
      emu,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const body = JSON.parse(emu.requests().find((x) => x.path === '/v1/videos/extensions')!.body!);
    expect(body.duration).toBe(4);
    expect(body.video.url.startsWith('data:video/mp4;base64,')).toBe(true);
  });

  it('edit passes a URL through and can wait', async () => {
    const out = join(dir, 'edited.mp4');
    emu.clearRequests();
    const r = await svcInProcess(
      ['videos', 'edit', 'black and white', '--video', 'https://example.com/v.mp4', '-o', out, ...POLL],
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(emu.requests().find((x) => x.path === '/v1/videos/edits')!.body!).video).toEqual({
      url: 'https://example.com/v.mp4',
    });
    expect(existsSync(out)).toBe(true);
  });

  it('an unknown request id exits 5', async () => {
    const r = await svcInProcess(['videos', 'get', 'nope'], { emu });
    expect(r.exitCode).toBe(5);
  });
});

describe('limits checked before sending (exit 2, nothing sent)', () => {
  const cases: [string, string[], RegExp][] = [
    ['generate --duration 0', ['generate', 'x', '--duration', '0'], /--duration: 0 .*1 to 15/],
    ['generate --duration 16', ['generate', 'x', '--duration', '16'], /--duration: 16 .*1 to 15/],
    [
      'extend --duration 1',
      ['extend', 'x', '--video', 'https://e.com/v.mp4', '--duration', '1'],
      /--duration: 1 .*2 to 10/,
    ],
    [
      'extend --duration 11',
      ['extend', 'x', '--video', 'https://e.com/v.mp4', '--duration', '11'],
      /--duration: 11 .*2 to 10/,
    ],
    ['--resolution 4k', ['generate', 'x', '--resolution', '4k'], /--resolution: 4k .*480p, 720p, 1080p/],
    ['--aspect-ratio 5:4', ['generate', 'x', '--aspect-ratio', '5:4'], /--aspect-ratio: 5:4 .*one of 16:9/],
    ['edit without --video', ['edit', 'x'], /--video: required/],
    ['extend with a missing video file', ['extend', 'x', '--video', '/nonexistent/v.mp4'], /no such file/],
    ['--image that is not there', ['generate', 'x', '--image', '/nonexistent/first.png'], /--image: .*no such file/],
    ['--poll-interval 0', ['wait', 'abc', '--poll-interval', '0'], /--poll-interval: 0 .*0.1 to 60/],
  ];
  for (const [name, args, msg] of cases) {
    it(name, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['videos', ...args], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(msg);
      expect(emu.requests()).toHaveLength(0);
    });
  }

  it('-o onto an existing file without --force', async () => {
    const out = join(dir, 'exists.mp4');
    writeFileSync(out, 'x');
    emu.clearRequests();
    const r = await svcInProcess(['videos', 'generate', 'x', '-o', out], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/exists\.mp4 already exists/);
    expect(emu.requests()).toHaveLength(0);
  });
});
