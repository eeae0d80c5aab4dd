// Every command that writes a file goes through the one atomic writer: on failure (server error, stream cut short,
// a write beyond `ulimit -f`, a signal) the user's existing file is untouched and no temp file stays behind. Each run
// here is told to replace the file (--force), so that it gets as far as the failure (the rule without --force:
// atomic-file-overwrite.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { WebSocketServer } from 'ws';
import { encodeWav } from 'svc-formats/audio-codecs';
import { spawnSvc, svcShell } from '../helpers/subprocess.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { tempDir } from '../helpers/files.js';

let emu: TestEmulator;
let ids: { file: string; skill: string; voice: string; agent: string };
const dirs: string[] = [];
const PRECIOUS = 'the user file, not to be touched\n';

/** A directory holding only `name` with known contents. */
function withTarget(name: string): { dir: string; target: string } {
  const dir = tempDir('svc-atomic-cmd-');
  dirs.push(dir);
  const target = join(dir, name);
  writeFileSync(target, PRECIOUS);
  return { dir, target };
}

function expectUntouched(dir: string, target: string): void {
  expect(readFileSync(target, 'utf8')).toBe(PRECIOUS);
  expect(readdirSync(dir)).toEqual([target.slice(dir.length + 1)]);
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The CLI under a shell limit (ulimit -f N: files may not grow beyond N KiB). */
function svcLimited(limitKiB: number, args: string[], input?: string) {
  return svcShell(`ulimit -f ${limitKiB}; svc ${args.map(quote).join(' ')}`, { emu, input, timeout: 60_000 });
}

beforeAll(async () => {
  // realtime answers sent at once: the write that fails is what is looked at, not the answer's pace
  emu = await startTestEmulator({ settings: { videoDelayMs: 50, realtimePace: 0 } });
  const d = tempDir('svc-atomic-src-');
  dirs.push(d);
  writeFileSync(join(d, 'data.txt'), 'x'.repeat(20_000));
  const file = (await svcInProcess(['files', 'upload', join(d, 'data.txt'), '--json'], { emu })).stdout;
  const skillDir = join(d, 'skill');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(skillDir);
  writeFileSync(
    join(skillDir, 'SKILL.md'),
    `---\nname: big-skill\ndescription: a skill with a large file\n---\n${randomBytes(6000).toString('base64')}\n`,
  ); // does not compress below the limit
  const skill = (await svcInProcess(['skills', 'upload', skillDir], { emu })).stdout.trim().split('\t')[0]!;
  writeFileSync(join(d, 'me.wav'), encodeWav(Buffer.alloc(3 * 8000 * 2), { sampleRate: 8000, channels: 1 }));
  const voice = (await svcInProcess(['custom-voices', 'create', join(d, 'me.wav'), '--name', 'me', '--json'], { emu }))
    .stdout;
  const agent = (
    await svcInProcess(
      ['agents', 'create', '--name', 'a', '--instructions', 'y'.repeat(8000), '--json', '--jq', '.agent'],
      { emu },
    )
  ).stdout;
  ids = { file: JSON.parse(file).id, skill, voice: JSON.parse(voice).voice_id, agent: JSON.parse(agent).agent_id };
});
afterAll(async () => {
  await emu.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// The rows run at once: each writes into a folder of its own, and none looks at the emulator's requests
describe.concurrent('a write beyond ulimit -f is an error naming the file; the existing file stays as it was', () => {
  const rows: [string, (t: string) => string[]][] = [
    ['tts say (WebSocket)', (t) => ['tts', 'say', 'hello there, a longer sentence to speak', '-o', t, '--force']],
    ['tts say --rest', (t) => ['tts', 'say', 'hello there, a longer sentence to speak', '--rest', '-o', t, '--force']],
    [
      'tts say --timestamps FILE',
      (t) => [
        'tts',
        'say',
        'timings of a sentence long enough for more than one kilobyte of JSON',
        '-o',
        '/dev/null',
        '--timestamps',
        t,
        '--force',
      ],
    ],
    ['images generate', (t) => ['images', 'generate', 'a red square', '-o', t, '--force']],
    [
      'videos generate --wait',
      (t) => ['videos', 'generate', 'a paper boat', '--wait', '--poll-interval', '0.1', '-o', t, '--force'],
    ],
    ['agents pull -o', (t) => ['agents', 'pull', ids.agent, '-o', t, '--force']],
    ['files download', (t) => ['files', 'download', ids.file, '-o', t, '--force']],
    ['skills download', (t) => ['skills', 'download', ids.skill, '-o', t, '--force']],
    ['custom-voices download', (t) => ['custom-voices', 'download', ids.voice, '-o', t, '--force']],
  ];
  for (const [name, args] of rows) {
    it(name, async () => {
      const { dir, target } = withTarget('out.bin');
      const r = await svcLimited(1, args(target));
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toContain(`cannot write ${target}: disk full or file too large (EFBIG)`);
      expect(r.stderr).not.toMatch(/wrote|connection was lost/);
      expectUntouched(dir, target);
    });
  }

  it('tts stream --output', async () => {
    const a = withTarget('stream.wav');
    const s = await svcLimited(
      1,
      ['tts', 'stream', '-o', a.target, '--force'],
      'a long enough sentence to pass one kilobyte of audio\n',
    );
    expect(s.exitCode, s.stderr).toBe(1);
    expect(s.stderr).toContain('disk full or file too large (EFBIG)');
    expectUntouched(a.dir, a.target);
  });

  it('realtime talk --output', async () => {
    const b = withTarget('answer.wav');
    const clip = join(b.dir, '..', `${b.dir.split('/').pop()}-q.wav`);
    await svcInProcess(['tts', 'say', 'what time is it', '-o', clip, '--sample-rate', '24000'], { emu });
    const t = await svcLimited(1, ['realtime', 'talk', '--input', clip, '--output', b.target, '--force']);
    rmSync(clip, { force: true });
    expect(t.exitCode, t.stderr).toBe(1);
    expect(t.stderr).toContain('disk full or file too large (EFBIG)');
    expectUntouched(b.dir, b.target);
  });
});

describe('a failed request or stream leaves -o FILE untouched', () => {
  it('tts say over the WebSocket: a server error mid-session', async () => {
    const { dir, target } = withTarget('x.mp3');
    const r = await svcInProcess(['tts', 'say', 'hello', '--voice', 'zzzzzzzz', '-o', target, '--force'], { emu });
    expect(r.exitCode).not.toBe(0);
    expectUntouched(dir, target);
  });

  it('tts say --rest: a 500', async () => {
    const { dir, target } = withTarget('x.mp3');
    emu.faults.add({ kind: 'status', status: 500, path: '^/v1/tts$', times: 10 });
    try {
      const r = await svcInProcess(['tts', 'say', 'hello', '--rest', '-o', target, '--force'], {
        emu,
        env: { SVC_MAX_RETRIES: '0' },
      });
      expect(r.exitCode).toBe(7);
    } finally {
      emu.faults.clear();
    }
    expectUntouched(dir, target);
  });

  describe('against a server that cuts the WebSocket short', () => {
    let server: Server;
    let url: string;
    beforeAll(async () => {
      server = createServer((_req, res) =>
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"code":"internal","error":"upgrade refused"}'),
      );
      const wss = new WebSocketServer({ noServer: true });
      server.on('upgrade', (req, socket, head) => {
        if (!req.url?.startsWith('/v1/tts')) {
          socket.end(
            'HTTP/1.1 500 Error\r\ncontent-type: application/json\r\ncontent-length: 40\r\nconnection: ' +
              'close\r\n\r\n{"code":"internal","error":"no session"}',
          );
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws) => {
          ws.once('message', () => {
            ws.send(JSON.stringify({ type: 'audio.delta', delta: Buffer.alloc(3000, 0x55).toString('base64') }));
            ws.send(JSON.stringify({ type: 'audio.delta', delta: Buffer.alloc(3000, 0x55).toString('base64') }));
            setTimeout(() => ws.terminate(), 50);
          });
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it(
      'tts say: audio deltas then a dropped connection without audio.done → exit 1, incomplete, file ' + 'untouched',
      async () => {
        const { dir, target } = withTarget('cut.mp3');
        const r = await svcInProcess(['tts', 'say', 'hello', '-o', target, '--force'], {
          env: { SVC_BASE_URL: url, SVC_API_KEY: 'k-test-cut' },
        });
        expect(r.exitCode, r.stderr).toBe(1);
        expectUntouched(dir, target);
      },
    );

    it('realtime talk --output FILE: the session cannot start → the recording target untouched', async () => {
      const { dir, target } = withTarget('rec.wav');
      const clip = join(dir, '..', `${dir.split('/').pop()}-in.wav`);
      writeFileSync(clip, encodeWav(Buffer.alloc(4800), { sampleRate: 24000, channels: 1 }));
      const r = await svcInProcess(['realtime', 'talk', '--input', clip, '--output', target, '--force'], {
        env: { SVC_BASE_URL: url, SVC_API_KEY: 'k-test-cut', SVC_MAX_RETRIES: '0' },
      });
      rmSync(clip, { force: true });
      expect(r.exitCode, r.stderr).toBe(7);
      expectUntouched(dir, target);
    });
  });

  for (const sig of ['SIGTERM', 'SIGHUP'] as const) {
    it(`tts stream -o FILE: ${sig} mid-stream leaves the existing file and no temp file`, async () => {
      const { dir, target } = withTarget('sig.wav');
      const p = spawnSvc(['tts', 'stream', '-o', target, '--force'], { emu, stdin: 'pipe', timeout: 60_000 });
      p.stdin!.write('first utterance\n\n');
      // the temp file exists once audio arrived; then the signal
      for (let i = 0; i < 500 && readdirSync(dir).length < 2; i++) await new Promise((res) => setTimeout(res, 20));
      expect(readdirSync(dir).length).toBe(2);
      p.kill(sig);
      const r = await p;
      expect(r.exitCode ?? r.signal).not.toBe(0);
      expectUntouched(dir, target);
    });
  }

  // Ctrl-C into a file keeps what arrived (tts stream's keepOnCtrlC): the file is finished with the audio received
  it('tts stream -o FILE: SIGINT once audio arrived keeps that audio in FILE (exit 130), no temp file', async () => {
    const { dir, target } = withTarget('sig.wav');
    const p = spawnSvc(['tts', 'stream', '-o', target, '--force'], { emu, stdin: 'pipe', timeout: 60_000 });
    p.stdin!.write('first utterance\n\n');
    const tempHasAudio = () => readdirSync(dir).some((n) => n !== 'sig.wav' && statSync(join(dir, n)).size > 44 + 1000);
    for (let i = 0; i < 500 && !tempHasAudio(); i++) await new Promise((res) => setTimeout(res, 20));
    expect(tempHasAudio()).toBe(true);
    p.kill('SIGINT');
    const r = await p;
    expect(r.exitCode, String(r.stderr)).toBe(130);
    expect(String(r.stderr)).toContain(`interrupted: kept the audio received so far in ${target}`);
    expect(readFileSync(target).subarray(0, 4).toString()).toBe('RIFF');
    expect(readdirSync(dir)).toEqual(['sig.wav']);
  });
});
