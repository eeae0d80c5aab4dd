// messages and responses create stream like chat: Markdown rendered on a terminal with colour (raw with --raw and
// in a pipe), and the streamed answer and its usage go into the call log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcOnTerminal } from '../../helpers/terminal.js';
import { tempDir } from '../../helpers/files.js';

const ANSWER = [
  '## Release notes',
  '',
  '- first item',
  '- second item',
  '',
  '```js',
  'const answer = 42;',
  '```',
  '',
].join('\n');
const PROMPT = `Repeat this:\n~~~markdown\n${ANSWER}~~~\n`;
const COLOR = { NO_COLOR: '' };
const COMMANDS: [string, string[]][] = [
  ['messages --stream', ['messages', '--stream', '--no-save']],
  ['responses create', ['responses', 'create', '--no-store']],
];

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('streamed answers of messages and responses create', () => {
  for (const [name, args] of COMMANDS) {
    it(`${name}: rendered on a terminal, raw with --raw and in a pipe`, async () => {
      const t = await svcOnTerminal([...args, PROMPT], { emu, env: COLOR });
      expect(t.exitCode, t.screen).toBe(0);
      expect(t.screen).toMatch(/\x1b\[[0-9;]*m/); // styled
      const plain = t.screen.replace(/\x1b\[[0-9;]*m/g, '');
      expect(plain).toMatch(/^Release notes\r?$/m);
      expect(plain).toContain('• first item');
      expect(plain).not.toContain('```');
      const raw = await svcOnTerminal([...args, '--raw', PROMPT], { emu, env: COLOR });
      expect(raw.screen).toContain('## Release notes');
      const pipe = await svcInProcess([...args, PROMPT], { emu });
      expect(pipe.exitCode).toBe(0);
      expect(pipe.stdout.toString()).toBe(`${ANSWER.replace(/\n+$/, '')}\n`);
    });

    it(`${name}: the streamed answer and its tokens are in the call log`, async () => {
      const configDir = tempDir();
      const r = await svcInProcess([...args, 'say hello to the log'], { emu, configDir });
      expect(r.exitCode, r.stderr).toBe(0);
      const logs = await svcInProcess(['logs', '--json'], { emu, configDir });
      expect(logs.exitCode, logs.stderr).toBe(0);
      const records = logs.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const call = records.find((x) => x.method === 'POST');
      expect(call, logs.stdout).toBeDefined();
      expect(call.answer).toContain('say hello to the log');
      expect(JSON.stringify(call)).toMatch(/"(output_tokens|completion_tokens)":[1-9]/);
    });
  }
});
