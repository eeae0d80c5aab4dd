// The -u token line adds up as shown.
import { describe, expect, it } from 'vitest';
import { tokenSum } from '../../src/term/usage.js';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';

/** The numbers of `a + b (+ c) = total` on a line, checked to add up. */
function addsUp(line: string): boolean {
  const m = /usage: (.*?) = (\d+) tokens/.exec(line);
  if (!m) return false;
  const terms = m[1]!
    .replace(/\(\d+ of them reasoning\)/, '')
    .match(/[+−]?\s*\d+/g)!
    .map((t) => Number(t.replace(/\s|\+/g, '').replace('−', '-')));
  return terms.reduce((a, b) => a + b, 0) === Number(m[2]);
}

describe('token arithmetic', () => {
  it('reasoning counted apart is a term; counted inside the output is a note; any rest is "other"', () => {
    expect(tokenSum([9, 'prompt'], [36, 'completion'], 17, 62)).toBe(
      '9 prompt + 36 completion + 17 reasoning = 62 tokens',
    );
    expect(tokenSum([7, 'input'], [41, 'output'], 15, 48)).toBe(
      '7 input + 41 output (15 of them reasoning) = 48 tokens',
    );
    expect(tokenSum([5, 'prompt'], [5, 'completion'], undefined, 12)).toBe(
      '5 prompt + 5 completion + 2 other = 12 tokens',
    );
    expect(tokenSum([5, 'prompt'], [5, 'completion'], undefined, 10)).toBe('5 prompt + 5 completion = 10 tokens');
  });

  it('chat -u and responses create -u with a reasoning model print lines that add up', async () => {
    const emu = await startTestEmulator();
    try {
      const chat = await svcInProcess(['chat', '-m', 'svc-4-reasoning', '-u', '--no-save', 'why is the sky blue'], {
        emu,
      });
      expect(chat.stderr).toMatch(/usage: \d+ prompt \+ \d+ completion \+ \d+ reasoning = \d+ tokens/);
      expect(addsUp(chat.stderr)).toBe(true);
      const resp = await svcInProcess(['responses', 'create', '-m', 'svc-4-reasoning', '-u', 'why is the sky blue'], {
        emu,
      });
      expect(addsUp(resp.stderr)).toBe(true);
    } finally {
      await emu.close();
    }
  });
});
