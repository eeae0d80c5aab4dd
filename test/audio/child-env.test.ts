// Secrets stay out of the processes svc starts (issue 25, item 2): ffmpeg and ffprobe read files from anywhere, so
// they get the environment a --tool-cmd gets — without SVC_API_KEY, SVC_WEBHOOK_SECRET, SVC_EMULATOR_ADMIN_TOKEN
// (core/environment.ts childEnvironment). Each is replaced here by a script that writes down the environment it got.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { encodeWav } from 'svc-formats/audio-codecs';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { tempDir } from '../helpers/files.js';
import { registerSecret } from '../helpers/secrets.js';
import { childEnvironment } from '../../src/core/environment.js';

const WEBHOOK_SECRET = 'whsec_child-env-test-secret-0123456789';
const ADMIN_TOKEN = 'child-env-admin-token-0123456789';
registerSecret(WEBHOOK_SECRET);
registerSecret(ADMIN_TOKEN);

let emu: TestEmulator;
let dir: string;
/** a folder with `ffmpeg` and `ffprobe` scripts that write their environment to $dir/<name>.env */
let bin: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = tempDir('svc-child-env-');
  bin = join(dir, 'bin');
  await execa('mkdir', [bin]);
  for (const name of ['ffmpeg', 'ffprobe']) {
    const script = join(bin, name);
    // ffprobe answers like the real one (one audio stream of 1 s); ffmpeg fails: the command stops there
    const answer =
      name === 'ffprobe' ? `echo '{"format":{"duration":"1.0"},"streams":[{"codec_type":"audio"}]}'` : 'exit 1';
    writeFileSync(script, `#!/bin/sh\nenv > ${JSON.stringify(join(dir, `${name}.env`))}\n${answer}\n`);
    chmodSync(script, 0o755);
  }
  const wav = join(dir, 'in.wav');
  writeFileSync(wav, encodeWav(Buffer.alloc(16000), { sampleRate: 16000, channels: 1 }));
  for (const ext of ['aiff', 'flac', 'ogg'])
    await execa('ffmpeg', ['-loglevel', 'error', '-y', '-i', wav, join(dir, `in.${ext}`)]);
});
afterAll(() => emu.close());

const env = () => ({
  PATH: `${bin}:${process.env.PATH}`,
  SVC_WEBHOOK_SECRET: WEBHOOK_SECRET,
  SVC_EMULATOR_ADMIN_TOKEN: ADMIN_TOKEN,
});

/** The environment a fake program was started with. */
function seenBy(name: string): Record<string, string> {
  const file = join(dir, `${name}.env`);
  expect(existsSync(file), `${name} was not started`).toBe(true);
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, '');
  return Object.fromEntries(text.split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

function expectNoSecrets(seen: Record<string, string>): void {
  expect(Object.keys(seen).filter((k) => /^SVC_\w*(API_KEY|SECRET|TOKEN)/.test(k))).toEqual([]);
  expect(JSON.stringify(seen)).not.toContain(emu.key);
  expect(seen.PATH).toContain(bin); // the rest of the environment is kept
}

describe('children get the environment without svc secrets', () => {
  it('ffmpeg converting a file for stt transcribe (execa)', async () => {
    await svcInProcess(['stt', 'transcribe', join(dir, 'in.aiff')], { emu, env: env() });
    expectNoSecrets(seenBy('ffmpeg'));
  });

  it('ffmpeg decoding a file for stt listen (spawn)', async () => {
    await svcInProcess(['stt', 'listen', '--input', join(dir, 'in.flac'), '--no-realtime'], { emu, env: env() });
    expectNoSecrets(seenBy('ffmpeg'));
  });

  it('ffprobe checking a custom voice clip (SVC_FFPROBE)', async () => {
    await svcInProcess(['custom-voices', 'create', join(dir, 'in.ogg'), '--name', 'probe'], {
      emu,
      env: { ...env(), SVC_FFPROBE: join(bin, 'ffprobe') },
    });
    expectNoSecrets(seenBy('ffprobe'));
  });

  it('the rule: svc secrets go, everything else stays', () => {
    expect(
      childEnvironment({
        SVC_API_KEY: 'k',
        SVC_WEBHOOK_SECRET: 's',
        SVC_EMULATOR_ADMIN_TOKEN: 't',
        SVC_BASE_URL: 'https://api.svc.ai',
        HOME: '/home/me',
      }),
    ).toEqual({ SVC_BASE_URL: 'https://api.svc.ai', HOME: '/home/me' });
  });
});
