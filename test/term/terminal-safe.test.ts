import { describe, expect, it } from 'vitest';
import { jsonSafe, terminalSafe } from '../../src/term/terminal-safe.js';

describe('terminalSafe', () => {
  it('replaces ESC, CSI, OSC, CR, BEL, backspace and C1 controls; keeps newline and tab', () => {
    const hostile = 'a\x1b]0;pwned\x07b\x1b[2J\x1b[Hc\rd\be\x9b31mf\x85g\n\th';
    const safe = terminalSafe(hostile);
    expect(safe).toBe('a␛]0;pwned␇b␛[2J␛[Hc␍d␈e\ufffd31mf\ufffdg\n\th');
    // eslint-disable-next-line no-control-regex
    expect(safe).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  });

  it('keeps only svc palette colour codes, and only when asked', () => {
    expect(terminalSafe('\x1b[31mred\x1b[39m', { keepColor: true })).toBe('\x1b[31mred\x1b[39m');
    expect(terminalSafe('\x1b[31mred\x1b[39m')).toBe('␛[31mred␛[39m');
    expect(terminalSafe('\x1b[8mhidden\x1b[0m', { keepColor: true })).toBe('␛[8mhidden␛[0m');
    expect(terminalSafe('\x1b]8;;http://evil\x1b\\link', { keepColor: true })).toBe('␛]8;;http://evil␛\\link');
  });

  it('shows bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) as their code points', () => {
    // "Trojan Source": text that reads in another order than it is
    const hostile = 'invoice\u202Egnp.exe \u202A\u202B\u202C\u202D \u2066\u2067\u2068\u2069';
    expect(terminalSafe(hostile)).toBe(
      'invoice<U+202E>gnp.exe <U+202A><U+202B><U+202C><U+202D> <U+2066><U+2067><U+2068><U+2069>',
    );
    expect(terminalSafe(hostile)).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    // the marks of right-to-left writing (LRM, RLM, ALM) are ordinary text, not overrides
    expect(terminalSafe('\u200f\u200e\u061c')).toBe('\u200f\u200e\u061c');
  });

  it('leaves ordinary text (any script, emoji) alone', () => {
    const text = 'héllo — 世界 🙂 مرحبا\n\tok';
    expect(terminalSafe(text)).toBe(text);
  });
});

describe('jsonSafe', () => {
  it('escapes DEL, C1 and the line separators, and parses back to the same value', () => {
    const value = { text: 'a\x7fb\x9bc\u2028d\x1b[2J' };
    const out = jsonSafe(JSON.stringify(value));
    // eslint-disable-next-line no-control-regex
    expect(out).not.toMatch(/[\x00-\x1f\x7f-\x9f\u2028\u2029]/);
    expect(JSON.parse(out)).toEqual(value);
  });

  it('escapes the bidirectional overrides and isolates too: the same value, read in its own order', () => {
    const value = { name: 'invoice\u202Egnp.exe', isolated: '\u2066x\u2069' };
    const out = jsonSafe(JSON.stringify(value));
    expect(out).toContain('invoice\\u202egnp.exe');
    expect(out).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(out)).toEqual(value);
  });
});
