// svc completion man: the man pages from the command tree, printed or installed, so that the single executable (which
// ships no man/ folder) has them as the npm install has: the same pages as man/*.1, read by a real man.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { installFolder } from '../../../src/commands/completion/man.js';
import { userManDir } from '../../../src/core/paths.js';
import { ROOT, tempDir } from '../../helpers/files.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { needTools } from '../../helpers/tools.js';

const shipped = readdirSync(join(ROOT, 'man')).sort();
const page = (name: string) => readFileSync(join(ROOT, 'man', name), 'utf8');

describe('svc completion man [command…]', () => {
  it('prints the page npm ships (man/svc-files-list.1; svc.1 with no words) on stdout, nothing on stderr', async () => {
    expect(await svcInProcess(['completion', 'man', 'files', 'list'])).toEqual({
      exitCode: 0,
      stdout: page('svc-files-list.1'),
      stderr: '',
    });
    expect((await svcInProcess(['completion', 'man'])).stdout).toBe(page('svc.1'));
    // an alias names its command's page
    expect((await svcInProcess(['completion', 'man', 'files', 'ls'])).stdout).toBe(page('svc-files-list.1'));
    // its own page is among them, and svc(1) lists completion's verbs
    expect((await svcInProcess(['completion', 'man', 'completion', 'man'])).stdout).toBe(page('svc-completion-man.1'));
  });

  it('man -l - renders the printed page without warnings', async () => {
    needTools('man');
    const printed = await svcInProcess(['completion', 'man', 'chat']);
    const r = await execa('man', ['--warnings', '-l', '-'], {
      input: printed.stdout,
      env: { ...process.env, MANWIDTH: '80', MAN_KEEP_FORMATTING: '' },
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^SVC-CHAT\(1\) +svc manual +SVC-CHAT\(1\)$/m);
    expect(r.stdout).toContain('--temperature');
  });

  it('an unknown command: exit 2 naming it, with the nearest, nothing on stdout', async () => {
    const r = await svcInProcess(['completion', 'man', 'fles', 'lst']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('svc fles lst is no command');
    expect(r.stderr).toContain('did you mean files list?');
    const voices = await svcInProcess(['completion', 'man', 'custom-voices', 'lst']);
    expect(voices.stderr).toContain('did you mean custom-voices list?');
  });
});

describe('svc completion man --install [dir]', () => {
  it('writes every page into the folder (made), lists the files on stdout; again: nothing to write', async () => {
    const dir = join(tempDir('svc-man-'), 'share', 'man', 'man1');
    const r = await svcInProcess(['completion', 'man', '--install', dir]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(shipped);
    for (const name of shipped) expect(readFileSync(join(dir, name), 'utf8'), name).toBe(page(name));
    expect(r.stdout.trim().split('\n').sort()).toEqual(shipped.map((n) => join(dir, n)).sort());
    expect(r.stderr).toContain(`${shipped.length} man pages written into ${dir}`);
    const again = await svcInProcess(['completion', 'man', '--install', dir]);
    expect(again).toMatchObject({ exitCode: 0, stdout: '' });
    expect(again.stderr).toContain(`(${shipped.length} already there)`);
    // a real man finds them there by name
    needTools('man');
    const found = await execa('man', ['-w', 'svc-completion-man'], {
      env: { ...process.env, MANPATH: join(dir, '..') },
    });
    expect(found.stdout).toBe(join(dir, 'svc-completion-man.1'));
  });

  it('a differing page there: exit 2 naming it and --force, nothing written; --force replaces it', async () => {
    const dir = tempDir('svc-man-');
    const theirs = join(dir, 'svc-chat.1');
    writeFileSync(theirs, '.TH SVC-CHAT 1 "" "another svc"\n');
    const r = await svcInProcess(['completion', 'man', '--install', dir]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`--install: 1 page in ${dir} differs from svc's (svc-chat.1); --force replaces them`);
    expect(readdirSync(dir)).toEqual(['svc-chat.1']);
    expect(readFileSync(theirs, 'utf8')).toContain('another svc');
    const forced = await svcInProcess(['completion', 'man', '--install', dir, '--force', '--json']);
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(JSON.parse(forced.stdout)).toEqual({
      dir,
      written: expect.arrayContaining([theirs, join(dir, 'svc.1')]),
      unchanged: 0,
    });
    expect(readFileSync(theirs, 'utf8')).toBe(page('svc-chat.1'));
  });

  it('with no folder: the user man path under $XDG_DATA_HOME or ~/.local/share', async () => {
    const home = tempDir('svc-home-');
    const r = await svcInProcess(['completion', 'man', '--install'], { env: { HOME: home, XDG_DATA_HOME: '' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(statSync(join(home, '.local', 'share', 'man', 'man1', 'svc-chat.1')).isFile()).toBe(true);
    const data = tempDir('svc-data-');
    const x = await svcInProcess(['completion', 'man', '--install'], { env: { HOME: home, XDG_DATA_HOME: data } });
    expect(x.exitCode, x.stderr).toBe(0);
    expect(existsSync(join(data, 'man', 'man1', 'svc.1'))).toBe(true);
  });

  it('--install with command words: exit 2, nothing written', async () => {
    const dir = tempDir('svc-man-');
    const r = await svcInProcess(['completion', 'man', 'chat', '--install', dir]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--install writes every page: drop chat');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('the default folder per platform; on Windows none: man pages do not apply there', () => {
    expect(userManDir({ HOME: '/home/ada' }, 'linux')).toBe('/home/ada/.local/share/man/man1');
    expect(userManDir({ HOME: '/Users/ada', XDG_DATA_HOME: '~/data' }, 'darwin')).toBe('/Users/ada/data/man/man1');
    expect(userManDir({ USERPROFILE: 'C:\\Users\\ada' }, 'win32')).toBeUndefined();
    expect(() => installFolder(true, { USERPROFILE: 'C:\\Users\\ada' }, 'win32')).toThrow(
      /--install: man pages do not apply on Windows/,
    );
    expect(installFolder('C:\\man', {}, 'win32')).toBe('C:\\man');
    expect(installFolder('~/man1', { HOME: '/home/ada' }, 'linux')).toBe('/home/ada/man1');
  });
});
