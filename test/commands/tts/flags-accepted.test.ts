// Issue 12 voice items 7 and 8: what the voice commands accept and refuse, and the notes they print.
// tts --language takes any well-formed BCP-47 tag; an empty tts stream is exit 2 before connecting;
// realtime client-secret --session FILE; calls join / realtime talk say what the local audio does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeWav } from 'svc-formats/audio-codecs';
import { textToTones } from 'svc-emulator/tones';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';
import { fastEmulator } from '../realtime/talk-helpers.js';

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = tempDir('svc-voice-flags-');
});
afterAll(() => emu.close());

describe('tts --language', () => {
  for (const [tag, sent] of [
    ['nl', 'nl'],
    ['en-US', 'en-US'],
    ['PT-br', 'pt-BR'],
    ['zh-Hant-TW', 'zh-Hant-TW'],
  ] as const) {
    const note = sent === 'pt-BR' ? ' (the listed spelling)' : ', with a note that it is outside the listed set';
    it(`${tag} is sent as ${sent}${note}`, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['tts', 'say', 'hallo', '--language', tag, '-o', join(dir, `${tag}.wav`)], {
        emu,
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(emu.requests().find((q) => q.path === '/v1/tts')!.query).toMatchObject({ language: sent });
      if (sent === 'pt-BR') expect(r.stderr).not.toContain('note:');
      else expect(r.stderr).toContain(`note: --language ${tag} is not one of the supported languages`);
    });
  }

  it('--rest sends it in the body too', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['tts', 'say', 'hallo', '--rest', '--language', 'nl', '-o', join(dir, 'rest.wav')], {
      emu,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(emu.requests()[0]!.body!)).toMatchObject({ language: 'nl' });
  });
});

describe('tts -o and --codec', () => {
  it('--codec given explicitly wins over an extension svc does not write', async () => {
    const out = join(dir, 'explicit.ogg');
    const r = await svcInProcess(['tts', 'say', 'x', '--codec', 'mp3', '-o', out], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(out)).toBe(true);
  });

  it('realtime talk --output x.flac is exit 2 before anything is sent', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['realtime', 'talk', '--input', '-', '--output', join(dir, 'x.flac')], {
      emu,
      input: '',
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--output: .*x\.flac is not allowed: a file svc can write: \.wav \(default\), \.mp3/);
    expect(emu.requests()).toEqual([]);
  });
});

describe('tts stream with nothing to say', () => {
  for (const input of ['', '\n\n  \n']) {
    it(`stdin ${JSON.stringify(input)}: exit 2, no connection, no file`, async () => {
      emu.clearRequests();
      const out = join(dir, 'empty.mp3');
      const r = await svcInProcess(['tts', 'stream', '-o', out], { emu, input });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('no text on stdin: nothing to speak');
      expect(emu.requests()).toEqual([]);
      expect(existsSync(out)).toBe(false);
    });
  }
});

describe('realtime client-secret --session FILE', () => {
  it('sends the object as `session`', async () => {
    const f = join(dir, 'session.json');
    const session = { instructions: 'You are terse', voice: 'rex', turn_detection: { type: 'server_vad' } };
    writeFileSync(f, JSON.stringify(session));
    emu.clearRequests();
    const r = await svcInProcess(['realtime', 'client-secret', '--session', f, '--expires-after', '60'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(emu.requests()[0]!.body!)).toEqual({ expires_after: { seconds: 60 }, session });
  });

  it('a file that is not one JSON object is exit 2, nothing sent', async () => {
    const f = join(dir, 'list.json');
    writeFileSync(f, '[1, 2]');
    emu.clearRequests();
    const r = await svcInProcess(['realtime', 'client-secret', '--session', f], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--session: .*list\.json is not allowed: a JSON file holding one object/);
    expect(emu.requests()).toEqual([]);
  });
});

describe('the "connected" note says what the local audio does', () => {
  async function startCall(): Promise<string> {
    const res = await fetch(`${emu.url}/_emulator/calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ caller_script: ['hello'] }),
    });
    return ((await res.json()) as { call: { call_id: string } }).call.call_id;
  }

  it('calls join --output FILE: recording, not "no local audio"', async () => {
    fastEmulator(emu);
    const id = await startCall();
    const out = join(dir, 'call.wav');
    const r = await svcInProcess(['calls', 'join', id, '--output', out], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`connected to call ${id} (the agent's audio to ${out}; Ctrl-C ends)`);
    expect(r.stderr).not.toContain('no local audio');
  });

  it('realtime talk --input FILE does not mention a microphone', async () => {
    fastEmulator(emu);
    const clip = join(dir, 'q.wav');
    writeFileSync(
      clip,
      encodeWav(Buffer.concat([textToTones('hi', 24000), Buffer.alloc(24000)]), { sampleRate: 24000, channels: 1 }),
    );
    const r = await svcInProcess(['realtime', 'talk', '--input', clip, '--output', '-'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `connected to session (sending ${clip} at real time (not while the assistant speaks); the answers to ` +
        `stdout; Ctrl-C ends)`,
    );
    expect(r.stderr).not.toContain('microphone');
  });
});
