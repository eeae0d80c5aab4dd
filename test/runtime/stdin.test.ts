// stdin and the prompt (docs/scripting.md, "stdin"): a `while read` loop keeps its lines (stdin its shell reads too is
// left to it), a pipe into svc is still joined to the prompt, --no-stdin reads nothing (an idle pipe is not waited
// on), as `< /dev/null` does.
import { describe, expect, it } from 'vitest';
import { itWithEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { svcBinDir, svcShell } from '../helpers/subprocess.js';
import { writeTemp } from '../helpers/files.js';
import { stdinBelongsElsewhere } from '../../src/runtime/stdin.js';

const withEmu = itWithEmulator();
const prompts = (emu: TestEmulator) =>
  emu
    .requests()
    .filter((r) => r.path === '/v1/chat/completions')
    .map((r) => JSON.parse(r.body!).messages.at(-1).content);

describe.concurrent('stdin and the prompt', () => {
  withEmu('a while-read loop over a pipe: every line answered, none swallowed', async ({ emu }) => {
    const r = await svcShell(
      'printf \'q1\\nq2\\nq3\\n\' | while read -r q; do svc chat --no-stream --no-save "$q" | cut -c1-38; done',
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(prompts(emu)).toEqual(['q1', 'q2', 'q3']);
    expect(r.stdout.split('\n')).toHaveLength(3);
  });

  withEmu('a while-read loop over a file (stdin redirected for the loop)', async ({ emu }) => {
    const file = writeTemp('questions.txt', 'first\nsecond\n');
    const r = await svcShell(`while read -r q; do svc chat --no-stream --no-save "$q" >/dev/null; done < ${file}`, {
      emu,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(prompts(emu)).toEqual(['first', 'second']);
  });

  withEmu('a pipe into svc is still joined to the prompt; --no-stdin leaves it', async ({ emu }) => {
    // svc as installed (an executable on the PATH), not the helper's shell function
    const r = await svcShell(
      'unset -f svc; printf "notes\\n" | svc chat --no-stream --no-save summarize >/dev/null && ' +
        'printf "notes\\n" | svc chat --no-stdin --no-stream --no-save summarize >/dev/null',
      { emu, env: { PATH: `${svcBinDir()}:${process.env.PATH}` } },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(prompts(emu)).toEqual(['summarize\n\nnotes', 'summarize']);
  });

  withEmu('a pipe the starting shell reads too is left, with a note; --with-stdin joins it', async ({ emu }) => {
    // the helper's svc is a shell function: in a pipeline it runs in a subshell holding the same pipe
    const r = await svcShell(
      'printf "notes\\n" | svc chat --no-stream --no-save summarize >/dev/null && ' +
        'printf "notes\\n" | svc chat --with-stdin --no-stream --no-save summarize >/dev/null',
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('stdin left unread: the shell that started svc reads the same pipe');
    expect(prompts(emu)).toEqual(['summarize', 'summarize\n\nnotes']);
  });

  withEmu(
    'a template reads a file given as stdin into {{input}}: no "stdin left unread" note (issue 42 item 17)',
    async ({ emu }) => {
      const report = writeTemp('report.txt', 'Sales rose.\nCosts fell.\n');
      const r = await svcShell(
        "svc templates save summarize -s 'You summarize in {{lang}}.' --var lang=English " +
          "'Summarize:\\n\\n{{input}}' && " +
          `svc chat --no-stream --no-save -t summarize --var lang=French < ${report}`,
        { emu },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('stdin left unread');
      expect(prompts(emu)).toEqual(['Summarize:\n\nSales rose.\nCosts fell.']);
    },
  );

  withEmu('--no-stdin does not wait on a pipe left open and idle', async ({ emu }) => {
    const r = await svcShell(
      'exec 3< <(sleep 20); idle=$!; svc chat --no-stdin --no-stream --no-save hi <&3 | cut -c1-9; kill $idle',
      {
        emu,
        timeout: 15_000,
      },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('This is t');
  });

  withEmu('--no-stdin on other commands that read stdin: as from /dev/null', async ({ emu }) => {
    const embed = await svcInProcess(['embed', '--no-stdin'], { emu, input: 'a line\n' });
    expect(embed.exitCode).toBe(2);
    expect(emu.requests()).toHaveLength(0);
    const chat = await svcInProcess(['chat', '--no-stdin', '--no-stream', 'hi'], { emu, input: 'ignored' });
    expect(chat.exitCode, chat.stderr).toBe(0);
    expect(prompts(emu)).toEqual(['hi']);
  });

  it('off Linux the loop check says nothing (no /proc): stdin is the prompt as before, --no-stdin is the way', () => {
    for (const platform of ['darwin', 'win32'] as const) expect(stdinBelongsElsewhere(platform)).toBeUndefined();
  });
});
