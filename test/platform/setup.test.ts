// `npm run setup` off Debian: scripts/install-system-deps.sh finds apt, dnf, apk or brew (fakes here, on a PATH of
// nothing else) and installs its list of packages with it; with none it prints what to install and exits 0.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/files.js';
import { needSpeakerIn, needToolsOn } from '../helpers/tools.js';

const SCRIPT = join(ROOT, 'scripts/install-system-deps.sh');

/** A PATH holding only the given fake programs (each logs its arguments) and the few real ones the script uses. */
function fakePath(fakes: string[]): { dir: string; log: string } {
  const dir = tempDir();
  const log = join(dir, 'calls.log');
  for (const name of fakes) {
    const file = join(dir, name);
    // a package query says "not installed" (rpm -q, dpkg-query, brew list); everything else succeeds
    writeFileSync(
      file,
      `#!/bin/sh\necho "${name} $*" >> ${log}\ncase "${name} $1" in rpm*|dpkg-query*|'brew list') exit 1;; esac\n`,
    );
    chmodSync(file, 0o755);
  }
  for (const real of ['id', 'grep', 'sh'])
    for (const where of ['/usr/bin', '/bin'])
      if (existsSync(join(where, real)) && !existsSync(join(dir, real)))
        symlinkSync(join(where, real), join(dir, real));
  return { dir, log };
}

const setup = (dir: string, env: NodeJS.ProcessEnv = {}) =>
  execFileSync('/bin/bash', [SCRIPT], { env: { PATH: dir, ...env }, encoding: 'utf8' });

describe('npm run setup on each package manager', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'apt',
      ['apt-get', 'dpkg-query'],
      /^apt-get install -y -qq --no-install-recommends libasound2-dev .*fish tinyproxy-bin gcc libc6-dev$/m,
    ],
    ['dnf', ['dnf', 'rpm'], /^dnf install -y -q alsa-lib-devel .*ffmpeg-free .*fish tinyproxy gcc glibc-devel$/m],
    ['apk', ['apk'], /^apk add --no-cache -q alsa-lib-dev .*fish tinyproxy gcc musl-dev$/m],
    ['brew', ['brew'], /^brew install -q sox espeak-ng ffmpeg tmux zsh fish tinyproxy$/m],
  ];
  for (const [manager, fakes, installs] of cases)
    it(`${manager}: found on PATH, installs its list`, () => {
      const { dir, log } = fakePath(fakes);
      const out = setup(dir);
      expect(out).toContain(`system packages (${manager}): installing`);
      expect(readFileSync(log, 'utf8')).toMatch(installs);
    });

  it('no manager it knows: prints what to install on each, names the missing tools, and exits 0', () => {
    const { dir } = fakePath([]);
    const out = setup(dir);
    expect(out).toContain('no package manager svc knows (apt, dnf, apk, brew)');
    expect(out).toMatch(/Fedora\/RHEL: {3}alsa-lib-devel/);
    expect(out).toMatch(/missing on PATH now: tmux zsh fish ffmpeg sox espeak-ng curl arecord tinyproxy gcc/);
  });

  it('a manager that fails: the same advice, and setup goes on (exit 0)', () => {
    const { dir } = fakePath(['dnf', 'rpm']);
    writeFileSync(join(dir, 'dnf'), '#!/bin/sh\nexit 1\n');
    expect(setup(dir)).toContain('system packages: dnf failed; install these yourself');
  });
});

describe('a test that needs a system tool', () => {
  it('fails naming the tools missing and how to get them', () => {
    const { dir } = fakePath(['tmux']);
    expect(() => needToolsOn(dir, ['tmux'])).not.toThrow();
    expect(() => needToolsOn(dir, ['tmux', 'zsh', 'tinyproxy'])).toThrow(
      'this test needs zsh, tinyproxy, not found on PATH: `npm run setup` installs them (apt, dnf, apk or brew), ' +
        'or install zsh and tinyproxy yourself',
    );
  });
});

describe('a test that plays through the optional speaker module (issue 37 item 20)', () => {
  it('fails naming the module, why it cannot be loaded and what installs it', () => {
    // a folder whose node_modules has no speaker, as after npm ci without ALSA's headers
    const dir = tempDir();
    writeFileSync(join(dir, 'package.json'), '{"name": "no-speaker", "private": true}');
    expect(() => needSpeakerIn(dir)).toThrow(
      /this test plays through the optional `speaker` module, which cannot be loaded \(Cannot find module 'speaker'.*\): it is built by npm ci with ALSA's headers; `npm run setup` installs them \(libasound2-dev/,
    );
    expect(() => needSpeakerIn(ROOT)).not.toThrow();
  });

  it('npm run setup installs the system packages (ALSA headers among them) before npm ci builds speaker', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.scripts.setup).toBe('bash scripts/install-system-deps.sh && npm ci');
    expect(pkg.optionalDependencies).toHaveProperty('speaker');
    const script = readFileSync(SCRIPT, 'utf8');
    for (const headers of ['libasound2-dev', 'alsa-lib-devel', 'alsa-lib-dev']) expect(script).toContain(headers);
  });
});
