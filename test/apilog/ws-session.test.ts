// WebSocket sessions in the call log: every socket opened through ctx.ws (realtime talk, calls join, agents test,
// tts stream, stt listen) is one record, built at the ws chokepoint (net/ws → apilog/recorder →
// apilog/ws-session). Checked against what the emulator logged and sent for the same sessions.
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcShell } from '../helpers/subprocess.js';
import { tempDir, writeTemp } from '../helpers/files.js';
import { CallRecorder } from '../../src/apilog/recorder.js';
import { readRecords, type CallRecord } from '../../src/apilog/log.js';
import { encodeWav, interleave } from 'svc-formats/audio-codecs';
import { textToTones } from 'svc-emulator/tones';
import { fastEmulator, lastSession, questionClip, talking } from '../commands/realtime/talk-helpers.js';
import { ANSWER, HostileServer } from '../helpers/hostile-server.js';

let emu: TestEmulator;
let question: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  question = questionClip();
});
afterAll(() => emu.close());
beforeEach(() => fastEmulator(emu));

const records = async (configDir: string, ...args: string[]): Promise<CallRecord[]> => {
  const r = await svcInProcess(['logs', '--json', ...args], { emu, configDir });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout.trim()
    ? r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as CallRecord)
    : [];
};

/** An emulator's request id of the newest WebSocket upgrade on a path. */
const upgradeId = (emu: TestEmulator, path: string): string =>
  (
    emu
      .requests()
      .filter((q) => q.method === 'WS' && q.path === path)
      .at(-1) as { id: string }
  ).id;

/** Token usage summed over the response.done events of a --json transcript. */
function reportedUsage(jsonLines: string): { input_tokens: number; output_tokens: number; total_tokens: number } {
  const sum = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  for (const line of jsonLines.trim().split('\n')) {
    const ev = JSON.parse(line);
    if (ev.type !== 'response.done') continue;
    for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += ev.response.usage[k];
  }
  return sum;
}

