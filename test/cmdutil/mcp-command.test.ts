// --mcp's values (src/cmdutil/mcp-command.ts): command lines split without a shell, or the NAME of mcp.NAME.
import { describe, expect, it } from 'vitest';
import { commandWords, resolveServers } from '../../src/cmdutil/mcp-command.js';

describe('--mcp command lines', () => {
  it('splits words and quotes as a shell would, without expanding anything', () => {
    expect(commandWords(`npx -y "@scope/server x" 'it''s' a\\ b $HOME`)).toEqual([
      'npx',
      '-y',
      '@scope/server x',
      'its',
      'a b',
      '$HOME',
    ]);
    expect(() => commandWords('node "open')).toThrow(/--mcp: node "open is not allowed: a command line whose quotes/);
    expect(() => commandWords('   ')).toThrow(/a command line that starts an MCP server/);
  });

  it('NAME is the configured mcp.NAME; anything else is a command line', () => {
    const profile = { 'mcp.fs': 'npx server-filesystem .' };
    expect(resolveServers(['fs', 'node x.mjs', 'other'], profile)).toEqual([
      { label: 'fs', command: 'npx server-filesystem .' },
      { label: 'node x.mjs', command: 'node x.mjs' },
      { label: 'other', command: 'other' },
    ]);
  });
});
