import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const posts = () =>
  emu
    .requests()
    .filter((r) => r.path === '/v1/embeddings')
    .map((r) => JSON.parse(r.body!));

describe('svc embed', () => {
  it('300 stdin lines go out as three requests and come back as 300 vectors in input order', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `sentence number ${i} about ${i % 2 ? 'cats' : 'dogs'}`);
    emu.clearRequests();
    const r = await svcInProcess(['embed'], { emu, input: `${lines.join('\n')}\n` });
    expect(r.exitCode).toBe(0);
    const sent = posts();
    expect(sent.map((b) => b.input.length)).toEqual([128, 128, 44]);
    expect(sent.flatMap((b) => b.input)).toEqual(lines);
    const vectors = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as number[]);
    expect(vectors).toHaveLength(300);
    for (const v of vectors) expect(v).toHaveLength(256);
    // each vector is the one of its own line: spot-check by embedding lines alone
    for (const i of [0, 127, 128, 255, 299]) {
      const one = await svcInProcess(['embed', lines[i]!], { emu });
      expect(JSON.parse(one.stdout), `line ${i}`).toEqual(vectors[i]);
    }
  });

  it('--json prints each embedding object with its index in the whole input', async () => {
    const lines = Array.from({ length: 130 }, (_, i) => `t${i}`);
    const r = await svcInProcess(['embed', '--json'], { emu, input: lines.join('\n') });
    const objs = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(objs.map((o) => o.index)).toEqual(lines.map((_, i) => i));
    expect(objs[0]).toMatchObject({ object: 'embedding' });
  });

  it('arguments are inputs; --dimensions and --encoding-format base64 are sent and honoured', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['embed', '--dimensions', '16', '--encoding-format', 'base64', 'alpha', 'beta'], {
      emu,
    });
    expect(posts()[0]).toMatchObject({
      model: 'svc-embed-1',
      input: ['alpha', 'beta'],
      dimensions: 16,
      encoding_format: 'base64',
    });
    const rows = r.stdout.trim().split('\n');
    expect(rows).toHaveLength(2);
    for (const b64 of rows) expect(Buffer.from(b64, 'base64').length).toBe(64);
  });

  it("a dimension beyond the known model's size is refused before sending (issue 12.3)", async () => {
    emu.clearRequests();
    const r = await svcInProcess(['embed', '--dimensions', '257', 'x'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--dimensions: 257 .*from 1 to 256 \(the size of svc-embed-1\)/);
    expect(emu.requests()).toEqual([]);
    const ok = await svcInProcess(['embed', '--dimensions', '256', 'x'], { emu });
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(ok.stdout)).toHaveLength(256);
  });

  it('a model the CLI does not know leaves the size check to the server', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['embed', '-m', 'svc-embed-9', '--dimensions', '300', 'x'], { emu });
    expect(r.exitCode).not.toBe(2);
    expect(emu.requests().some((q) => q.path === '/v1/embeddings')).toBe(true);
  });
});

const cases: [string, string[], string | undefined, RegExp][] = [
  ['dimensions of 0', ['--dimensions', '0', 'x'], undefined, /--dimensions: 0 .*at least 1|--dimensions: 0 .*from 1/],
  ['unknown encoding format', ['--encoding-format', 'int8', 'x'], undefined, /--encoding-format: int8 .*float, base64/],
  ['an empty stdin line', [], 'one\n\nthree\n', /stdin: line 2 is empty/],
  ['nothing to embed', [], '', /no input/],
];

describe('svc embed rejects bad input before sending', () => {
  for (const [name, args, input, message] of cases) {
    it(name, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['embed', ...args], { emu, input });
      expect(r.stderr).toMatch(message);
      expect(r.exitCode).toBe(2);
      expect(emu.requests()).toHaveLength(0);
    });
  }
});
