// The one atomic writer (src/core/atomic-file.ts): a unit part (commit, discard, no-clobber, devices), and the
// process part: a write beyond `ulimit -f` is an error naming the file (never a count of bytes that were not
// written), and SIGHUP leaves no temp file behind.
import { afterAll, describe, expect, it } from 'vitest';
import {
  chmodSync,
  existsSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { AtomicFile, FileWriteError, refuseExisting, writeFileAtomic } from '../../src/core/atomic-file.js';
import { ROOT, tempDir } from '../helpers/files.js';

const dirs: string[] = [];
function dir(): string {
  const d = tempDir('svc-atomic-');
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('AtomicFile', () => {
  it('writes beside the target and renames on commit; nothing else stays in the directory', async () => {
    const d = dir();
    const target = join(d, 'out.bin');
    const f = await AtomicFile.create(target);
    expect(f.tempPath!.startsWith(join(d, '.out.bin.'))).toBe(true);
    await f.write(Buffer.from('hello '));
    await f.write(Buffer.from('world'));
    expect(existsSync(target)).toBe(false); // not before commit
    expect(await f.writeAt(0, Buffer.from('H'))).toBe(true);
    expect(await f.commit()).toBe(11);
    expect(readFileSync(target, 'utf8')).toBe('Hello world');
    expect(readdirSync(d)).toEqual(['out.bin']);
  });

  it('discard leaves an existing target byte for byte as it was, and removes the temp file', async () => {
    const d = dir();
    const target = join(d, 'keep.txt');
    writeFileSync(target, 'precious');
    const f = await AtomicFile.create(target);
    await f.write(Buffer.from('partial'));
    await f.discard();
    await f.discard(); // twice is harmless
    expect(readFileSync(target, 'utf8')).toBe('precious');
    expect(readdirSync(d)).toEqual(['keep.txt']);
  });

  it('a replaced file keeps its permissions', async () => {
    const d = dir();
    const target = join(d, 'mode.txt');
    writeFileSync(target, 'old');
    chmodSync(target, 0o600);
    await writeFileAtomic(target, 'new');
    expect(readFileSync(target, 'utf8')).toBe('new');
    expect(statSync(target).mode & 0o777).toBe(0o600);
  });

  it('replace: false refuses a file that appeared meanwhile (exit-2 message with --force), and cleans up', async () => {
    const d = dir();
    const target = join(d, 'race.txt');
    const f = await AtomicFile.create(target, { replace: false });
    await f.write(Buffer.from('mine'));
    writeFileSync(target, 'theirs');
    await expect(f.commit()).rejects.toThrow(/race\.txt already exists; --force \(or --clobber\) replaces it/);
    expect(readFileSync(target, 'utf8')).toBe('theirs');
    expect(readdirSync(d)).toEqual(['race.txt']);
  });

  it('refuseExisting: a file or a dangling link refused naming the flag and --force; a device, a new name pass', () => {
    const d = dir();
    const file = join(d, 'kept.txt');
    writeFileSync(file, 'kept');
    const dangling = join(d, 'link.txt');
    symlinkSync(join(d, 'nowhere'), dangling);
    const refused = (t: string) => () => refuseExisting(t, '-o', false);
    expect(refused(file)).toThrow(`-o: ${file} already exists; --force (or --clobber) replaces it`);
    expect(refused(dangling)).toThrow(`-o: ${dangling} already exists`);
    for (const ok of ['/dev/null', '-', join(d, 'new.txt')]) expect(refused(ok)).not.toThrow();
    expect(() => refuseExisting(file, '-o', true)).not.toThrow();
  });

  it('a device given as the target is written to directly (no temp file next to it)', async () => {
    const f = await AtomicFile.create('/dev/null');
    expect(f.tempPath).toBeUndefined();
    await f.write(Buffer.alloc(1000));
    expect(await f.writeAt(0, Buffer.alloc(4))).toBe(false);
    expect(await f.commit()).toBe(1000);
  });

  it('regularOnly (batch --output-dir): a link or device at the target is refused, never written through', async () => {
    const d = dir();
    symlinkSync('/dev/null', join(d, 'row-1.png'));
    await expect(writeFileAtomic(join(d, 'row-1.png'), 'x', { regularOnly: true, label: 'row-1.png' })).rejects.toThrow(
      /cannot write row-1\.png: a symbolic link is there; svc writes only a regular file of its own/,
    );
    expect(readdirSync(d)).toEqual(['row-1.png']);
    writeFileSync(join(d, 'plain.png'), 'old');
    await writeFileAtomic(join(d, 'plain.png'), 'new', { regularOnly: true });
    expect(readFileSync(join(d, 'plain.png'), 'utf8')).toBe('new');
  });

  it('a directory as the target is refused with a message naming it', async () => {
    const d = dir();
    await expect(AtomicFile.create(d, { label: 'somewhere' })).rejects.toThrow(
      /cannot write somewhere: it is a directory \(EISDIR\)/,
    );
  });
});

/**
 * Run a small script against the built writer module in a child process (shell limits and signals apply to it
 * only). It is not the CLI (no key, nothing to scan): the module's path goes in the environment.
 */
function child(script: string, shellPrefix = '') {
  const code = `const { AtomicFile, writeFileAtomic } = await import(process.env.ATOMIC_FILE_MODULE);\n${script}`;
  return execa('bash', ['-c', `${shellPrefix} exec node --input-type=module -e "$0"`, code], {
    reject: false,
    stdin: 'pipe',
    timeout: 30_000,
    env: { ATOMIC_FILE_MODULE: join(ROOT, 'dist', 'core', 'atomic-file.js') },
  });
}

describe('AtomicFile in a process', () => {
  it(
    'under ulimit -f a write fails loudly (EFBIG), counts only what was written, and leaves nothing ' + 'behind',
    async () => {
      const d = dir();
      const target = join(d, 'big.bin');
      writeFileSync(target, 'old contents');
      const r = await child(
        `const f = await AtomicFile.create(${JSON.stringify(target)});
       try { for (let i = 0; i < 16; i++) await f.write(Buffer.alloc(1000, 1)); console.log('no error'); }
       catch (e) {
         console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message, bytes: f.bytes }));
         await f.discard();
       }`,
        'ulimit -f 4;',
      );
      expect(r.exitCode).toBe(0);
      const out = JSON.parse(String(r.stdout));
      expect(out).toMatchObject({ name: 'FileWriteError', code: 'EFBIG' });
      expect(out.message).toBe(`cannot write ${target}: disk full or file too large (EFBIG)`);
      expect(out.bytes).toBeLessThanOrEqual(4096); // never more than the limit let through
      expect(readFileSync(target, 'utf8')).toBe('old contents');
      expect(readdirSync(d)).toEqual(['big.bin']);
      expect(new FileWriteError('x', 'ENOSPC').message).toBe('cannot write x: disk full or file too large (ENOSPC)');
    },
  );

  it('SIGHUP while a file is being written: the process dies of the signal and the temp file is removed', async () => {
    const d = dir();
    const target = join(d, 'hup.bin');
    const p = child(
      `const f = await AtomicFile.create(${JSON.stringify(target)});
       await f.write(Buffer.alloc(5000));
       console.log('ready');
       setInterval(() => {}, 1000);`,
    );
    await new Promise<void>((resolve) => p.stdout!.on('data', (b: Buffer) => String(b).includes('ready') && resolve()));
    expect(readdirSync(d).length).toBe(1); // the temp file
    p.kill('SIGHUP');
    const r = await p;
    expect(r.signal).toBe('SIGHUP');
    expect(readdirSync(d)).toEqual([]);
  });

  it('SIGTERM handled by the program then exit(): the exit hook removes what was not committed', async () => {
    const d = dir();
    const r = await child(
      `const f = await AtomicFile.create(${JSON.stringify(join(d, 'term.bin'))});
       await f.write(Buffer.alloc(100));
       process.on('SIGTERM', () => process.exit(143));
       process.kill(process.pid, 'SIGTERM');
       setInterval(() => {}, 1000);`,
    );
    expect(r.exitCode).toBe(143);
    expect(readdirSync(d)).toEqual([]);
  });
});
