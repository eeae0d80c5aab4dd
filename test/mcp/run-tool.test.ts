// One tool call (src/mcp/run-tool.ts): what the agent is answered is the command's result or its error, never the
// server's own -v trace; arguments are tool arguments (no `-` for stdin or stdout).
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/files.js';
import { mcpStdio } from '../helpers/mcp.js';

type Result = { content: { type: string; text?: string }[]; isError?: boolean };
const text = (r: Result): string => r.content.find((c) => c.type === 'text')?.text ?? '';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('a tool call', () => {
  it("with svc -v: the trace goes to the server's stderr, the agent gets the error alone", async () => {
    const s = await mcpStdio(['-v', 'mcp', 'serve', '--tools', 'delete_file', '--root', tempDir()], { emu });
    let r: Result;
    try {
      r = (await s.client.callTool({ name: 'delete_file', arguments: { id: 'file_nosuch' } })) as Result;
    } finally {
      await s.close();
    }
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^delete_file: .*file_nosuch/);
    expect(text(r)).not.toMatch(/^[<>] |DELETE http|authorization/im);
    expect(s.stderr()).toMatch(/> DELETE http:\/\/127\.0\.0\.1:\d+\/v1\/files\/file_nosuch/);
  });

  it('speaks of tool arguments: no stdin or stdout in schemas or errors; `-` is no output path', async () => {
    const root = tempDir('svc-mcp-root-');
    const s = await mcpStdio(
      ['mcp', 'serve', '--root', root, '--tools', 'text_to_speech,download_file,speech_to_text,embed,generate_image'],
      { emu },
    );
    try {
      const { tools } = await s.client.listTools();
      for (const t of tools)
        for (const [name, p] of Object.entries(t.inputSchema.properties as Record<string, { description?: string }>))
          expect(p.description, `${t.name}.${name}`).not.toMatch(
            /stdout|stdin|\(-\)|- for|-o |--[a-z]|the speaker|\bhere\b/,
          );
      emu.clearRequests();
      for (const [name, args] of [
        ['text_to_speech', { text: 'hi', output: '-' }],
        ['download_file', { id: 'file_x', output: '-' }],
        ['generate_image', { prompt: 'a fox', output: '-' }],
      ] as const) {
        const r = (await s.client.callTool({ name, arguments: args })) as Result;
        expect(r.isError, name).toBe(true);
        expect(text(r)).toBe(`${name}: output: "-" is not allowed: a file path under the root`);
      }
      expect(existsSync(join(root, '-'))).toBe(false);
      const heard = (await s.client.callTool({ name: 'speech_to_text', arguments: { source: '-' } })) as Result;
      expect(heard.isError).toBe(true);
      expect(text(heard)).toMatch(/^speech_to_text: source: -: no such file under the root/);
      const folder = (await s.client.callTool({ name: 'speech_to_text', arguments: { source: '.' } })) as Result;
      expect(text(folder)).toMatch(/^speech_to_text: source: \. is not allowed: a regular file to read/);
      // a check that names another flag names it as the argument
      const alone = (await s.client.callTool({
        name: 'speech_to_text',
        arguments: { source: 'https://example.com/a.mp3', format: true },
      })) as Result;
      expect(text(alone)).toBe('speech_to_text: format (--format): true is not allowed: only together with language');
      const none = (await s.client.callTool({ name: 'embed', arguments: { texts: [] } })) as Result;
      expect(text(none)).toBe('embed: texts: [] is not allowed: a list of one or more texts');
      for (const r of [heard, folder, none]) expect(text(r)).not.toMatch(/stdin|pipe/);
      expect(emu.requests()).toEqual([]);
      expect(readdirSync(root)).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('generate_text reads a schema of at most 1 MiB: more is a tool error, nothing sent', async () => {
    const root = tempDir('svc-mcp-root-');
    const schema = (pad: number) => JSON.stringify({ type: 'object', description: 'x'.repeat(pad) });
    writeFileSync(join(root, 'big.json'), schema(1 << 20));
    writeFileSync(join(root, 'fits.json'), schema((1 << 20) - 100));
    const s = await mcpStdio(['mcp', 'serve', '--root', root, '--tools', 'generate_text'], { emu });
    try {
      emu.clearRequests();
      const big = (await s.client.callTool({
        name: 'generate_text',
        arguments: { prompt: 'hi', schema: 'big.json' },
      })) as Result;
      expect(big.isError).toBe(true);
      expect(text(big)).toBe(
        'generate_text: schema: big.json (over 1 MiB (1048576 bytes)) is not allowed: a file of at most that size',
      );
      const inline = (await s.client.callTool({
        name: 'generate_text',
        arguments: { prompt: 'hi', schema: JSON.parse(schema(1 << 20)) },
      })) as Result;
      expect(text(inline)).toMatch(
        /^generate_text: schema: a JSON object of \d+ bytes is not allowed: at most 1048576/,
      );
      expect(emu.requests()).toEqual([]);
      const fits = (await s.client.callTool({
        name: 'generate_text',
        arguments: { prompt: 'hi', schema: 'fits.json' },
      })) as Result;
      expect(fits.isError, text(fits)).toBeFalsy();
      expect(emu.requests().length).toBe(1);
    } finally {
      await s.close();
    }
  });
});
