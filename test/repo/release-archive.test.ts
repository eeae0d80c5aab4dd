// scripts/release-archive.mjs, the part of the release workflow that runs anywhere (issue 40): each platform's
// files (the executables by version and platform, an archive holding them with the man pages and completion scripts
// the executable prints, their sums) and the one SHA256SUMS. Here the executables are stand-ins (svc as installed by
// npm, answering for both): the layout, the archive formats as system tar and unzip read them, and the sums as
// sha256sum checks them. test/repo/single-executable.test.ts (CI) packs the real executables.
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/files.js';
import { releaseArchive, svcBinDir } from '../helpers/subprocess.js';
import { needTools } from '../helpers/tools.js';

const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const work = tempDir('svc-release-');
const exeDir = join(work, 'exe');
const svc = join(svcBinDir(), 'svc');
const shipped = readdirSync(join(ROOT, 'man')).sort();
const COMPLETIONS = {
  'share/bash-completion/completions/svc': 'svc.bash',
  'share/zsh/site-functions/_svc': '_svc',
  'share/fish/vendor_completions.d/svc.fish': 'svc.fish',
  'share/powershell/svc.ps1': 'svc.ps1',
};

beforeAll(() => {
  mkdirSync(exeDir);
  // a stand-in per program and name: the bytes differ, so that a sum names which file it is of
  for (const name of ['svc', 'svc-emulator', 'svc.exe', 'svc-emulator.exe']) {
    writeFileSync(join(exeDir, name), `#!/bin/sh\n# ${name}\nexec ${svc} "$@"\n`);
    chmodSync(join(exeDir, name), 0o755);
  }
});

const pack = (target: string, out: string) =>
  releaseArchive(['pack', '--target', target, '--exe-dir', exeDir, '--out', out, '--svc', svc], {
    SOURCE_DATE_EPOCH: '1764633600',
  });
/** a target packed once for the file, in a folder of its own (a pack runs svc five times: ~1 s of CPU) */
const packs = new Map<string, Promise<{ r: Awaited<ReturnType<typeof pack>>; out: string }>>();
function packed(target: string) {
  let p = packs.get(target);
  if (!p) {
    const out = join(work, target);
    p = pack(target, out).then((r) => ({ r, out }));
    packs.set(target, p);
  }
  return p;
}

