// `svc mcp serve --http`: a session per client, so the call log and the notes name the client of `initialize` as
// they do over stdio; list tools answer a list, an empty one too, as text and as structured content.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/files.js';
import { expectOnlyNotes, manyCalls, mcpHttp, mcpHttpUrl } from '../helpers/mcp.js';
import { spawnSvc } from '../helpers/subprocess.js';

describe('svc mcp serve --http', () => {
  it('logs each call under the client of initialize; list_files with no files answers an empty list', async () => {
    const emu = await startTestEmulator();
    const configDir = tempDir('svc-mcp-cfg-');
    const token = 'test-token-0123456789';
    const child = spawnSvc(['mcp', 'serve', '--http', '0', '--root', tempDir()], {
      emu,
      configDir,
      env: { SVC_MCP_TOKEN: token },
    });
    try {
      const url = await mcpHttpUrl(child);
      const client = await mcpHttp(url, token);
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'list_files')?.outputSchema).toMatchObject({ required: ['items'] });
      const r = await client.callTool({ name: 'list_files', arguments: {} });
      expect(r.isError).toBeFalsy();
      expect(r.content).toEqual([{ type: 'text', text: '[]' }]);
      expect(r.structuredContent).toEqual({ items: [] });
      await client.close();
      // a session the server does not know (ended, or another server's): 404, initialize again
      const stale = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': 'no-such-session',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      expect(stale.status).toBe(404);
      expect(await stale.text()).toMatch(/no such session .*initialize again/);
    } finally {
      child.kill('SIGINT');
      await child.catch(() => undefined);
      await emu.close();
    }
    const stderr = String((await child.catch((e: { stderr: string }) => e)).stderr);
    expect(stderr).toMatch(/list_files \(svc-test-http\): done/);
    const logs = join(configDir, 'data', 'logs');
    const records = readdirSync(logs)
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) => readFileSync(join(logs, f), 'utf8').trim().split('\n'))
      .map((l) => JSON.parse(l) as { command: string; path: string });
    expect(records.find((x) => x.path === '/v1/files')?.command).toBe('mcp serve list_files (svc-test-http)');
  });

  it("24 calls at once: stderr holds svc's own lines only (no MaxListenersExceededWarning)", async () => {
    const emu = await startTestEmulator();
    const root = tempDir('svc-mcp-root-');
    writeFileSync(join(root, 'a.txt'), 'a\n');
    const token = 'test-token-0123456789';
    const child = spawnSvc(['mcp', 'serve', '--http', '0', '--root', root], { emu, env: { SVC_MCP_TOKEN: token } });
    try {
      const client = await mcpHttp(await mcpHttpUrl(child), token);
      const results = await Promise.all(Array.from({ length: 24 }, (_, i) => client.callTool(manyCalls(i))));
      expect(results.filter((r) => r.isError)).toEqual([]);
      await client.close();
    } finally {
      child.kill('SIGINT');
      await child.catch(() => undefined);
      await emu.close();
    }
    expectOnlyNotes(String((await child.catch((e: { stderr: string }) => e)).stderr), 24);
  });
});
