// Issue 42 item 16: every place that lists the exit codes lists the same ones, those of the one table
// (src/core/exit-codes.ts); the README's global options are those of `svc help globals`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { GLOBAL_FLAGS } from '../../src/core/global-flags.js';
import { ROOT } from '../helpers/files.js';
import { svcInProcess } from '../helpers/in-process.js';

const CODES = Object.values(ExitCode).sort((a, b) => a - b);
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text of a page's section from its heading to the next heading of the same level. */
function section(page: string, heading: string): string {
  const start = page.indexOf(heading);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const end = page.indexOf('\n## ', start + heading.length);
  return page.slice(start, end < 0 ? undefined : end);
}

describe('exit codes agree everywhere', () => {
  it("the README's table", () => {
    const rows = [...section(readme, '## Exit codes').matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(rows).toEqual(CODES);
  });

  it("docs/scripting.md's list", () => {
    const page = readFileSync(join(ROOT, 'docs', 'scripting.md'), 'utf8');
    const text = section(page, '## Exit codes').replace(/\s+/g, ' ');
    // "0 ok · 1 error (…) · 2 usage …": each code starts the text or follows a ·
    const listed = [...text.matchAll(/(?:^## Exit codes .*?\. |· )(\d+) /g)].map((m) => Number(m[1]));
    expect(listed).toEqual(CODES);
  });

  it("svc --help's footer and svc help exit-codes (text and --json)", async () => {
    const help = await svcInProcess(['--help']);
    const footer = help.stdout.slice(help.stdout.indexOf('Exit codes:')).split('\nMore:')[0]!;
    expect([...footer.matchAll(/(\d+) [a-z]/g)].map((m) => Number(m[1]))).toEqual(CODES);
    for (const line of footer.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    const topic = await svcInProcess(['help', 'exit-codes']);
    expect([...topic.stdout.matchAll(/^ {2}(\d+) +\S/gm)].map((m) => Number(m[1]))).toEqual(CODES);
    const json = await svcInProcess(['help', 'exit-codes', '--json']);
    const rows = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { code: number; name: string });
    expect(rows.map((r) => r.code)).toEqual(CODES);
    for (const r of rows) expect(ExitCode[r.name as keyof typeof ExitCode]).toBe(r.code);
  });
});

describe("the README's global options", () => {
  it('name every option of svc help globals', async () => {
    const text = section(readme, '## Global options');
    const globals = await svcInProcess(['help', 'globals']);
    const flags = GLOBAL_FLAGS.map((f) => /--[\w-]+/.exec(f.flags)![0]);
    for (const f of flags) expect(globals.stdout).toContain(f);
    expect(flags.filter((f) => !text.includes(`\`${f}`) && !text.includes(`/${f}\``))).toEqual([]);
  });
});
