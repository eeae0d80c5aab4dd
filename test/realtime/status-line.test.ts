// The status line's text at every width (parts give way on a narrow terminal, never wider than the terminal), and
// its drawing: on the row below the cursor, cleared before any other write and drawn again after.
import { describe, expect, it } from 'vitest';
import { NO_COLORS } from '../../src/term/color.js';
import { StatusLine, statusText, type StatusState } from '../../src/realtime/status-line.js';
import type { TurnLatency } from '../../src/realtime/turn-meter.js';

const turn: TurnLatency = {
  type: 'svc.turn.latency',
  turn: 2,
  response_id: 'resp_1',
  speech_end: 'server_vad',
  speech_end_to_first_audio_ms: 812.4,
  vad_ms: 540.2,
  response_ms: 272.2,
  first_audio_to_device_ms: 3.1,
  capture_to_socket_ms: 0.4,
  client_added_ms: 3.5,
  stages: { out: null, in: null },
  aec_hold_ms: null,
  aec_suppress_ms: null,
  server: { audio_start_ms: 100, audio_end_ms: 1500, silence_duration_ms: 500 },
};
const state: StatusState = { levelDb: -30.4, speaker: 'you', muted: false, last: turn };

describe('the status line of realtime talk', () => {
  it('shows the level, who speaks and the last turn; on a narrow terminal the details give way first', () => {
    const wide = statusText(state, NO_COLORS, 200);
    expect(wide).toBe(
      'mic #####..... -30 dB | you are speaking | turn 2: end of speech -> first audio 812 ms ' +
        '(vad 540 ms + server 272 ms), -> device 3 ms',
    );
    expect(statusText(state, NO_COLORS, 110)).toBe(
      'mic #####..... -30 dB | you are speaking | turn 2: end of speech -> first audio 812 ms, -> device 3 ms',
    );
    expect(statusText(state, NO_COLORS, 80)).toBe(
      'you are speaking | turn 2: end of speech -> first audio 812 ms, -> device 3 ms',
    );
    expect(statusText(state, NO_COLORS, 30)).toBe('you are speaking');
    expect(statusText(state, NO_COLORS, 10)).toHaveLength(9);
    for (let cols = 5; cols <= 200; cols++) expect(statusText(state, NO_COLORS, cols).length).toBeLessThan(cols);
  });

  it('says when nobody speaks, when the assistant does (mic muted), and a silent microphone', () => {
    const quiet = { levelDb: Number.NEGATIVE_INFINITY, speaker: 'nobody' as const, muted: false, last: undefined };
    expect(statusText(quiet, NO_COLORS, 80)).toBe('mic .......... -inf dB | listening');
    const answer = { ...quiet, levelDb: -3, speaker: 'assistant' as const, muted: true };
    expect(statusText(answer, NO_COLORS, 80)).toBe('mic ########## -3 dB | assistant is speaking (mic muted)');
  });

  it('shows the clock drift the echo canceller measured (--aec), and gives it way with the level', () => {
    const drifting = { ...state, driftPpm: 208.4 };
    expect(statusText(drifting, NO_COLORS, 200)).toBe(
      'mic #####..... -30 dB | you are speaking | drift +208 ppm | turn 2: end of speech -> first audio 812 ms ' +
        '(vad 540 ms + server 272 ms), -> device 3 ms',
    );
    expect(statusText({ ...drifting, driftPpm: -49.6 }, NO_COLORS, 130)).toContain('| drift -50 ppm |');
    expect(statusText(drifting, NO_COLORS, 80)).not.toContain('drift');
  });

  it('a turn without end of speech (after a tool) shows the time to its first audio', () => {
    const after = { ...turn, speech_end: 'none' as const, speech_end_to_first_audio_ms: null, vad_ms: null };
    expect(statusText({ ...state, last: after }, NO_COLORS, 200)).toMatch(
      /\| turn 2: first audio after 272 ms \(server 272 ms\), -> device 3 ms$/,
    );
  });

  it('draws on the row below, clears it around other writes, and erases it when stopped', () => {
    const written: string[] = [];
    const line = new StatusLine({ write: (t: string) => written.push(t), columns: 80 }, () => state, NO_COLORS);
    line.start(60_000);
    expect(written).toHaveLength(1);
    // down (scrolling at the bottom) and back up, save the cursor, down, the text, clear to the end, restore
    expect(written[0]).toBe(`\u001bD\u001bM\u001b7\u001bD\r${statusText(state, NO_COLORS, 80)}\u001b[K\u001b8`);
    line.draw();
    expect(written).toHaveLength(1); // the same text is not drawn again
    const out = line.wrap({ isTTY: true, write: (t: string) => written.push(`[${t}]`) });
    out.write('assistant: hello');
    expect(written.slice(1)).toEqual(['\u001b7\u001bD\r\u001b[K\u001b8', '[assistant: hello]', written[0]]);
    line.stop();
    expect(written.at(-1)).toBe('\u001b7\u001bD\r\u001b[K\u001b8');
  });

  it('while a question waits (--approve) it is erased and not drawn; drawn again once answered', () => {
    const written: string[] = [];
    const line = new StatusLine({ write: (t: string) => written.push(t), columns: 80 }, () => state, NO_COLORS);
    line.start(60_000);
    const drawn = written[0];
    line.hold(true);
    expect(written.slice(1)).toEqual(['\u001b7\u001bD\r\u001b[K\u001b8']);
    line.draw();
    line.around(() => written.push('[note]'));
    expect(written.slice(2)).toEqual(['[note]']);
    line.hold(false);
    expect(written.at(-1)).toBe(drawn);
    line.stop();
  });
});
