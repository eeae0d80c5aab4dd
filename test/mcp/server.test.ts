// The notes `svc mcp serve` writes on stderr: text a peer chose (the client's name from initialize, a tool error
// quoting an agent's argument) is one line there, with nothing a terminal would act on.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/files.js';
import { expectOnlyNotes, manyCalls, mcpStdio } from '../helpers/mcp.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('svc mcp serve notes', () => {
  it('a client name or an argument with line breaks and escapes forges no line and drives no terminal', async () => {
    const root = tempDir('svc-mcp-root-');
    writeFileSync(join(root, 'a.txt'), 'a\n');
    const s = await mcpStdio(['mcp', 'serve', '--root', root], {
      emu,
      clientName: 'agent\nsvc: FORGED LINE\r\x1b]0;owned\x07\u202e',
    });
    try {
      const listed = await s.client.callTool({ name: 'list_models', arguments: {} });
      expect(listed.isError).toBeFalsy();
      const refused = await s.client.callTool({
        name: 'upload_file',
        arguments: { path: '../x\nsvc: FORGED TOO\n\x1b[2J' },
      });
      expect(refused.isError).toBe(true);
    } finally {
      await s.close();
    }
    const lines = s.stderr().split('\n');
    expect(lines.filter((l) => /^svc: FORGED|^\s*FORGED/.test(l))).toEqual([]);
    expect(s.stderr()).not.toMatch(/[\x1b\r\u202e]/);
    // the notes say who called, on one line each
    expect(lines.some((l) => /list_models \(agent␤svc: FORGED LINE.*\): done/.test(l))).toBe(true);
    expect(lines.some((l) => /upload_file \(agent.*\): refused or failed: .*x␤svc: FORGED TOO␤/.test(l))).toBe(true);
  });
});

// issue 37 item 12: no runtime warning of Node's reaches the user's stderr, whatever the load (a listener added per
// call on something shared, and never removed, shows as MaxListenersExceededWarning past 10).
describe('svc mcp serve under 24 calls at once', () => {
  it("over stdio: stderr holds svc's own notes only (no '(node:' line, no MaxListenersExceededWarning)", async () => {
    const root = tempDir('svc-mcp-root-');
    writeFileSync(join(root, 'a.txt'), 'a\n');
    const s = await mcpStdio(['mcp', 'serve', '--root', root], { emu });
    let results: Awaited<ReturnType<Client['callTool']>>[];
    try {
      results = await Promise.all(Array.from({ length: 24 }, (_, i) => s.client.callTool(manyCalls(i))));
    } finally {
      await s.close();
    }
    expect(results.filter((r) => r.isError)).toEqual([]);
    expectOnlyNotes(s.stderr(), 24);
  });
});
