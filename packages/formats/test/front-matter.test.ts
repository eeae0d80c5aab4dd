// The front-matter reader: YAML (block scalars, quotes, lists) through the `yaml` library, and a line reader for
// blocks that are not valid YAML.
import { describe, expect, it } from 'vitest';
import { parseFrontMatter, splitFrontMatter } from '../src/front-matter.js';

describe('front matter', () => {
  it('folded and literal block scalars give their text, not ">" or "|"', () => {
    const fm = parseFrontMatter(
      '---\nname: pdf\ndescription: >\n  Read and fill\n  PDF forms.\nusage: |\n  line one\n  line two\n---\nbody',
    );
    expect(fm).toEqual({ name: 'pdf', description: 'Read and fill PDF forms.\n', usage: 'line one\nline two\n' });
  });

  it('quoted values, escapes, numbers and lists', () => {
    const fm = parseFrontMatter(
      '---\nname: "a \\"quoted\\" name"\ntitle: \'it\'\'s\'\nversion: 2\ntags: [a, b]\n---\n',
    );
    expect(fm).toEqual({ name: 'a "quoted" name', title: "it's", version: '2', tags: '["a","b"]' });
  });

  it('a block that is not valid YAML is read line by line', () => {
    expect(parseFrontMatter('---\nname: x\ndescription: Use when: the user asks\n---\n')).toEqual({
      name: 'x',
      description: 'Use when: the user asks',
    });
  });

  it('the body follows the block; no block gives undefined', () => {
    expect(splitFrontMatter('---\na: 1\n---\n# Title\n')).toEqual({ fields: { a: '1' }, body: '# Title\n' });
    expect(splitFrontMatter('# no front matter')).toBeUndefined();
  });
});
