// Bare `svc`: a short overview of the commands in groups and where to go next, on stdout, exit 0 (as gh does);
// `svc --help`: the whole list, grouped the same way. Both through the launcher (its fast path) and the CLI.
import { describe, expect, it } from 'vitest';
import { COMMAND_GROUPS } from '../src/help.js';
import { rootCommands } from '../src/commands/index.js';
import { svcInProcess } from './helpers/in-process.js';
import { svcProcess } from './helpers/subprocess.js';
import { svcOnTerminal } from './helpers/terminal.js';

const TITLES = ['Text', 'Media', 'Files', 'Voice', 'Agents and phone', 'Tools'];

describe('the command groups', () => {
  it('hold every visible root command exactly once, in the six groups', () => {
    expect(COMMAND_GROUPS.map((g) => g.title)).toEqual(TITLES);
    const grouped = COMMAND_GROUPS.flatMap((g) => g.commands);
    expect(new Set(grouped).size).toBe(grouped.length);
    expect([...grouped].sort()).toEqual(
      rootCommands
        .filter((c) => !c.hidden)
        .map((c) => c.name)
        .sort(),
    );
  });
});

describe('bare svc', () => {
  it('prints the grouped overview on stdout and exits 0 (the launcher, on a pipe)', async () => {
    const r = await svcProcess([]);
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.split('\n');
    for (const title of TITLES) expect(lines.some((l) => l.startsWith(`  ${title}:`))).toBe(true);
    expect(r.stdout).toMatch(/Text: +chat, responses, messages/);
    expect(r.stdout).toContain('svc <command> --help');
    expect(r.stdout).toContain('Every command and option:  svc --help');
    // short: a screen, not the whole list
    expect(lines.length).toBeLessThan(25);
  });

  it('the same with global options alone, in the CLI', async () => {
    const bare = await svcProcess([]);
    const quiet = await svcInProcess(['--quiet']);
    expect([quiet.exitCode, quiet.stderr, quiet.stdout]).toEqual([0, '', bare.stdout]);
  });

  it('fits 40 columns on a terminal, words whole', async () => {
    const { exitCode, screen } = await svcOnTerminal([], { cols: 40 });
    expect(exitCode).toBe(0);
    const lines = screen.replace(/\r/g, '').split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(40);
    expect(screen).toContain('custom-voices');
  });
});

describe('svc --help', () => {
  it('lists every command under its group, in the groups of the overview', async () => {
    for (const r of [await svcProcess(['--help']), await svcInProcess(['help'])]) {
      expect(r.exitCode).toBe(0);
      const heads = r.stdout.split('\n').filter((l) => /^[A-Z][\w ]* commands:$/.test(l));
      expect(heads).toEqual(TITLES.map((t) => `${t} commands:`));
      for (const g of COMMAND_GROUPS) {
        const section = r.stdout.split(`${g.title} commands:\n`)[1]!.split('\n\n')[0]!;
        const names = section.split('\n').flatMap((l) => /^ {2}([\w-]+)/.exec(l)?.[1] ?? []);
        expect(names).toEqual([...g.commands]);
      }
    }
  });
});
