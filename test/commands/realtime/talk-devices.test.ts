// svc realtime talk with its defaults (--input mic --output speaker), through the real `mic` and `speaker`
// packages: `mic` runs a fake `arecord` (first on PATH) that records a known clip; `speaker` plays into ALSA's
// `file` plugin, which pipes the raw samples to a file for byte comparison.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnSvc } from '../../helpers/subprocess.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { assertNoSecrets } from '../../helpers/secrets.js';
import { answerPcm, lastSession, realTimeEmulator, wavClip } from './talk-helpers.js';
import { needSpeaker } from '../../helpers/tools.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());
beforeEach(() => realTimeEmulator(emu));

/** A directory with a fake `arecord` that "records" `clip`, then stays open like a microphone. */
function fakeArecord(clip: string): string {
  const dir = tempDir('svc-arecord-');
  const bin = join(dir, 'arecord');
  writeFileSync(bin, `#!/bin/sh\necho "$@" > "${dir}/args"\ncat "${clip}"\nexec sleep 120\n`);
  chmodSync(bin, 0o755);
  return dir;
}

/** An ALSA configuration whose default playback device writes raw samples to `out`. */
function alsaToFile(out: string): string {
  const conf = join(tempDir('svc-alsa-'), 'asound.conf');
  writeFileSync(
    conf,
    `pcm.nul { type null }\npcm.!default {\n  type file\n  slave.pcm "nul"\n  file "|cat >> ${out}"\n  ` +
      `format "raw"\n}\n`,
  );
  return conf;
}

describe('svc realtime talk with the microphone and the speaker', () => {
  it('records from the microphone and plays the answer on the speaker', async () => {
    needSpeaker();
    const clip = wavClip('mic.wav', [{ silence: 200 }, { say: 'hello from the microphone' }, { silence: 800 }]);
    const arecordDir = fakeArecord(clip);
    const played = join(tempDir(), 'played.raw');
    const proc = spawnSvc(['realtime', 'talk', '--voice', 'ara'], {
      emu,
      env: { PATH: `${arecordDir}:${process.env.PATH}`, ALSA_CONFIG_PATH: alsaToFile(played) },
      timeout: 45_000,
    });
    let stdout = '';
    // once the answer's transcript is printed, all of its audio has reached the speaker: end with Ctrl-C
    await new Promise<void>((resolve, reject) => {
      proc.stdout!.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (/assistant: .*\n/.test(stdout)) resolve();
      });
      proc.then(() => reject(new Error(`svc ended before answering: ${stdout}`)), reject);
    });
    proc.kill('SIGINT');
    const r = await proc;
    const stderr = String(r.stderr);
    assertNoSecrets(stdout + stderr, 'talk mic/speaker');
    expect(r.exitCode).toBe(0);
    const log = lastSession(emu);
    expect(log.transcripts).toEqual(['hello from the microphone']);
    const answer = log.responses[0]!.transcript;
    expect(stdout).toBe(`you: hello from the microphone\nassistant: ${answer}\n`);
    expect(stderr).toContain('(ending the session; Ctrl-C again to quit at once)');
    // mic asked arecord for the session's format: 24 kHz, mono, 16-bit
    expect(readFileSync(join(arecordDir, 'args'), 'utf8')).toMatch(/-c 1 -r 24000 -f S16_LE/);
    // the speaker played exactly the answer (ALSA may pad the last period with silence)
    expect(existsSync(played)).toBe(true);
    const bytes = readFileSync(played);
    const expected = answerPcm(answer);
    expect(bytes.length).toBeGreaterThanOrEqual(expected.length);
    expect(bytes.subarray(0, expected.length).equals(expected)).toBe(true);
    expect(bytes.subarray(expected.length).every((b) => b === 0)).toBe(true);
  });
});