describe('release-archive.mjs pack', () => {
  it('Linux and macOS: the executables, a .tar.gz laid out as a prefix (bin, man pages, completions)', async () => {
    needTools('tar', 'sha256sum', 'man');
    const { r, out } = await packed('linux-arm64');
    expect(r.exitCode, r.stderr).toBe(0);
    const base = `svc-${version}-linux-arm64`;
    expect(readdirSync(out).sort()).toEqual(
      [`${base}`, `${base}.tar.gz`, `svc-emulator-${version}-linux-arm64`, 'SHA256SUMS-linux-arm64'].sort(),
    );
    expect(readFileSync(join(out, `svc-emulator-${version}-linux-arm64`), 'utf8')).toContain('# svc-emulator\n');
    const checked = await execa('sha256sum', ['-c', 'SHA256SUMS-linux-arm64'], { cwd: out });
    expect(checked.stdout.split('\n').sort()).toEqual(
      [`${base}: OK`, `${base}.tar.gz: OK`, `svc-emulator-${version}-linux-arm64: OK`].sort(),
    );
    const listing = (await execa('tar', ['-tvzf', join(out, `${base}.tar.gz`)], { env: { TZ: 'UTC' } })).stdout.split(
      '\n',
    );
    const programs = `${base}/bin/`;
    expect(listing.find((l) => l.endsWith(`${programs}svc-emulator`))).toMatch(/^-rwxr-xr-x 0\/0 .* 2025-12-02 00:00 /);
    const into = join(work, 'prefix');
    mkdirSync(into);
    await execa('tar', ['-xzf', join(out, `${base}.tar.gz`), '-C', into, '--strip-components=1']);
    const bin = join(into, 'bin');
    expect(readdirSync(bin).sort()).toEqual(['svc', 'svc-emulator']);
    expect(readFileSync(join(bin, 'svc-emulator'), 'utf8')).toContain('# svc-emulator\n');
    // the pages and scripts the program printed: those npm ships, and man finds the pages under the prefix
    expect(readdirSync(join(into, 'share', 'man', 'man1')).sort()).toEqual(shipped);
    for (const page of shipped)
      expect(readFileSync(join(into, 'share', 'man', 'man1', page), 'utf8'), page).toBe(
        readFileSync(join(ROOT, 'man', page), 'utf8'),
      );
    for (const [path, file] of Object.entries(COMPLETIONS))
      expect(readFileSync(join(into, path), 'utf8'), path).toBe(readFileSync(join(ROOT, 'completions', file), 'utf8'));
    expect(readFileSync(join(into, 'share', 'doc', 'svc', 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    const found = await execa('man', ['-w', 'svc-files-list'], {
      env: { ...process.env, MANPATH: join(into, 'share', 'man') },
    });
    expect(found.stdout).toBe(join(into, 'share', 'man', 'man1', 'svc-files-list.1'));
    // and fish loads its script from there by itself, for the svc on PATH
    needTools('fish');
    const fish = await execa('fish', ['-c', "complete -C 'svc mod'"], {
      env: { ...process.env, HOME: into, XDG_DATA_HOME: join(into, 'share'), PATH: `${bin}:${process.env.PATH}` },
    });
    expect(fish.stdout.split('\t')[0]).toBe('models');
  });

  it('Windows: .exe names and a .zip with the completion scripts and no man pages (they do not apply)', async () => {
    needTools('unzip');
    const { r, out } = await packed('win32-x64');
    expect(r.exitCode, r.stderr).toBe(0);
    const base = `svc-${version}-win32-x64`;
    expect(r.stdout.split('\n')).toEqual([`${base}.exe`, `svc-emulator-${version}-win32-x64.exe`, `${base}.zip`]);
    const entries = (await execa('unzip', ['-Z1', join(out, `${base}.zip`)])).stdout.split('\n');
    expect(entries.sort()).toEqual(
      [...['svc.exe', 'svc-emulator.exe'].map((p) => `bin/${p}`), 'share/doc/svc/LICENSE', ...Object.keys(COMPLETIONS)]
        .map((e) => `${base}/${e}`)
        .sort(),
    );
    const ps1 = await execa('unzip', ['-p', join(out, `${base}.zip`), `${base}/share/powershell/svc.ps1`]);
    expect(ps1.stdout).toBe(readFileSync(join(ROOT, 'completions', 'svc.ps1'), 'utf8').trimEnd());
  });

  it('refuses a platform not built and missing executables (exit 1), an unknown flag (exit 2)', async () => {
    const r = await pack('linux-s390x', join(work, 'nothing'));
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(
      'release-archive: --target: linux-s390x is not one of linux-x64, linux-arm64, darwin-arm64, darwin-x64, ' +
        'win32-x64',
    );
    const none = await releaseArchive(['pack', '--target', 'darwin-x64', '--exe-dir', work, '--out', work]);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toBe(`release-archive: ${join(work, 'svc')} is missing: run \`npm run build:exe\` first`);
    expect((await releaseArchive(['pack', '--nope'])).exitCode).toBe(2);
  });
});

describe('release-archive.mjs sums', () => {
  it('joins the sums into one SHA256SUMS that sha256sum checks; a changed or unlisted file fails', async () => {
    needTools('sha256sum');
    // two platforms' files, as the release workflow's jobs hand them on (the packs of the tests above)
    const out = join(work, 'release');
    const altered = join(work, 'altered');
    mkdirSync(out);
    mkdirSync(altered);
    for (const target of ['linux-arm64', 'win32-x64']) {
      const { r, out: packedTo } = await packed(target);
      expect(r.exitCode, r.stderr).toBe(0);
      for (const f of readdirSync(packedTo, { withFileTypes: true }))
        if (f.isFile()) for (const to of [out, altered]) copyFileSync(join(packedTo, f.name), join(to, f.name));
    }
    // a file altered after its sum was taken (a broken download between jobs)
    writeFileSync(join(altered, `svc-${version}-linux-arm64`), 'other bytes');
    const refused = await releaseArchive(['sums', altered]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      `svc-${version}-linux-arm64: its sha256 is not the one SHA256SUMS-linux-arm64 says`,
    );
    const r = await releaseArchive(['sums', out]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readdirSync(out).filter((f) => f.startsWith('SHA256SUMS'))).toEqual(['SHA256SUMS']);
    const lines = readFileSync(join(out, 'SHA256SUMS'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines.map((l) => l.slice(66))).toEqual([...lines.map((l) => l.slice(66))].sort());
    expect((await execa('sha256sum', ['-c', 'SHA256SUMS'], { cwd: out })).stdout).not.toContain('FAILED');
    // a file no sum names
    writeFileSync(join(out, 'stray.txt'), 'x');
    writeFileSync(join(out, 'SHA256SUMS-extra'), '');
    const stray = await releaseArchive(['sums', out]);
    expect(stray.exitCode).toBe(1);
    expect(stray.stderr).toContain('no sum for ');
    expect(stray.stderr).toContain('stray.txt');
  });
});
