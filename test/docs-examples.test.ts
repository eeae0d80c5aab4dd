// The examples of docs/scripting.md and docs/text.md marked "example: run by test/docs-examples.test.ts" run as
// written (each block one bash script, svc as installed on the PATH) against an emulator, in a folder of their own;
// each must exit 0, and what each shows is checked.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { ROOT, tempDir } from './helpers/files.js';
import { itWithEmulator } from './helpers/emulator.js';
import { svcBinDir, svcShell } from './helpers/subprocess.js';

const withEmu = itWithEmulator();
const MARK = '<!-- example: run by test/docs-examples.test.ts -->\n```sh\n';
const PATH = `${svcBinDir()}:${process.env.PATH}`;

function examples(doc: string): string[] {
  const text = readFileSync(join(ROOT, 'docs', doc), 'utf8');
  return text
    .split(MARK)
    .slice(1)
    .map((rest) => rest.slice(0, rest.indexOf('```')));
}

/** What each block must show on stdout, by a line it starts with. */
const CHECKS: Record<string, (stdout: string, configDir: string, cwd: string) => void> = {
  'svc files list': (out) => {
    expect(out).toContain('{"id":"svc-4","aliases":["svc-latest","svc-4-latest"]}');
    expect(out).toMatch(/^svc-4$/m);
  },
  'svc auth token': (out) => expect(out).toMatch(/^\s*\d+\n"?env"?$/m),
  'svc alias set': (out) => {
    expect(out).toMatch(/^svc-4$/m);
    expect(out).toContain('first\t!svc models list');
  },
  "printf 'What is": (out) => expect(out.match(/This is the emulator's answer/g)).toHaveLength(3),
  "svc chat -x 'a bash": (out, _config, cwd) => {
    expect(readFileSync(join(cwd, 'count.sh'), 'utf8')).toContain("This is the emulator's answer");
    expect(out).toBe('');
  },
  "printf 'Answer": (out) => expect(out).toContain('Answer in one short paragraph.'),
  'svc templates save': (out) => {
    // chat's answer, then batch's two rows (--jq .text), each line of reports.txt under the template's prompt
    expect(out.match(/This is the emulator's answer/g)).toHaveLength(3);
    expect(out).toMatch(/answer to "Summarize:\s+Sales rose\."/);
    expect(out).toMatch(/answer to "Summarize:\s+Costs fell\."/);
    expect(out).toMatch(/^summarize\t/m);
  },
};

describe.concurrent('docs examples', () => {
  for (const doc of ['scripting.md', 'text.md']) {
    const blocks = examples(doc);
    withEmu(`docs/${doc}: ${blocks.length} examples run as written`, async ({ emu }) => {
      expect(blocks.length).toBeGreaterThanOrEqual(3);
      for (const block of blocks) {
        const cwd = tempDir('svc-docs-');
        const configDir = join(cwd, 'config');
        const r = await svcShell(`unset -f svc\n${block}`, { emu, cwd, configDir, env: { PATH } });
        expect(r.exitCode, `${block}\n${r.stderr}`).toBe(0);
        const check = Object.entries(CHECKS).find(([start]) => block.startsWith(start));
        expect(check, `no check for the example starting ${block.split('\n')[0]}`).toBeDefined();
        check![1](r.stdout, configDir, cwd);
      }
    });
  }
});
