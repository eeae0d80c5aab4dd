// A stdout that cannot be written (issue 25, items 5 and 6): a full disk under `> out.md`, a file past its size
// limit, an I/O error, a descriptor not open for writing. Every command, streamed or not, --json and --jq included,
// exits 1 with "could not write to standard output: <reason>" — the one error said, never blamed on the network; a
// closed pipe (EPIPE, `| head`) stays quiet. The same for every command family, every way: test/fault-matrix.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { svcShell } from '../helpers/subprocess.js';
import { writeTemp } from '../helpers/files.js';
import { Output } from '../../src/term/output.js';
import { StdoutWriteError } from '../../src/core/errors.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const FULL = /^error: could not write to standard output: disk full or file too large \(ENOSPC\)\n$/;

describe('a stdout that fails', () => {
  for (const [what, args] of [
    ['a table', ['models', 'list']],
    ['--json', ['models', 'list', '--json']],
    ['--jq', ['models', 'list', '--jq', '.data[0].id']],
    ['a streamed answer', ['chat', 'hello']],
    ['an answer not streamed', ['chat', '--no-stream', 'hello']],
  ] as const) {
    it(`${what}: exit 1 and the reason, once`, async () => {
      const r = await svcInProcess([...args], { emu, stdoutFails: 'ENOSPC' });
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toMatch(FULL);
      expect(r.stdout).toBe('');
    });
  }

  it('each errno is named: EIO, EBADF, EFBIG', async () => {
    for (const [code, reason] of [
      ['EIO', 'input/output error'],
      ['EBADF', 'not open for writing'],
      ['EFBIG', 'disk full or file too large'],
    ]) {
      const r = await svcInProcess(['models', 'list'], { emu, stdoutFails: code });
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toBe(`error: could not write to standard output: ${reason} (${code})\n`);
    }
  });

  it('a closed pipe (EPIPE) is no error: exit 0, nothing said', async () => {
    const r = await svcInProcess(['models', 'list'], { emu, stdoutFails: 'EPIPE' });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('a usage error is still a usage error (nothing was written)', async () => {
    const r = await svcInProcess(['models', 'list', '--kind', 'nope'], { emu, stdoutFails: 'ENOSPC' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).not.toMatch(/standard output/);
  });

  it("the Output's next write throws once one has failed: a streamed command stops there", async () => {
    const stdout = Object.assign(
      new PassThrough({
        write(_chunk, _enc, done) {
          done(Object.assign(new Error('ENOSPC'), { code: 'ENOSPC', syscall: 'write' }));
        },
      }),
      { isTTY: false },
    );
    const out = new Output(
      { stdin: new PassThrough(), stdout, stderr: new PassThrough() },
      { json: false, quiet: false, verbose: false, color: false, env: {} },
    );
    out.write('first token');
    expect(() => out.write('second token')).toThrow(StdoutWriteError);
    await expect(out.writeBytes(Buffer.from('bytes'))).rejects.toThrow(/could not write to standard output/);
  });

  for (const [what, args, input] of [
    ['tts say -o - (WebSocket)', ['tts', 'say', 'hello there', '-o', '-'], undefined],
    ['tts say --rest -o -', ['tts', 'say', 'hello there', '--rest', '-o', '-'], undefined],
    ['tts stream -o -', ['tts', 'stream', '-o', '-'], 'hello there\n'],
  ] as const) {
    it(`audio to stdout goes through the Output's writer: ${what} exits 1 with the reason, once`, async () => {
      const r = await svcInProcess([...args], { emu, stdoutFails: 'ENOSPC', input });
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toMatch(FULL);
    });
  }

  it("a sink's stdout target given the Output rejects with its StdoutWriteError once a write failed", async () => {
    const stdout = Object.assign(
      new PassThrough({
        write(_chunk, _enc, done) {
          done(Object.assign(new Error('ENOSPC'), { code: 'ENOSPC', syscall: 'write' }));
        },
      }),
      { isTTY: false },
    );
    const out = new Output(
      { stdin: new PassThrough(), stdout, stderr: new PassThrough() },
      { json: false, quiet: false, verbose: false, color: false, env: {} },
    );
    const { openByteTarget } = await import('../../src/audio/sink.js');
    const target = await openByteTarget('-', out);
    await target.write(Buffer.from('RIFF')).catch(() => undefined);
    await new Promise((r) => setImmediate(r));
    await expect(target.write(Buffer.from('data'))).rejects.toThrow(StdoutWriteError);
  });

  it('files download -o - into /dev/full names the local write, not the network (item 6)', async () => {
    const up = await svcInProcess(['files', 'upload', writeTemp('note.txt', 'hello\n'.repeat(1000)), '--json'], {
      emu,
    });
    const id = JSON.parse(up.stdout).id as string;
    const r = await svcShell('svc files download "$1" -o - > /dev/full', { emu, args: [id] });
    expect(r.exitCode, r.stderr).toBe(1);
    // (svcShell drops the final newline)
    expect(`${r.stderr}\n`).toMatch(FULL);
    expect(r.stderr).not.toMatch(/connection|network/);
  });

  it('the launcher too: --version, --help, a help page, `svc help …` into /dev/full', async () => {
    for (const line of ['svc --version', 'svc --help', 'svc models list --help', 'svc help models']) {
      const r = await svcShell(`${line} > /dev/full`, { emu });
      expect(r.exitCode, `${line}: ${r.stderr}`).toBe(1);
      expect(r.stderr, line).toMatch(
        /error: could not write to standard output: disk full or file too large \(ENOSPC\)/,
      );
    }
  });
});
