// Bad input refused before anything is sent (issue 25, items 10 and 15): text that is not UTF-8 (arguments, stdin,
// files) and a stdin larger than any request body svc sends.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcShell } from '../../helpers/subprocess.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const LATIN1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café\n" in Latin-1

describe('text that is not UTF-8 is refused, not sent as U+FFFD', () => {
  it('stdin: tokenize, chat and embed exit 2 naming stdin and the byte, nothing sent', async () => {
    for (const args of [['tokenize'], ['chat'], ['embed'], ['tokenize', '--count']]) {
      emu.clearRequests();
      const r = await svcInProcess(args, { emu, input: LATIN1 });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain('error: stdin: not valid UTF-8 text (byte 3 is not)');
      expect(emu.requests()).toEqual([]);
    }
  });

  it('an argument: a real process given Latin-1 bytes in argv exits 2 naming the argument', async () => {
    emu.clearRequests();
    const r = await svcShell(`svc tokenize "$(printf 'caf\\351')"`, { emu });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/error: argument 2 \("caf\ufffd"\) is not valid UTF-8 text/);
    expect(emu.requests()).toEqual([]);
  });

  it('a file given to --input is refused naming the flag', async () => {
    const file = join(tempDir(), 'latin1.jsonl');
    writeFileSync(file, LATIN1);
    emu.clearRequests();
    const r = await svcInProcess(['responses', 'compact', '--model', 'svc-4', '--input', file], { emu });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/error: --input .*latin1\.jsonl: not valid UTF-8 text \(byte 3 is not\)/);
    expect(emu.requests()).toEqual([]);
  });

  it('valid UTF-8 (U+FFFD itself included) goes through', async () => {
    const r = await svcInProcess(['tokenize', '--count'], { emu, input: 'caf\u00e9 \ufffd\n' });
    expect(r.exitCode, r.stderr).toBe(0);
  });
});

describe('stdin over the largest request body (issue 25, item 15)', () => {
  it('is refused locally with the limit named, nothing sent', async () => {
    emu.clearRequests();
    const big = Buffer.alloc(32 * 1024 * 1024 + 1, 0x61);
    const r = await svcInProcess(['tokenize', '--count'], { emu, input: big });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('error: stdin: more than 32 MiB, the largest request body svc sends');
    expect(emu.requests()).toEqual([]);
  });
});

describe('URL-typed flags are checked as URLs (issue 25, item 15)', () => {
  for (const [args, flag, value] of [
    [['chat', 'hi', '--rss', 'feed.xml'], '--rss', 'feed.xml'],
    [['chat', 'hi', '--rss', 'ftp://example.com/feed'], '--rss', 'ftp://example.com/feed'],
    [['tokenize', 'hi', '--base-url', 'api.svc.ai'], '--base-url', 'api.svc.ai'],
    [['emulator', 'trigger', 'incoming-call', '--webhook', 'http://'], '--webhook', 'http://'],
  ] as [string[], string, string][]) {
    it(`${args.slice(0, 2).join(' ')} ${flag} ${value}`, async () => {
      emu.clearRequests();
      const r = await svcInProcess(args, { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`${flag}: ${value} is not allowed: an http:// or https:// URL`);
      expect(emu.requests()).toEqual([]);
    });
  }
});

describe('-q silences what was not asked for, not an explicit -u (issue 25, item 18)', () => {
  for (const args of [
    ['chat', 'hi', '-u', '-q'],
    ['chat', 'hi', '--no-stream', '-u', '-q'],
    ['messages', 'hi', '-u', '-q'],
    ['embed', 'hi', '-u', '-q'],
    ['responses', 'create', 'hi', '-u', '-q'],
  ]) {
    it(args.join(' '), async () => {
      const r = await svcInProcess(args, { emu });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^usage: .*\d+/m);
    });
  }
});
