import { describe, expect, it } from 'vitest';
import { textChunks } from '../../src/core/text-chunks.js';

const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('textChunks (issue 25, item 22)', () => {
  it('never splits a surrogate pair: an emoji at character 2,000 stays whole', () => {
    const text = `${'a'.repeat(1999)}😀${'b'.repeat(3000)}`;
    const pieces = textChunks(text, 2000);
    expect(pieces.join('')).toBe(text);
    for (const p of pieces) {
      expect(p).not.toMatch(lone);
      expect([...p].length).toBeLessThanOrEqual(2000);
    }
    expect(pieces[0]!.endsWith('😀')).toBe(true);
  });

  it('ends a piece before whitespace when there is some in reach', () => {
    expect(textChunks('one two three', 8)).toEqual(['one two', ' three']);
    expect(textChunks('', 8)).toEqual(['']);
  });
});
