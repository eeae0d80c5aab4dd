// The simulated room's files, shared by the full-duplex echo tests (echo-room.ts) and bench/barge-in.mjs: the
// person's questions as tones, the fake arecord (echo-room.mjs) first on PATH with its config, and ALSA's default
// device writing the speaker's samples to `played` (its file plugin).
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeTones } from 'svc-emulator/tones';

const WORDS = ['hi', 'yes', 'why', 'how', 'what', 'when', 'who', 'sure', 'more', 'less'];

/** what the person asks, turn by turn: short words the emulator hears (tones) */
export const questions = (turns) =>
  Array.from({ length: turns }, (_, i) => `${WORDS[i % WORDS.length]}${i >= WORDS.length ? ' again' : ''}`);

/** svc has printed `count` answers (its transcript's lines): the room's person may ask the next question */
export function answersShown(dir, count) {
  writeFileSync(join(dir, 'answered'), String(count));
}

/** The room's files in `dir`; returns the environment that puts them in place of the sound devices. */
export function writeRoom(dir, { turns, rate, driftPpm = 0, gainDb = -10 }) {
  const played = join(dir, 'played.raw');
  const files = questions(turns).map((q, i) => {
    const f = join(dir, `q${i}.raw`);
    writeFileSync(f, encodeTones(q, rate));
    return f;
  });
  const config = join(dir, 'room.json');
  writeFileSync(
    config,
    JSON.stringify({
      rate,
      played,
      delayMs: 60,
      driftPpm,
      gainDb,
      noiseDb: -60,
      pauseMs: 700,
      answerTimeoutMs: 8000,
      questions: files,
      log: join(dir, 'room.log'),
      answered: join(dir, 'answered'),
      args: join(dir, 'args'),
    }),
  );
  const bin = join(dir, 'arecord');
  writeFileSync(bin, `#!/bin/sh\nexec node "${join(import.meta.dirname, 'echo-room.mjs')}" "$@"\n`);
  chmodSync(bin, 0o755);
  const asound = join(dir, 'asound.conf');
  writeFileSync(
    asound,
    `pcm.nul { type null }\npcm.!default {\n  type file\n  slave.pcm "nul"\n  file "|cat >> ${played}"\n  ` +
      `format "raw"\n}\n`,
  );
  return { PATH: `${dir}:${process.env.PATH}`, ALSA_CONFIG_PATH: asound, ECHO_ROOM: config };
}
