// Every flag that names a file svc will write is checked when the command line is parsed, before any paid work
// (issue 25, item 13): a missing folder, or a folder where a file goes, is exit 2 naming the flag; nothing is sent.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/files.js';
import { svcInProcess } from '../helpers/in-process.js';

let emu: TestEmulator;
const dir = tempDir();
const missing = join(dir, 'no-such-folder');
const folder = join(dir, 'folder');
const file = join(dir, 'file.txt');
const agent = join(dir, 'agent.json');
const suite = join(dir, 'suite.json');
beforeAll(async () => {
  emu = await startTestEmulator();
  mkdirSync(folder);
  writeFileSync(file, 'x');
  writeFileSync(agent, JSON.stringify({ name: 'desk', instructions: 'answer' }));
  writeFileSync(suite, JSON.stringify({ cases: [{ name: 'greets', turns: [{ text: 'hi' }] }] }));
});
afterAll(() => emu.close());

describe('output paths checked before anything is sent', () => {
  const cases: [string, string[], string, RegExp][] = [
    [
      'tts say --timestamps',
      ['tts', 'say', 'hi', '-o', join(dir, 'a.mp3'), '--timestamps', join(missing, 't.json')],
      '--timestamps',
      /the folder .*no-such-folder does not exist/,
    ],
    [
      'tts say --timestamps DIR',
      ['tts', 'say', 'hi', '-o', join(dir, 'a.mp3'), '--timestamps', folder],
      '--timestamps',
      /folder is a folder/,
    ],
    ['tts say -o', ['tts', 'say', 'hi', '-o', join(missing, 'a.mp3')], '--output', /does not exist/],
    [
      'tts stream --timestamps',
      ['tts', 'stream', '-o', join(dir, 's.mp3'), '--timestamps', join(missing, 't.json')],
      '--timestamps',
      /does not exist/,
    ],
    [
      'realtime talk --output',
      ['realtime', 'talk', '--input', file, '--output', join(missing, 'a.wav')],
      '--output',
      /does not exist/,
    ],
    ['calls join --output', ['calls', 'join', 'rtc_1', '--output', folder], '--output', /is a folder/],
    [
      'agents test -o',
      ['agents', 'test', '--agent-file', agent, suite, '-o', join(missing, 'r.xml')],
      '--output',
      /does not exist/,
    ],
    [
      'agents test --transcripts FILE',
      ['agents', 'test', '--agent-file', agent, suite, '--transcripts', file],
      '--transcripts',
      /file\.txt is not a folder/,
    ],
    ['agents pull -o', ['agents', 'pull', 'agent_1', '-o', join(missing, 'a.json')], '--output', /does not exist/],
  ];
  for (const [name, args, flag, why] of cases) {
    it(name, async () => {
      emu.clearRequests();
      const r = await svcInProcess(args, { emu, input: 'hello\n' });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${flag}`);
      expect(r.stderr).toMatch(why);
      expect(emu.requests()).toEqual([]);
    });
  }
});