// Each test talks to an emulator of its own (`talking`: talk-helpers.ts), so that they run at once: several wait
// seconds on a clip played at real time or on --timeout.
describe.concurrent('WebSocket sessions in the call log', () => {
  talking(
    'a realtime talk session is one record: 101, request id, close code, duration, model, the conversation, ' +
      'the usage the emulator reported',
    async ({ emu }) => {
      const configDir = tempDir();
      const t0 = Date.now();
      const r = await svcInProcess(
        ['realtime', 'talk', '-m', 'voice-3.0', '--input', question, '--output', join(tempDir(), 'a.wav'), '--json'],
        { emu, configDir },
      );
      const elapsed = Date.now() - t0;
      expect(r.exitCode, r.stderr).toBe(0);
      const usage = reportedUsage(r.stdout);
      expect(usage.total_tokens).toBeGreaterThan(0);
      const answer = lastSession(emu).responses[0]!.transcript;
      const [rec, ...more] = await records(configDir);
      expect(more).toEqual([]);
      expect(rec).toMatchObject({
        command: 'realtime talk',
        method: 'WS',
        path: '/v1/realtime',
        status: 101,
        close_code: 1000,
        model: 'voice-3.0',
        request_id: upgradeId(emu, '/v1/realtime'),
      });
      expect(rec!.usage).toEqual(usage);
      expect(rec!.prompt).toBe('what is the weather');
      expect(rec!.answer).toBe(answer);
      expect(rec!.turns).toEqual([
        { role: 'user', text: 'what is the weather' },
        { role: 'assistant', text: answer },
      ]);
      expect(rec!.error).toBeUndefined();
      // the whole session, not the handshake: it lasted at least as long as the clip played at real time
      expect(rec!.duration_ms).toBeGreaterThanOrEqual(1000);
      expect(rec!.duration_ms).toBeLessThanOrEqual(elapsed);

      // logs show prints the conversation; usage counts its tokens
      const show = await svcInProcess(['logs', 'show', rec!.id], { emu, configDir });
      expect(show.exitCode, show.stderr).toBe(0);
      expect(show.stdout).toContain('request\tWS /v1/realtime\n');
      expect(show.stdout).toContain('close code\t1000 (normal)\n');
      expect(show.stdout).toContain(`\nuser:\nwhat is the weather\n\nassistant:\n${answer}\n`);
      const total = (await svcInProcess(['usage', '--json', '--by', 'model'], { emu, configDir })).stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(total.find((g) => g.model === 'voice-3.0')).toMatchObject({
        calls: 1,
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        total_tokens: usage.total_tokens,
      });
    },
  );

  talking(
    'agents test: one record per case session, with the typed user turns, the replies and the tool ' + 'calls',
    async ({ emu }) => {
      const configDir = tempDir();
      const agent = writeTemp(
        'agent.json',
        JSON.stringify({
          name: 'booking',
          instructions: 'You book tables.',
          tools: [
            {
              type: 'function',
              function: {
                name: 'book_table',
                parameters: { type: 'object', properties: { party_size: { type: 'integer' } } },
              },
            },
          ],
        }),
      );
      const suite = writeTemp(
        'suite.yaml',
        [
          'cases:',
          '  - name: greets',
          '    turns:',
          '      - user: "Hello there"',
          '  - name: books',
          '    tools:',
          '      book_table: {reference: R-42}',
          '    turns:',
          '      - user: "book_table party_size 2"',
        ].join('\n'),
      );
      const r = await svcInProcess(['agents', 'test', '--agent-file', agent, suite, '--json'], { emu, configDir });
      expect(r.exitCode, r.stdout + r.stderr).toBe(0);
      const recs = (await records(configDir)).reverse();
      expect(recs.map((x) => [x.command, x.method, x.path, x.status, x.close_code, x.model])).toEqual([
        ['agents test', 'WS', '/v1/realtime', 101, 1000, 'voice-latest'],
        ['agents test', 'WS', '/v1/realtime', 101, 1000, 'voice-latest'],
      ]);
      expect(recs[0]!.prompt).toBe('Hello there');
      expect(recs[0]!.answer).toMatch(/^You said: Hello there\./);
      expect(recs[1]!.turns!.map((t) => t.role)).toEqual(['user', 'tool', 'assistant']);
      expect(recs[1]!.turns![1]!.text).toMatch(/^book_table\(\{.*"party_size":2.*\}\) → \{"reference":"R-42"\}$/);
      for (const x of recs) expect(x.usage!.total_tokens).toBeGreaterThan(0);
    },
  );

  talking(
    'tts stream: the text sent; stt listen: the transcript and the model; both 101 with their ' + 'request ids',
    async ({ emu }) => {
      const configDir = tempDir();
      const out = join(tempDir(), 'spoken.wav');
      const tts = await svcInProcess(['tts', 'stream', '-o', out], {
        emu,
        configDir,
        input: 'hello world\n\nsecond one\n',
      });
      expect(tts.exitCode, tts.stderr).toBe(0);
      const ttsId = upgradeId(emu, '/v1/tts');
      const stt = await svcInProcess(['stt', 'listen', '--input', out, '--no-realtime'], { emu, configDir });
      expect(stt.exitCode, stt.stderr).toBe(0);
      const sttId = upgradeId(emu, '/v1/stt');
      const [listen, stream, ...more] = await records(configDir);
      expect(more).toEqual([]);
      expect(stream).toMatchObject({
        command: 'tts stream',
        method: 'WS',
        path: '/v1/tts',
        status: 101,
        close_code: 1000,
        request_id: ttsId,
      });
      expect(stream!.prompt).toBe('hello world\nsecond one');
      expect(stream!.model).toBeUndefined();
      expect(listen).toMatchObject({
        command: 'stt listen',
        method: 'WS',
        path: '/v1/stt',
        status: 101,
        close_code: 1000,
        request_id: sttId,
        model: 'voice-transcribe-2.0',
      });
      expect(listen!.answer).toBe(stt.stdout.trim());
      expect(listen!.answer).toMatch(/hello world/);
      for (const x of [listen!, stream!]) {
        expect(x.duration_ms).toBeGreaterThanOrEqual(0);
        expect(x.error).toBeUndefined();
        expect(x.usage).toBeUndefined(); // the API reports no usage on these sockets
      }
      const show = await svcInProcess(['logs', 'show', stream!.id], { emu, configDir });
      expect(show.stdout).toContain('\ntext:\nhello world\nsecond one\n');
      expect((await svcInProcess(['logs', 'show', listen!.id], { emu, configDir })).stdout).toContain(
        `\ntranscript:\n${listen!.answer}\n`,
      );
      // the list's PROMPT column (TSV in a pipe): the text sent to TTS, the transcript of STT
      const rows = (await svcInProcess(['logs'], { emu, configDir })).stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t'));
      expect(rows.find((c) => c[1] === 'tts stream')![7]).toBe('hello world second one');
      expect(rows.find((c) => c[1] === 'stt listen')![7]).toMatch(/hello world/);
    },
  );

  talking("stt listen --multichannel: the transcript names each line's channel", async ({ emu }) => {
    const configDir = tempDir();
    const left = textToTones('left', 16000);
    const right = Buffer.concat([Buffer.alloc(3200), textToTones('right', 16000)]);
    const pad = (b: Buffer) => Buffer.concat([b, Buffer.alloc(Math.max(left.length, right.length) - b.length)]);
    const wav = writeTemp(
      'stereo.wav',
      encodeWav(interleave([pad(left), pad(right)]), { sampleRate: 16000, channels: 2 }),
    );
    const r = await svcInProcess(
      ['stt', 'listen', '--input', wav, '--multichannel', '--channels', '2', '--no-realtime'],
      { emu, configDir },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const [rec] = await records(configDir);
    expect(rec!.answer!.split('\n').sort()).toEqual(['[channel 0] left', '[channel 1] right']);
  });

  talking(
    'a refused upgrade is logged with its status, request id and error: an unknown key (400) and an injected ' + '503',
    async ({ emu }) => {
      const configDir = tempDir();
      const bad = await svcInProcess(['tts', 'stream', '-o', join(tempDir(), 'x.mp3')], {
        emu,
        configDir,
        key: 'svc-bad-key-0000',
        input: 'hello\n',
      });
      expect(bad.exitCode).toBe(4);
      // a 503 handshake is retried (--max-retries 1 here): both attempts refused, the record is the last one's
      emu.faults.add({
        kind: 'status',
        status: 503,
        method: 'WS',
        path: '^/v1/stt$',
        message: 'speech is down',
        times: 2,
      });
      const quiet = writeTemp('quiet.raw', Buffer.alloc(3200));
      const down = await svcInProcess(['--max-retries', '1', 'stt', 'listen', '--input', quiet], {
        emu,
        configDir,
      });
      expect(down.exitCode).toBe(7);
      const [stt, tts] = await records(configDir);
      expect(tts).toMatchObject({ method: 'WS', path: '/v1/tts', status: 400, request_id: upgradeId(emu, '/v1/tts') });
      expect(tts!.error).toMatch(/^Incorrect API key provided/);
      expect(JSON.stringify(tts)).not.toContain('svc-bad-key-0000');
      expect(stt).toMatchObject({
        method: 'WS',
        path: '/v1/stt',
        status: 503,
        request_id: upgradeId(emu, '/v1/stt'),
        error: 'speech is down',
      });
      for (const x of [stt!, tts!]) {
        expect(x.close_code).toBeUndefined();
        expect(x.prompt).toBeUndefined();
      }
    },
  );

  talking(
    'an error event and a cut connection are logged with error, the close code and what had arrived',
    async ({ emu }) => {
      const configDir = tempDir();
      const join1 = await svcInProcess(['calls', 'join', 'rtc_nope'], { emu, configDir });
      expect(join1.exitCode).not.toBe(0);
      // the session starts, the answer begins, then the connection is cut
      emu.faults.add({ kind: 'drop', method: 'WS', path: '^/v1/realtime$', afterEvents: 12 });
      const cut = await svcInProcess(['realtime', 'talk', '--input', question, '--output', join(tempDir(), 'a.wav')], {
        emu,
        configDir,
      });
      expect(cut.exitCode).not.toBe(0);
      const [talk, call] = await records(configDir);
      expect(call).toMatchObject({ command: 'calls join', path: '/v1/realtime', status: 101 });
      expect(call!.error).toMatch(/rtc_nope was not found or is not active \(not_found\)/);
      expect(talk).toMatchObject({ command: 'realtime talk', path: '/v1/realtime', status: 101, close_code: 1006 });
      expect(talk!.error).toMatch(/closed the connection \(code 1006\)/);
      expect(talk!.prompt).toBe('what is the weather');
    },
  );

  talking('--no-log and `config set log false` write no record of a session', async ({ emu }) => {
    const configDir = tempDir();
    expect(
      (
        await svcInProcess(['--no-log', 'tts', 'stream', '-o', join(tempDir(), 'a.mp3')], {
          emu,
          configDir,
          input: 'not logged\n',
        })
      ).exitCode,
    ).toBe(0);
    expect((await svcInProcess(['config', 'set', 'log', 'false'], { configDir })).exitCode).toBe(0);
    expect(
      (
        await svcInProcess(['realtime', 'talk', '--input', question, '--output', join(tempDir(), 'a.wav')], {
          emu,
          configDir,
        })
      ).exitCode,
    ).toBe(0);
    expect(readRecords(join(configDir, 'data', 'logs'))).toEqual([]);
  });

  // last and alone, not among the others: the stalled session must read what came before the stall within its 1 s
  it.sequential(
    'against a hostile server: a clean close before the end, a stall past --timeout, a close with an ' + 'error code',
    async () => {
      const server = await HostileServer.start();
      try {
        server.plan('WS /v1/tts', { close: 1000 }).plan('WS /v1/stt', 'stall').plan('WS /v1/realtime', { close: 1011 });
        const configDir = tempDir();
        const opts = { configDir, env: { SVC_BASE_URL: server.url, SVC_API_KEY: 'svc-hostile-key-0000' } };
        expect(
          (await svcInProcess(['tts', 'stream', '-o', join(tempDir(), 'a.mp3')], { ...opts, input: 'hello\n' }))
            .exitCode,
        ).toBe(1);
        expect(
          (await svcInProcess(['--timeout', '1', 'stt', 'listen', '--input', question, '--no-realtime'], opts))
            .exitCode,
        ).not.toBe(0);
        expect(
          (await svcInProcess(['realtime', 'talk', '--input', question, '--output', join(tempDir(), 'a.wav')], opts))
            .exitCode,
        ).not.toBe(0);
        const [talk, stt, tts] = await records(configDir);
        expect(tts).toMatchObject({
          path: '/v1/tts',
          status: 101,
          close_code: 1000,
          prompt: 'hello',
          error: 'the session ended before audio.done: the audio is incomplete',
        });
        expect(stt).toMatchObject({ path: '/v1/stt', status: 101, close_code: 1006, answer: ANSWER[0] });
        expect(stt!.error).toMatch(
          /^the server sent nothing for 1 s \(--timeout 1\): the session stalled; the session ended before transcript.done/,
        );
        expect(talk).toMatchObject({ path: '/v1/realtime', status: 101, close_code: 1011, answer: ANSWER.join('') });
        expect(talk!.error).toBe(
          'the server closed the connection (code 1011: hostile close); the session ended in the middle of an ' +
            'answer (no response.done)',
        );
      } finally {
        await server.close();
      }
    },
  );
});

describe('a session still open when svc exits', () => {
  it(
    'a process that exits in the middle (its pipe closed by `head -1`) still logs the session, as ' + 'interrupted',
    async () => {
      const configDir = tempDir();
      const r = await svcShell(`svc realtime talk --input '${question}' --output /dev/null --json | head -1`, {
        emu,
        configDir,
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).type).toBe('session.created');
      const [rec, ...more] = readRecords(join(configDir, 'data', 'logs'));
      expect(more).toEqual([]);
      expect(rec).toMatchObject({
        command: 'realtime talk',
        method: 'WS',
        path: '/v1/realtime',
        status: 101,
        model: 'voice-latest',
        error: 'svc exited before the session ended (interrupted)',
      });
    },
  );

  it('is logged as interrupted with what had arrived (the answer in progress, the usage so far)', async () => {
    // the events as net/ws hands them to the recorder
    const dataDir = tempDir();
    const rec = new CallRecorder({ SVC_DATA_DIR: dataDir }, 'realtime talk', 30);
    await rec.readySessions();
    const w = rec.onWsOpen({
      path: '/v1/realtime',
      query: { model: 'voice-3.0' },
      status: 101,
      startedAt: Date.now() - 50,
      requestId: 'req-1',
    })!;
    w.sent({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'first' }] },
    });
    w.received({ type: 'response.created', response: { id: 'r1' } });
    w.received({ type: 'response.output_audio_transcript.done', transcript: 'one' });
    w.received({
      type: 'response.done',
      response: { status: 'completed', usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 } },
    });
    w.sent({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'second' }] },
    });
    w.received({ type: 'response.created', response: { id: 'r2' } });
    w.received({ type: 'response.output_text.done', text: 'two' });
    w.received({
      type: 'response.done',
      response: { status: 'completed', usage: { input_tokens: 9, output_tokens: 2, total_tokens: 11 } },
    });
    w.received({ type: 'response.created', response: { id: 'r3' } });
    w.received({ type: 'response.output_audio_transcript.delta', delta: 'three, half' });
    rec.flushNow();
    const [r] = readRecords(join(dataDir, 'logs'));
    // the usage of every response.done so far, summed
    expect(r).toMatchObject({
      method: 'WS',
      status: 101,
      request_id: 'req-1',
      model: 'voice-3.0',
      usage: { input_tokens: 12, output_tokens: 6, total_tokens: 18 },
    });
    expect(r!.duration_ms).toBeGreaterThanOrEqual(50);
    expect(r!.close_code).toBeUndefined();
    expect(r!.error).toBe('svc exited before the session ended (interrupted)');
    expect(r!.turns).toEqual([
      { role: 'user', text: 'first' },
      { role: 'assistant', text: 'one' },
      { role: 'user', text: 'second' },
      { role: 'assistant', text: 'two' },
      { role: 'assistant', text: 'three, half' },
    ]);
  });

  it('texts are capped while collected, like an HTTP record', async () => {
    const dataDir = tempDir();
    const rec = new CallRecorder({ SVC_DATA_DIR: dataDir }, 'tts stream', 30);
    await rec.readySessions();
    const w = rec.onWsOpen({ path: '/v1/tts', status: 101, startedAt: Date.now() })!;
    for (let i = 0; i < 100; i++) w.sent({ type: 'text.delta', delta: 'x'.repeat(1000) });
    w.sent({ type: 'text.done' });
    w.received({ type: 'audio.done' });
    w.ended(1000, undefined, true);
    await rec.flush(async () => undefined);
    const [r] = readRecords(join(dataDir, 'logs'));
    expect(r!.prompt).toHaveLength(8192);
    expect(r!.truncated).toBe(true);
    expect(r!.close_code).toBe(1000);
  });
});
