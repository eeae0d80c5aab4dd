// svc audio test --aec: the echo path of the user's devices measured, through the simulated room of the full-duplex
// tests (test/commands/realtime/echo-room.ts): the real `speaker` package plays into ALSA's file plugin, a fake
// `arecord` plays those samples through a room (60 ms later at -10 dB, reflections, a tail) with -60 dBFS noise and
// records at real time. Nothing is sent to the API.
import { describe, expect, it } from 'vitest';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcProcess } from '../../helpers/subprocess.js';
import { needSpeaker } from '../../helpers/tools.js';
import { room } from '../realtime/echo-room.js';

describe.concurrent('svc audio test --aec', () => {
  it('an open speaker: the echo found 60+ ms after the write, cancelled by 25 dB or more, verdict good', async () => {
    needSpeaker();
    // a process: the native speaker reads ALSA's configuration from the process's environment
    // the probe's default length, 8 s: the ERLE is measured over its second half
    const r = await svcProcess(['audio', 'test', '--aec', '--json'], {
      env: room(0, 24_000, 0).env,
      timeout: 30_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const got = JSON.parse(r.stdout);
    const said = JSON.stringify(got);
    // the room's 60 ms after the device's own start (its buffer, ALSA's file plugin, the fake card's 20 ms tick)
    expect(got.delay_ms, said).toBeGreaterThanOrEqual(55);
    expect(got.delay_ms, said).toBeLessThan(500);
    // 8 s are too few to measure a drift (it was none here): not claimed
    expect(got.drift_ppm, said).toBeNull();
    expect(got.echo_dbfs - got.noise_dbfs, said).toBeGreaterThan(20);
    expect(got.erle_db, said).toBeGreaterThanOrEqual(25);
    expect(got).toMatchObject({ verdict: 'good', input_device: 'default', output_device: 'default' });
    expect(r.stderr).toContain('playing a probe for 8 s');
  });

  it('a speaker the microphone does not hear (headphones): no_echo, the figures still given', async () => {
    needSpeaker();
    const r = await svcProcess(['audio', 'test', '--aec', '--seconds', '4'], {
      env: room(0, 24_000, 0, -120).env,
      timeout: 30_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    // a pipe: one tab-separated row per figure
    const rows = Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')),
    );
    expect(rows.verdict).toBe('no_echo');
    expect(rows.erle_db).toBe('-');
    expect(Number(rows.echo_dbfs) - Number(rows.noise_dbfs)).toBeLessThan(6);
    expect(r.stderr).toContain('the microphone did not hear the speaker');
  });

  it('--seconds under 4 with --aec: exit 2 naming the flag, the value and the range, nothing played', async () => {
    const r = await svcInProcess(['audio', 'test', '--aec', '--seconds', '2']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--seconds.*2.*4 to 30 with --aec/);
  });
});
