// A barge-in's clear() while the speaker plays: speaker's close() freed the ALSA handle under a native write still
// running on the thread pool, and libasound aborted the whole process (`snd_pcm_bytes_to_frames: Assertion 'pcm'
// failed`; seen once in a CI run's 20-turn duplex conversation). Real ALSA (its null device), in a process of its
// own: an abort there would take the test worker down.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/files.js';
import { nodeProgram } from '../helpers/subprocess.js';
import { needSpeaker } from '../helpers/tools.js';

const ROUNDS = 300;
/**
 * Each round plays ~0.5 s of audio in deltas and clears it after 0-3 ms, as a barge-in would; a write refused
 * after a clear (the old speaker's "write() call after close() call" taken for the sink's) is printed.
 */
const SCRIPT = `
import { openSink } from ${JSON.stringify(join(ROOT, 'dist', 'audio', 'sink.js'))};
const sink = await openSink('speaker', { format: { sampleRate: 24000, channels: 1 } });
const delta = Buffer.alloc(4800);
const failed = new Set();
for (let i = 0; i < ${ROUNDS}; i++) {
  for (let d = 0; d < 5; d++) sink.write(delta).catch((err) => failed.add(err.message));
  await new Promise((r) => setTimeout(r, Math.random() * 3));
  sink.clear();
}
await sink.end().catch((err) => failed.add(err.message));
console.log([...failed].join('\\n') || 'survived');
`;

describe('the speaker cleared mid-write (barge-in)', () => {
  it(`${ROUNDS} clears during playback: the process goes on, its audio ends cleanly`, () => {
    needSpeaker();
    const file = join(tempDir(), 'clear.mjs');
    writeFileSync(file, SCRIPT);
    const env = { ...process.env, ALSA_CONFIG_PATH: join(ROOT, 'test', 'fixtures', 'asound-null.conf') };
    const r = nodeProgram(file, { env, timeout: 60_000 });
    expect(r.stderr).not.toContain('Assertion');
    expect([r.signal, r.status, r.stdout.trim()]).toEqual([null, 0, 'survived']);
  });
});
