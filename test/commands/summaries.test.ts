// A command's one-line summary is said once: in its node of the command tree (src/commands/<resource>/index.ts),
// which group listings, help and man pages, docs/commands.md and completion read without loading the command. A
// spec (defineCommand) carrying a summary of its own is how the two used to drift apart.
import { describe, expect, it } from 'vitest';
import { loadCommandTree } from '../helpers/command-tree.js';

describe('command summaries', () => {
  it('every node of the tree has one, on one line', async () => {
    const tree = await loadCommandTree();
    expect(tree.length).toBeGreaterThan(90);
    const bad = tree.filter(({ node }) => typeof node.summary !== 'string' || !/^\S[^\n]*\S$/.test(node.summary));
    expect(bad.map((c) => c.words)).toEqual([]);
  });

  it('no command spec carries one: the tree node is the only place', async () => {
    const withSummary = (await loadCommandTree()).filter(({ spec }) => spec && 'summary' in spec);
    expect(withSummary.map((c) => c.words)).toEqual([]);
  });
});
