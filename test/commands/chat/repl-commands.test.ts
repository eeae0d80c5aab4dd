// `svc chat -i` on a real terminal (tmux) against the emulator: the input history kept across runs (per profile, in
// the data folder, private; --no-history) and searched with Ctrl-R; /model's Tab completion and its check against the
// catalogue; /attach, /edit, /copy, /retry, /usage and /mcp.
import { dirname, join } from 'node:path';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { TmuxTerminal } from '../../helpers/terminal.js';
import { itWithEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { ROOT, tempDir } from '../../helpers/files.js';

const it = itWithEmulator();
type Body = { model: string; messages: { role: string; content: unknown }[] };
const chatBodies = (emu: TestEmulator): Body[] =>
  emu
    .requests()
    .filter((r) => r.path === '/v1/chat/completions')
    .map((r) => JSON.parse(r.body!) as Body);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** PATH with node and nothing else of the machine's (no clipboard program), plus `extra` first */
const nodeOnlyPath = (extra?: string) =>
  [extra, dirname(process.execPath), '/usr/bin', '/bin'].filter(Boolean).join(':');

describe.concurrent('svc chat -i: history, /model, and the commands llm and aichat users reach for', () => {
  it('keeps the input history across runs, per profile; Ctrl-R finds an entry; --no-history keeps none', async ({
    emu,
  }) => {
    const term = new TmuxTerminal();
    try {
      const configDir = tempDir();
      term.start(['chat', '-i', '--no-save'], { emu, configDir });
      await term.waitFor('svc chat ·');
      term.keys('what is a tide', 'Enter');
      await term.waitFor('answer to "what is a tide"');
      term.keys('hello again', 'Enter');
      await term.waitFor('answer to "hello again"');
      term.keys('/exit', 'Enter');
      await term.waitFor('EXIT=0');
      const file = join(configDir, 'data', 'history', 'default.jsonl');
      expect(readFileSync(file, 'utf8')).toBe('"what is a tide"\n"hello again"\n"/exit"\n');
      expect(statSync(file).mode & 0o777).toBe(0o600);

      // a new run: Up brings the last entry back; Ctrl-R searches them all
      term.start(['chat', '-i', '--no-save'], { emu, configDir });
      await term.waitFor('svc chat ·');
      term.keys('Up');
      await term.waitFor(/> \/exit$/m);
      term.keys('C-u', 'C-r');
      await term.waitFor("(reverse-i-search)'':");
      term.keys('tid');
      await term.waitFor("(reverse-i-search)'tid': what is a tide");
      emu.clearRequests();
      term.keys('Enter');
      await term.waitFor('answer to "what is a tide"');
      expect(chatBodies(emu)[0]!.messages.at(-1)!.content).toBe('what is a tide');
      // a query nothing matches says so
      term.keys('C-r', 'zzz');
      await term.waitFor("(failed reverse-i-search)'zzz':");
      term.keys('C-g', 'C-u', '/exit', 'Enter');
      await term.waitFor('EXIT=0');

      // --no-history: nothing read (Up brings nothing), nothing written
      const before = readFileSync(file, 'utf8');
      term.start(['chat', '-i', '--no-save', '--no-history'], { emu, configDir });
      await term.waitFor('svc chat ·');
      term.keys('Up', 'secret plans', 'Enter');
      const screen = await term.waitFor('answer to "secret plans"');
      expect(screen).not.toContain('/exitsecret');
      term.keys('/exit', 'Enter');
      await term.waitFor('EXIT=0');
      expect(readFileSync(file, 'utf8')).toBe(before);

      // another profile keeps a history of its own
      term.start(['chat', '-i', '--no-save'], { emu, configDir, env: { SVC_PROFILE: 'work' } });
      await term.waitFor('svc chat ·');
      term.keys('Up', 'for work', 'Enter');
      await term.waitFor('answer to "for work"');
      term.keys('/exit', 'Enter');
      await term.waitFor('EXIT=0');
      expect(readFileSync(join(configDir, 'data', 'history', 'work.jsonl'), 'utf8')).toBe('"for work"\n"/exit"\n');
      expect(readFileSync(file, 'utf8')).toBe(before);
    } finally {
      term.stop();
    }
  });

  it('/model <Tab> completes ids from the catalogue; /model nope is refused at once, nothing sent', async ({ emu }) => {
    const term = new TmuxTerminal();
    try {
      term.start(['chat', '-i', '--no-save'], { emu, configDir: tempDir() });
      await term.waitFor('svc chat · svc-latest');
      term.keys('/model svc-4-m', 'Tab');
      await term.waitFor(/> \/model svc-4-mini$/m);
      term.keys('Enter');
      await term.waitFor('model: svc-4-mini');
      emu.clearRequests();
      term.keys('/model nope', 'Enter');
      const screen = await term.waitFor('/model: nope is not a language model of the catalogue');
      expect(screen).toContain('model unchanged (svc-4-mini)');
      expect(chatBodies(emu)).toEqual([]);
      term.keys('which model', 'Enter');
      await term.waitFor('answer to "which model"');
      expect(chatBodies(emu).map((b) => b.model)).toEqual(['svc-4-mini']);
      term.keys('/exit', 'Enter');
      await term.waitFor('EXIT=0');
    } finally {
      term.stop();
    }
  });

  it('/attach, /edit, /retry, /usage, /copy and /mcp', async ({ emu }) => {
    const dir = tempDir();
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'the tide turns at noon\n');
    const editor = join(dir, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nprintf "written in the editor\\n" > "$1"\n', { mode: 0o755 });
    const bin = tempDir();
    const clipped = join(dir, 'clipboard.txt');
    writeFileSync(join(bin, 'xclip'), `#!/bin/sh\necho "$@" > ${clipped}.args\ncat > ${clipped}\n`, { mode: 0o755 });
    const server = `node ${join(ROOT, 'test', 'fixtures', 'mcp', 'two-tools.mjs')}`;
    const term = new TmuxTerminal();
    try {
      term.start(['chat', '-i', '--no-save'], {
        emu,
        configDir: tempDir(),
        env: { EDITOR: editor, PATH: nodeOnlyPath(bin) },
      });
      await term.waitFor('svc chat ·');
      term.keys(`/attach ${join(dir, 'missing.txt')}`, 'Enter');
      await term.waitFor(/error: \/attach: \S+missing.txt: no such file/);
      term.keys(`/attach ${notes}`, 'Enter');
      await term.waitFor('attached');
      emu.clearRequests();
      term.keys('summarize', 'Enter');
      await term.waitFor('answer to "summarize');
      const sent = chatBodies(emu)[0]!.messages.at(-1)!;
      expect(sent.content).toBe('summarize\n\n<attachment name="notes.txt">\nthe tide turns at noon\n</attachment>');

      term.keys('/edit', 'Enter');
      await term.waitFor('answer to "written in the editor"');

      emu.clearRequests();
      term.keys('/retry', 'Enter');
      await term.waitFor(/answer to "written in the editor"[\s\S]*answer to "written in the editor"/);
      const retried = chatBodies(emu)[0]!.messages;
      expect(retried.filter((m) => m.content === 'written in the editor')).toHaveLength(1);
      expect(retried.at(-1)!.role).toBe('user');

      term.keys('/usage', 'Enter');
      await term.waitFor(/usage of 3 answer\(s\): \d+ prompt \+ \d+ completion = \d+ tokens · \$\d\.\d{6}/);

      term.keys('/copy', 'Enter');
      await term.waitFor('with xclip');
      expect(readFileSync(clipped, 'utf8')).toMatch(/^.*written in the editor/);
      expect(readFileSync(`${clipped}.args`, 'utf8').trim()).toBe('-selection clipboard');
      term.keys('/exit', 'Enter');
      await term.waitFor('EXIT=0');

      // no clipboard program: a clear message, the REPL goes on
      term.start(['chat', '-i', '--no-save'], { emu, configDir: tempDir(), env: { PATH: nodeOnlyPath() } });
      await term.waitFor('svc chat ·');
      term.keys('/copy', 'Enter');
      await term.waitFor('/copy: no answer to copy yet');
      term.keys('hi', 'Enter');
      await term.waitFor('answer to "hi"');
      await pause(100);
      term.keys('/copy', 'Enter');
      await term.waitFor('no clipboard program found (looked for wl-copy, xclip, clip.exe on PATH)');
      term.keys('/mcp', 'Enter');
      await term.waitFor('no MCP tools lent to this chat');
      term.keys('/exit', 'Enter');
      await term.waitFor('EXIT=0');

      // /mcp lists the tools of --mcp's servers
      term.start(['chat', '-i', '--no-save', '--mcp', server], { emu, configDir: tempDir() });
      await term.waitFor('svc chat ·');
      term.keys('/mcp', 'Enter');
      await term.waitFor(/city_facts {2}facts about a city\ndraw_square {2}draws a square/);
      term.keys('/exit', 'Enter');
      await term.waitFor('EXIT=0');
    } finally {
      term.stop();
    }
  });
});
