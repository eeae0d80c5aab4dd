// Completion scripts: the checked-in files match the command tree, and real shells complete with them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/files.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { needTools } from '../../helpers/tools.js';

const FILES = { bash: 'svc.bash', zsh: '_svc', fish: 'svc.fish', powershell: 'svc.ps1' } as const;

describe('completion scripts', () => {
  for (const [shell, file] of Object.entries(FILES)) {
    it(`completions/${file} matches the command tree (run \`npm run completions\` when this fails)`, async () => {
      const r = await svcInProcess(['completion', shell]);
      expect(r.exitCode).toBe(0);
      expect(readFileSync(join(ROOT, 'completions', file), 'utf8')).toBe(r.stdout);
    });
  }

  const bash = async (line: string) => {
    const words = line.split(' ');
    const script =
      `source ${join(ROOT, 'completions/svc.bash')}; ` +
      `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _svc; printf ` +
      `'%s\\n' "\${COMPREPLY[@]}"`;
    return (await execa('bash', ['-c', script])).stdout.split('\n').filter(Boolean);
  };

  it('bash completes commands, verbs, flags and flag values', async () => {
    expect(await bash('svc mo')).toEqual(['models']);
    expect(await bash('svc models ')).toEqual(expect.arrayContaining(['list', 'ls', 'get']));
    expect(await bash('svc models list --k')).toEqual(['--kind']);
    expect(await bash('svc models list --kind ')).toEqual(['language', 'embedding', 'image', 'video']);
    expect(await bash('svc --json models list --kind e')).toEqual(['embedding']);
    expect(await bash('svc chat --reasoning-effort ')).toEqual(['none', 'low', 'medium', 'high']);
    expect(await bash('svc completion ')).toEqual(['man', 'bash', 'zsh', 'fish', 'powershell']); // its verb, its shells
  });

  it('fish completes with its own completion engine', async () => {
    needTools('fish');
    const run = async (line: string) =>
      (
        await execa('fish', [
          '--no-config',
          '-c',
          `source ${join(ROOT, 'completions/svc.fish')}; complete -C '${line}'`,
        ])
      ).stdout
        .split('\n')
        .map((l) => l.split('\t')[0])
        .filter(Boolean);
    expect(await run('svc models list --kind ')).toEqual(['embedding', 'image', 'language', 'video'].sort());
    expect(await run('svc mod')).toEqual(['models']);
  });
});

describe('man pages', () => {
  it('man/*.1 match the command tree, one page per command (run `npm run completions` when this fails)', async () => {
    const { manPagesOf } = await import('../../../src/commands/completion/script.js');
    const pages = await manPagesOf();
    expect(readdirSync(join(ROOT, 'man')).sort()).toEqual([...pages.keys()].sort());
    for (const [name, page] of pages) expect(readFileSync(join(ROOT, 'man', name), 'utf8'), name).toBe(page);
    expect(pages.get('svc-chat.1')).toMatch(/^\.SS Sampling$/m);
    expect(pages.get('svc-files-list.1')).toContain('Also: \\fBsvc files ls\\fR');
  });

  it('man renders a page without warnings', async () => {
    const r = await execa('man', ['--warnings', '-l', join(ROOT, 'man', 'svc-chat.1')], {
      env: { ...process.env, MANWIDTH: '80', MAN_KEEP_FORMATTING: '' },
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/--temperature/);
    expect(r.stdout).toMatch(/\n {3}Sampling\n/);
  });
});

describe('docs/commands.md', () => {
  it('matches the command tree (run `npm run completions` when this fails)', async () => {
    const { commandsDoc } = await import('../../../src/commands/completion/script.js');
    expect(readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8')).toBe(await commandsDoc());
  });

  it('shows value placeholders as written (`--input <mic|file|->`), enum values once', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8');
    expect(doc).toContain('| `--input <mic\\|file\\|->` |');
    expect(doc).not.toContain('--input, ->');
    expect(doc).toContain('| `--order <order>` | asc or desc (default desc) |');
    expect(doc).not.toMatch(/asc or desc \(default desc\) \(asc, desc\)/);
    // a value placeholder never leaks into the flag lists of the scripts
    for (const file of Object.values(FILES))
      expect(readFileSync(join(ROOT, 'completions', file), 'utf8')).not.toMatch(/[ '"]->[ '"\n]/);
  });
});
