// svc legacy completions --stream (issue 12 item 11): the text as it is generated, the same text as without
// --stream, choice headers, --json one chunk per line, usage from the usage chunk.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const sent = () =>
  emu
    .requests()
    .filter((r) => r.path === '/v1/completions')
    .map((r) => JSON.parse(r.body!));

describe('svc legacy completions --stream', () => {
  it('streams the same text as the plain call, with stream: true sent', async () => {
    const plain = await svcInProcess(
      ['legacy', 'completions', 'Once upon a time', '--max-tokens', '10', '--seed', '4'],
      { emu },
    );
    emu.clearRequests();
    const streamed = await svcInProcess(
      ['legacy', 'completions', 'Once upon a time', '--max-tokens', '10', '--seed', '4', '--stream'],
      { emu },
    );
    expect(streamed.exitCode, streamed.stderr).toBe(0);
    expect(streamed.stdout).toBe(plain.stdout);
    expect(sent()[0]).toMatchObject({ stream: true, prompt: 'Once upon a time' });
    expect(sent()[0].stream_options).toBeUndefined();
  });

  it('prints a header per choice for several choices, and usage from the usage chunk with -u', async () => {
    const plain = await svcInProcess(['legacy', 'completions', 'Once', '-n', '2', '--max-tokens', '3'], { emu });
    emu.clearRequests();
    const r = await svcInProcess(['legacy', 'completions', 'Once', '-n', '2', '--max-tokens', '3', '--stream', '-u'], {
      emu,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(plain.stdout);
    expect(r.stdout).toMatch(/^--- choice 0 ---\n.+\n--- choice 1 ---\n.+\n$/);
    expect(sent()[0].stream_options).toEqual({ include_usage: true });
    expect(r.stderr).toMatch(/usage: \d+ prompt \+ \d+ completion = \d+ tokens · svc-/);
  });

  it('--json prints every chunk as one JSON line', async () => {
    const r = await svcInProcess(['legacy', 'completions', 'Hello', '--max-tokens', '4', '--stream', '--json'], {
      emu,
    });
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.every((l) => l.object === 'text_completion')).toBe(true);
    expect(lines.at(-1).choices[0].finish_reason).toMatch(/^(stop|length)$/);
    expect(lines.map((l) => l.choices[0]?.text ?? '').join('')).toMatch(/\w/);
  });

  it('a stream cut before [DONE] keeps what arrived and exits 1 (the connection lost mid-stream)', async () => {
    emu.faults.add({ kind: 'drop', afterEvents: 2, path: '^/v1/completions$' });
    const r = await svcInProcess(['legacy', 'completions', 'Once upon a time', '--max-tokens', '10', '--stream'], {
      emu,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stdout.length).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/connection was lost|incomplete/);
  });
});
