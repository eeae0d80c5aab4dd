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

describe('svc tokenize', () => {
  it('prints id, token and bytes per token; the tokens make the text again', async () => {
    const text = 'Hello, the conversation café 🎉';
    const r = await svcInProcess(['tokenize', text], { emu });
    expect(r.exitCode).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    const bytes = Buffer.concat(rows.map((row) => Buffer.from(row[2]!.split(' ').map((h) => parseInt(h, 16)))));
    expect(bytes.toString('utf8')).toBe(text);
    for (const row of rows) expect(row[0]).toMatch(/^\d+$/);
    expect(rows.find((row) => row[1] === '" the"')).toBeDefined();
  });

  it('--count prints the number of tokens; stdin is read when no TEXT is given', async () => {
    const text = 'one two three\nfour';
    const json = await svcInProcess(['tokenize', '--json'], { emu, input: text });
    const n = JSON.parse(json.stdout).token_ids.length;
    const count = await svcInProcess(['tokenize', '--count'], { emu, input: text });
    expect(count.stdout).toBe(`${n}\n`);
    expect(
      Buffer.concat(JSON.parse(json.stdout).token_ids.map((t: any) => Buffer.from(t.token_bytes))).toString(),
    ).toBe(text);
  });

  it('an unknown model is a 404 (exit 5); empty text is refused before sending', async () => {
    const r = await svcInProcess(['tokenize', '-m', 'nope', 'x'], { emu });
    expect(r.exitCode).toBe(5);
    emu.clearRequests();
    const empty = await svcInProcess(['tokenize'], { emu, input: '' });
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain('no text');
    expect(emu.requests()).toHaveLength(0);
  });
});
