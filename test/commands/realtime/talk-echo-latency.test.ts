// The latency readout with the echo canceller on the capture path (issue 43): svc realtime talk --duplex --json in
// the simulated room of talk-echo.test.ts (a fake arecord, `speaker` into ALSA's file plugin), against the emulator.
// Each turn's svc.turn.latency event gives every stage svc adds, and the capture time is taken before the canceller,
// so capture_to_socket_ms holds the canceller's block (20 ms: its output lags its input by one block) and its work.
// The start-up hold's time is in each record (aec_hold_ms: since the previous record), and the start-up suppressor's
// (aec_suppress_ms).
import { describe, expect } from 'vitest';
import { itWithEmulator } from '../../helpers/emulator.js';
import { converse } from './echo-room.js';
import { realTimeEmulator } from './talk-helpers.js';

const test = itWithEmulator(realTimeEmulator);

const turnEvents = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l.includes('"svc.turn.latency"'))
    .map((l) => JSON.parse(l));

describe('svc realtime talk --aec --json: the latency per stage', () => {
  test('each turn: capture block, canceller, encode, socket out; socket, decode, playback queue in', async ({
    emu,
  }) => {
    const r = await converse(emu, ['--json'], 2, 0, (out) => turnEvents(out).length);
    expect(r.exitCode, r.stderr).toBe(0);
    const turns = turnEvents(r.stdout);
    expect(turns.length).toBeGreaterThanOrEqual(2);
    for (const t of turns) {
      const { out, in: back } = t.stages;
      const said = JSON.stringify(t);
      // the session's 40 ms frames; the canceller's one block of 20 ms and its work
      expect(out.capture_block_ms, said).toBe(40);
      expect(out.canceller_ms, said).toBeGreaterThanOrEqual(20);
      expect(out.encode_ms, said).toBeGreaterThanOrEqual(0);
      expect(out.socket_ms, said).toBeGreaterThanOrEqual(0);
      // the parts make the whole (each rounded to 0.1 ms), and the canceller is inside capture → socket
      const outSum = out.canceller_ms + out.encode_ms + out.socket_ms;
      expect(Math.abs(outSum - t.capture_to_socket_ms), said).toBeLessThanOrEqual(0.3);
      expect(t.capture_to_socket_ms, said).toBeGreaterThanOrEqual(20);
      for (const v of Object.values(back)) expect(v, said).toBeGreaterThanOrEqual(0);
      const backSum = back.socket_ms + back.decode_ms + back.playback_queue_ms;
      expect(Math.abs(backSum - t.first_audio_to_device_ms), said).toBeLessThanOrEqual(0.3);
      expect(t.client_added_ms).toBeCloseTo(t.capture_to_socket_ms + t.first_audio_to_device_ms, 0);
      expect(t.aec_hold_ms, said).toBeGreaterThanOrEqual(0);
      expect(t.aec_suppress_ms, said).toBeGreaterThanOrEqual(0);
    }
    // the start-up hold: nothing before the first answer was handed to the speaker. The first turn's record ends
    // when the speaker's write returned (first_audio_to_device_ms after the first delta): the canceller's reference
    // is placed when svc writes, so a frame captured after that and before the return (the device's opening) may be
    // held, and the frame across the write too (a loaded run held 80 ms there). While the answer played (in the
    // second turn's record) the microphone was held down while the canceller learnt the room, then let go
    expect(turns[0].aec_hold_ms, JSON.stringify(turns[0])).toBeLessThanOrEqual(
      turns[0].first_audio_to_device_ms + turns[0].stages.out.capture_block_ms,
    );
    expect(turns[1].aec_hold_ms, JSON.stringify(turns[1])).toBeGreaterThan(0);
    expect(turns[1].aec_hold_ms, JSON.stringify(turns[1])).toBeLessThan(8000);
  });
});
