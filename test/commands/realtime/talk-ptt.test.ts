// svc realtime talk --push-to-talk on a real terminal (tmux): space toggles talking, releasing commits the turn
// and asks for the answer; `q` quits. The microphone is the real `mic` package reading a fake `arecord` that
// produces silence in real time and speaks a clip when the test says so.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TmuxTerminal } from '../../helpers/terminal.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { clipPcm, fakeArecord, lastSession, spokenIn } from './talk-helpers.js';

let emu: TestEmulator;
const term = new TmuxTerminal();
beforeAll(async () => {
  emu = await startTestEmulator();
  // the answer at once, 150 ms after the commit: what is checked is when frames flow, not the answer's pace
  Object.assign(emu.core.settings, { realtimePace: 0, realtimeResponseDelayMs: 150, realtimeLegacyEvents: 0 });
});
afterAll(async () => {
  term.stop();
  await emu.close();
});

const pane = () => term.read();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(
  what: string,
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  limitMs = 30_000,
): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}; the terminal shows:\n${await pane()}`);
    await sleep(50);
  }
}

describe('svc realtime talk --push-to-talk (on a terminal)', () => {
  it('talks while space is toggled on, commits on release, plays the answer and quits with q', async () => {
    const dir = tempDir('svc-ptt-');
    fakeArecord(dir, clipPcm([{ say: 'push to talk works' }, { silence: 300 }]));
    const out = join(dir, 'answer.wav');
    // frames the fake microphone has produced so far (40 ms each)
    const frames = () => (existsSync(join(dir, 'frames')) ? Number(readFileSync(join(dir, 'frames'), 'utf8')) : 0);
    const latencyLog = join(dir, 'latency.jsonl');
    term.start(['realtime', 'talk', '--push-to-talk', '--output', out, '--latency-log', latencyLog], {
      emu,
      env: { PATH: `${dir}:${process.env.PATH}` },
      cols: 200,
      rows: 50,
    });

    await until('the session to start', async () => (await pane()).includes('hold space to talk'));
    const SILENCE_FRAMES = 25; // 1 s of silence before talking and 1 s after: none of it may be sent
    await until('silence before talking', () => frames() >= SILENCE_FRAMES);
    term.keys('Space');
    await until('talking to start', async () => (await pane()).includes('(talking… release space to send)'));
    writeFileSync(join(dir, 'go'), '');
    await until('the clip to be recorded', () => existsSync(join(dir, 'done')));
    await sleep(300);
    term.keys('Space');
    await until(
      'the answer',
      async () => lastSession(emu).responses[0]?.status === 'completed' && /assistant: .+\n/.test(await pane()),
    );
    const released = frames();
    await until('silence after talking', () => frames() >= released + SILENCE_FRAMES);
    const producedMs = frames() * 40;
    term.keys('q');
    const screen = await term.waitFor(/EXIT=\d+/);
    expect(screen).toContain('EXIT=0');

    const log = lastSession(emu);
    expect(log.session).toMatchObject({ turn_detection: null });
    expect(log.client_events).toEqual(['session.update', 'input_audio_buffer.commit', 'response.create']);
    expect(log.transcripts).toEqual(['push to talk works']);
    // frames flowed only while talking: the clip, not the 2 s of silence produced before and after it (a bound
    // on audio, not on time: a slow machine only lets more silence through the talking window, never outside it)
    expect(log.input_audio_ms).toBeGreaterThan(0);
    expect(log.input_audio_ms).toBeLessThanOrEqual(producedMs - SILENCE_FRAMES * 40);
    const answer = log.responses[0]!.transcript;
    expect(screen).toContain('you: push to talk works');
    expect(screen).toContain(`assistant: ${answer}`);
    expect(await spokenIn(out)).toBe(answer);
    // the turn's latency counts from the release (the commit sent), which the emulator logged as the turn's end
    const turns = readFileSync(latencyLog, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({
      speech_end: 'push_to_talk',
      vad_ms: null,
      response_id: log.responses[0]!.response_id,
    });
    // the emulator waits 150 ms (realtimeResponseDelayMs) after the commit before the first audio
    // (not compared with the emulator's log to the ms here: the tmux polling runs synchronously in the process that
    // hosts the emulator and delays its clock; talk-latency.test.ts makes that comparison)
    expect(turns[0].response_ms).toBeGreaterThanOrEqual(150);
    expect(turns[0].speech_end_to_first_audio_ms).toBe(turns[0].response_ms);
  });
});
