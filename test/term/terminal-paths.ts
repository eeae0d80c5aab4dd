// Every command path that shows a spinner or a progress bar, as runnable cases for the terminal tests.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { svcInProcess } from '../helpers/in-process.js';
import { tempDir } from '../helpers/files.js';
import type { TestEmulator } from '../helpers/emulator.js';

export interface LivePath {
  name: string;
  /** the arguments, given a fresh working directory that holds the inputs */
  args: (dir: string) => string[];
}

export interface Inputs {
  clip: string;
  text: string;
  skill: string;
  fileId: string;
}

/** Inputs the paths need: a speech-like clip, a text file, a skill folder, an uploaded file. */
export async function prepareInputs(emu: TestEmulator): Promise<Inputs> {
  const dir = tempDir();
  const clip = join(dir, 'clip.wav');
  execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', clip, 'synth', '6', 'sine', '440']);
  const text = join(dir, 'notes.txt');
  writeFileSync(text, 'x'.repeat(300_000));
  const skill = join(dir, 'skill');
  mkdirSync(skill);
  writeFileSync(join(skill, 'SKILL.md'), '---\nname: demo\ndescription: a demo skill\n---\n');
  const up = await svcInProcess(['files', 'upload', text, '--json'], { emu });
  return { clip, text, skill, fileId: JSON.parse(up.stdout).id };
}

export function livePaths(inp: Inputs): LivePath[] {
  return [
    { name: 'chat --deferred --wait (spinner)', args: () => ['chat', '--deferred', '--wait', 'hi'] },
    {
      name: 'videos generate --wait (spinner, download progress)',
      args: (d) => ['videos', 'generate', 'a cat', '--wait', '-o', join(d, 'v.mp4')],
    },
    { name: 'images generate (spinner)', args: (d) => ['images', 'generate', 'a fox', '-o', join(d, 'fox.png')] },
    { name: 'embed (spinner)', args: () => ['embed', 'a red fox'] },
    { name: 'custom-voices create (spinner)', args: () => ['custom-voices', 'create', inp.clip, '--name', 'me'] },
    { name: 'stt transcribe (spinner)', args: () => ['stt', 'transcribe', inp.clip] },
    { name: 'files upload (progress)', args: () => ['files', 'upload', inp.text] },
    { name: 'files download (progress)', args: (d) => ['files', 'download', inp.fileId, '-o', join(d, 'back.txt')] },
    { name: 'skills upload (progress)', args: () => ['skills', 'upload', inp.skill] },
  ];
}
