// svc realtime talk with files and pipes: the answer's audio and transcripts, --json, stdout audio, G.711,
// agents, the model flags, and every usage rule (exit 2, nothing sent).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { alawDecode, alawEncode, decodeAudio } from 'svc-formats/audio-codecs';
import { decodeTones } from 'svc-emulator/tones';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcBytes } from '../../helpers/subprocess.js';
import { tempDir, writeTemp } from '../../helpers/files.js';
import { clipPcm, fastEmulator, lastSession, questionClip, spokenIn, talking, ulawClip } from './talk-helpers.js';

let emu: TestEmulator;
let question: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  question = questionClip();
});
afterAll(() => emu.close());
beforeEach(() => fastEmulator(emu));

// The tests that talk run at once, each against an emulator of its own (`talking`: talk-helpers.ts).
describe.concurrent('svc realtime talk (files and pipes): sessions', () => {
  talking(
    'answers a spoken question: the answer audio decodes to the answer text, both transcripts printed',
    async ({ emu }) => {
      const out = join(tempDir(), 'answer.wav');
      const r = await svcInProcess(['realtime', 'talk', '--input', question, '--output', out], { emu });
      expect(r.exitCode, String(r.stderr)).toBe(0);
      const log = lastSession(emu);
      const answer = log.responses[0]!.transcript;
      expect(answer).toMatch(/^You said: what is the weather\. /);
      expect(r.stdout).toBe(`you: what is the weather\nassistant: ${answer}\n`);
      expect(await spokenIn(out)).toBe(answer);
      const { format } = await decodeAudio(readFileSync(out));
      expect(format).toEqual({ sampleRate: 24000, channels: 1 });
      expect(r.stderr).toContain('at real time (not while the assistant speaks)'); // half-duplex
      expect(r.stderr).toContain('ended (the input ended; 1 answer)');
      // the session was configured before audio flowed, with the defaults of the flags
      expect(log.client_events[0]).toBe('session.update');
      expect(log.session).toMatchObject({
        model: 'voice-latest',
        turn_detection: { type: 'server_vad' },
        audio: { input: { format: { type: 'audio/pcm', rate: 24000 } } },
      });
      const ws = emu
        .requests()
        .filter((q) => q.method === 'WS')
        .at(-1)!;
      expect(ws.path).toBe('/v1/realtime');
    },
  );

  talking('--json prints every server event as one JSON line (audio as its byte count)', async ({ emu }) => {
    const r = await svcInProcess(
      ['realtime', 'talk', '--input', question, '--output', join(tempDir(), 'a.pcm'), '--json'],
      { emu },
    );
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('session.created');
    expect(types).toContain('session.updated');
    expect(events.find((e) => e.type === 'conversation.item.input_audio_transcription.completed').transcript).toBe(
      'what is the weather',
    );
    const delta = events.find((e) => e.type === 'response.output_audio.delta');
    expect(delta.delta).toBeUndefined();
    expect(delta.delta_bytes).toBeGreaterThan(0);
    expect(events.find((e) => e.type === 'response.done').response.status).toBe('completed');
    // the server's events carry their event_id; svc's own (svc.turn.latency: talk-latency.test.ts) have none
    const own = events.filter((e) => e.type.startsWith('svc.'));
    expect(own.map((e) => e.type)).toEqual(['svc.turn.latency']);
    expect(events.filter((e) => !own.includes(e)).every((e) => typeof e.event_id === 'string')).toBe(true);
  });

  talking(
    '--output - writes the answer as WAV on stdout and the transcript on stderr; legacy audio events are ' +
      'played too',
    async ({ emu }) => {
      emu.core.settings.realtimeLegacyEvents = 1;
      const r = await svcBytes(
        ['realtime', 'talk', '--input', question, '--output', '-', '--voice', 'rex', '--instructions', 'Be brief'],
        { emu },
      );
      const stderr = r.stderr;
      expect(r.exitCode, String(r.stderr)).toBe(0);
      const file = writeTemp('stdout.wav', Buffer.from(r.stdout));
      const answer = lastSession(emu).responses[0]!.transcript;
      expect(await spokenIn(file)).toBe(answer);
      expect(stderr).toContain(`you: what is the weather\nassistant: ${answer}\n`);
      expect(lastSession(emu).session).toMatchObject({ voice: 'rex', instructions: 'Be brief' });
    },
  );

  talking('speaks G.711 mu-law with --audio-format pcmu (raw .ulaw in, .ulaw out at 8 kHz)', async ({ emu }) => {
    const input = ulawClip('q.ulaw', [{ say: 'call me back' }, { silence: 300 }]);
    const out = join(tempDir(), 'answer.ulaw');
    const r = await svcInProcess(['realtime', 'talk', '--input', input, '--output', out, '--audio-format', 'pcmu'], {
      emu,
    });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toContain('you: call me back\n');
    const log = lastSession(emu);
    expect(log.session).toMatchObject({
      audio: { input: { format: { type: 'audio/pcmu' } }, output: { format: { type: 'audio/pcmu' } } },
    });
    expect(await spokenIn(out, { encoding: 'mulaw', sampleRate: 8000 })).toBe(log.responses[0]!.transcript);
  });

  talking(
    'reads raw audio in the session format from stdin (--input -), here G.711 A-law with ' + '--audio-format pcma',
    async ({ emu }) => {
      const input = writeTemp('q.alaw', alawEncode(clipPcm([{ say: 'from a pipe' }, { silence: 300 }], 8000)));
      const out = join(tempDir(), 'answer.alaw');
      const r = await svcInProcess(['realtime', 'talk', '--input', '-', '--output', out, '--audio-format', 'pcma'], {
        emu,
        inputFile: input,
      });
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(r.stdout).toContain('you: from a pipe\n');
      const answer = lastSession(emu).responses[0]!.transcript;
      expect(decodeTones(alawDecode(readFileSync(out)), 8000)).toBe(answer);
    },
  );

  talking(
    'configures the session from a stored agent (instructions, voice, tools, VAD); flags win over ' + 'the agent',
    async ({ emu }) => {
      const created = await fetch(`${emu.url}/v1/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'desk',
          instructions: 'You are the front desk',
          voice: { voice_id: 'sal', vad_threshold: 0.3, vad_silence_duration_ms: 400 },
          tools: [
            {
              type: 'function',
              function: {
                name: 'lookup',
                description: 'find',
                parameters: { type: 'object', properties: { q: { type: 'string' } } },
              },
            },
          ],
        }),
      });
      const { agent } = (await created.json()) as { agent: { agent_id: string } };
      const r = await svcInProcess(
        [
          'realtime',
          'talk',
          '--agent',
          agent.agent_id,
          '--voice',
          'leo',
          '--input',
          question,
          '--output',
          join(tempDir(), 'a.wav'),
        ],
        { emu },
      );
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(lastSession(emu).session).toMatchObject({
        instructions: 'You are the front desk',
        voice: 'leo',
        turn_detection: { type: 'server_vad', threshold: 0.3, silence_duration_ms: 400 },
        tools: [
          {
            type: 'function',
            name: 'lookup',
            description: 'find',
            parameters: { type: 'object', properties: { q: { type: 'string' } } },
          },
        ],
      });
      const missing = await svcInProcess(
        ['realtime', 'talk', '--agent', 'agent_nope', '--input', question, '--output', join(tempDir(), 'a.wav')],
        { emu },
      );
      expect(missing.exitCode, String(missing.stderr)).toBe(5);
      expect(missing.stderr).toMatch(/agent_nope.*HTTP 404/);
    },
  );

  talking(
    'sends --model and --reasoning-effort on the connection, and warns that voice-2.0 is deprecated',
    async ({ emu }) => {
      emu.clearRequests();
      const r = await svcInProcess(
        [
          'realtime',
          'talk',
          '--model',
          'voice-2.0',
          '--reasoning-effort',
          'none',
          '--input',
          question,
          '--output',
          join(tempDir(), 'a.wav'),
        ],
        { emu },
      );
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(r.stderr).toContain('warning: the model voice-2.0 is deprecated');
      const ws = emu.requests().find((q) => q.method === 'WS')!;
      expect(ws.query).toMatchObject({ model: 'voice-2.0', 'reasoning.effort': 'none' });
      expect(lastSession(emu)).toMatchObject({ model: 'voice-2.0', reasoning_effort: 'none' });
    },
  );
});

describe('svc realtime talk (files and pipes): keys and usage errors', () => {
  it('fails clearly without an API key and on a wrong key', async () => {
    const none = await svcInProcess(['realtime', 'talk', '--input', question, '--output', join(tempDir(), 'a.wav')], {
      emu,
      key: null,
    });
    expect(none.exitCode, String(none.stderr)).toBe(4);
    expect(none.stderr).toContain('no API key');
    const wrong = await svcInProcess(['realtime', 'talk', '--input', question, '--output', join(tempDir(), 'a.wav')], {
      emu,
      key: 'svc-wrong-key-123456789',
    });
    expect(wrong.exitCode, String(wrong.stderr)).toBe(4);
    expect(wrong.stderr).toContain('Incorrect API key');
  });

  const usage: [string, string[], RegExp][] = [
    [
      'an unknown model',
      ['--model', 'voice-9'],
      /--model: voice-9 is not allowed: one of voice-latest, voice-3.0, voice-2.0/,
    ],
    [
      'an unknown reasoning effort',
      ['--reasoning-effort', 'low'],
      /--reasoning-effort: low is not allowed: one of high, none/,
    ],
    [
      'an unknown audio format',
      ['--audio-format', 'opus'],
      /--audio-format: opus is not allowed: one of pcm, pcmu, pcma/,
    ],
    [
      'an unknown voice',
      ['--voice', 'bob'],
      /--voice: bob is not allowed: a built-in voice \(eve, ara, rex, sal, leo, any case\)/,
    ],
    [
      'a VAD threshold above 1',
      ['--vad-threshold', '1.5'],
      /--vad-threshold: 1.5 is not allowed: a number from 0 to 1/,
    ],
    [
      'a VAD silence above 10000 ms',
      ['--vad-silence-ms', '10001'],
      /--vad-silence-ms: 10001 is not allowed: a whole number from 0 to 10000/,
    ],
    ['a tool timeout of 0', ['--tool-timeout', '0'], /--tool-timeout: 0 is not allowed: a number from 1 to 600/],
    [
      'a missing input file',
      ['--input', '/nonexistent/q.wav'],
      /--input: \/nonexistent\/q.wav is not allowed: mic, - \(stdin\) or an existing audio file/,
    ],
    [
      'push-to-talk without a terminal',
      ['--push-to-talk'],
      /--push-to-talk: without a terminal is not allowed: a terminal on stdin/,
    ],
    [
      'push-to-talk with --duplex',
      ['--push-to-talk', '--duplex'],
      /--push-to-talk: with --duplex is not allowed: one of --push-to-talk or --duplex/,
    ],
    [
      'push-to-talk with a file input',
      ['--push-to-talk', '--input', 'QUESTION'],
      /--push-to-talk: with --input .* is not allowed: the microphone as input/,
    ],
    ['a malformed --tool-cmd', ['--tool-cmd', 'nocommand'], /--tool-cmd: nocommand is not allowed: NAME=COMMAND/],
  ];
  for (const [what, args, message] of usage) {
    it(`rejects ${what} before sending anything (exit 2)`, async () => {
      emu.clearRequests();
      const r = await svcInProcess(
        [
          'realtime',
          'talk',
          ...args.map((a) => (a === 'QUESTION' ? question : a)),
          '--output',
          join(tempDir(), 'a.wav'),
        ],
        { emu },
      );
      expect(r.exitCode, String(r.stderr)).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(emu.requests()).toHaveLength(0);
    });
  }

  it('rejects a tool file that is not a function tool, and duplicate tool names', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ type: 'function', function: { name: 'has space' } }));
    writeFileSync(
      join(dir, 'ok.json'),
      JSON.stringify({ type: 'function', name: 'lookup', parameters: { type: 'object' } }),
    );
    emu.clearRequests();
    const bad = await svcInProcess(['realtime', 'talk', '--tool', join(dir, 'bad.json'), '--input', question], { emu });
    expect(bad.exitCode, String(bad.stderr)).toBe(2);
    expect(bad.stderr).toContain('a function tool {type: "function", name, description, parameters}');
    const dup = await svcInProcess(
      ['realtime', 'talk', '--tool', join(dir, 'ok.json'), '--tool', join(dir, 'ok.json'), '--input', question],
      { emu },
    );
    expect(dup.exitCode, String(dup.stderr)).toBe(2);
    expect(dup.stderr).toContain('--tool: lookup is not allowed: tool names that are unique');
    expect(emu.requests()).toHaveLength(0);
  });
});
