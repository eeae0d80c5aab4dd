// -x/--extract and --extract-last on chat, responses create and messages: the code block alone, streamed or not,
// in a pipe and on a real terminal (as written, never rendered as Markdown); refused with --json, -i, -n > 1.
import { describe, expect } from 'vitest';
import { itWithEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcOnTerminal } from '../../helpers/terminal.js';

const withEmu = itWithEmulator();

/** A prompt the emulator answers with the text of its ```markdown block (packages/emulator/src/text/generate.ts). */
const PROMPT =
  '~~~~markdown\nTwo ways:\n\n```python\nprint("**first**")\n```\n\nor in the shell:\n\n```sh\necho last\n```\n' +
  'Done.\n~~~~';

describe.concurrent('-x/--extract', () => {
  withEmu('chat: the first block in a pipe, streamed and not; --extract-last the last', async ({ emu }) => {
    for (const extra of [[], ['--no-stream']]) {
      const first = await svcInProcess(['chat', '-x', ...extra, PROMPT], { emu });
      expect(first.exitCode, first.stderr).toBe(0);
      expect(first.stdout).toBe('print("**first**")\n');
      const last = await svcInProcess(['chat', '--extract-last', ...extra, PROMPT], { emu });
      expect(last.stdout).toBe('echo last\n');
    }
    // no block: the whole answer
    const plain = await svcInProcess(['chat', '-x', 'hello'], { emu });
    expect(plain.stdout).toMatch(/^This is the emulator's answer to "hello"\..*\n$/);
  });

  withEmu('responses create and messages, streamed and not', async ({ emu }) => {
    const runs = [
      ['responses', 'create', '-x', PROMPT],
      ['responses', 'create', '-x', '--no-stream', PROMPT],
      ['messages', '-x', PROMPT],
      ['messages', '-x', '--stream', PROMPT],
    ];
    for (const args of runs) {
      const r = await svcInProcess(args, { emu });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout, args.join(' ')).toBe('print("**first**")\n');
    }
  });

  withEmu('on a terminal with colour: the block as written, not rendered as Markdown', async ({ emu }) => {
    const r = await svcOnTerminal(['chat', '-x', PROMPT], { emu, cols: 80, env: { NO_COLOR: undefined } });
    expect(r.exitCode, r.screen).toBe(0);
    expect(r.screen).toContain('print("**first**")');
    expect(r.screen).not.toContain('Two ways');
    expect(r.screen).not.toContain('echo last');
  });

  withEmu('refused with --json, -i, -n 2 and both flags: exit 2, nothing sent', async ({ emu }) => {
    const cases: [string[], string][] = [
      [['chat', '-x', '--json', 'hi'], 'not together with --json'],
      [['chat', '-x', '-i'], 'not with -i'],
      [['chat', '-x', '-n', '2', 'hi'], 'one choice only'],
      [['messages', '-x', '--extract-last', 'hi'], 'not together with --extract-last'],
    ];
    for (const [args, message] of cases) {
      const r = await svcInProcess(args, { emu });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
    }
    expect(emu.requests()).toHaveLength(0);
  });
});
