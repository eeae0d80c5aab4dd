// docs/mcp.md: the configuration snippets for MCP hosts are valid JSON, and each starts `svc mcp serve` with flags the
// command takes (or names the HTTP endpoint it serves).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/files.js';
import { svcInProcess } from '../helpers/in-process.js';

const page = readFileSync(join(ROOT, 'docs', 'mcp.md'), 'utf8');
const blocks = [...page.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);

type Server = { command?: string; args?: string[]; type?: string; url?: string };
const serversOf = (config: Record<string, Record<string, Server>>): Server[] =>
  Object.values(config.mcpServers ?? config.servers ?? {});

describe('docs/mcp.md', () => {
  it('has the snippets of a desktop assistant, a code editor and a coding agent, each valid JSON', () => {
    expect(page).toContain('claude_desktop_config.json');
    expect(page).toContain('.vscode/mcp.json');
    expect(page).toContain('.mcp.json');
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    for (const b of blocks) expect(() => JSON.parse(b), b).not.toThrow();
  });

  it('every server a snippet starts is `svc mcp serve` with flags it accepts', async () => {
    const servers = blocks.flatMap((b) => serversOf(JSON.parse(b)));
    expect(servers.length).toBe(blocks.length);
    for (const s of servers) {
      if (s.type === 'http') {
        expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        continue;
      }
      expect(s.command).toBe('svc');
      expect(s.args!.slice(0, 2)).toEqual(['mcp', 'serve']);
      // the server starts with these flags and ends with its (empty) stdin: exit 0 (a bad flag would be exit 2)
      const args = s.args!.map((a) => a.replace('/Users/me/Pictures/generated', ROOT));
      const r = await svcInProcess(args, { input: '' });
      expect(r.stderr, args.join(' ')).toMatch(/svc MCP server on stdio/);
      expect(r.exitCode, args.join(' ')).toBe(0);
      expect(r.stdout).toBe('');
    }
  });
});
