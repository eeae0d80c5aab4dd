// `svc mcp serve` driven by the official MCP SDK's client (test/helpers/mcp.ts) against the emulator: over stdio (the
// SDK spawns the built CLI) and over streamable HTTP; each tool called, its files and the emulator's requests checked.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { mcpHttp, mcpHttpUrl, mcpStdio, type McpSession } from '../../helpers/mcp.js';
import { spawnSvc, svcProcess } from '../../helpers/subprocess.js';
import { ROOT } from '../../helpers/files.js';
import { isLauncher } from '../../helpers/run-env.js';

type Content = { type: string; text?: string; data?: string; mimeType?: string };
type Result = { content: Content[]; isError?: boolean };

let emu: TestEmulator;
let docs: string;
beforeAll(async () => {
  docs = tempDir('svc-mcp-docs-');
  writeFileSync(join(docs, 'refunds.md'), '# Refunds\n\nA refund is paid within 14 days of the return.\n');
  emu = await startTestEmulator({ collections: { handbook: docs } });
});
afterAll(() => emu.close());

const text = (r: Result): string => r.content.find((c) => c.type === 'text')?.text ?? '';
const paths = () => emu.requests().map((r) => `${r.method} ${r.path}`);

async function call(s: McpSession, name: string, args: Record<string, unknown>): Promise<Result> {
  return (await s.client.callTool({ name, arguments: args })) as Result;
}

describe('svc mcp serve over stdio', () => {
  it('lists tools (valid JSON Schemas, honest annotations); each tool works; the call log names it', async () => {
    const root = tempDir('svc-mcp-root-');
    const configDir = tempDir('svc-mcp-cfg-');
    const s = await mcpStdio(['mcp', 'serve', '--root', root], { emu, configDir });
    try {
      expect(s.client.getServerVersion()?.name).toBe('svc');
      const { tools } = await s.client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual([
        'generate_text',
        'generate_image',
        'text_to_speech',
        'speech_to_text',
        'search_documents',
        'list_files',
        'upload_file',
        'download_file',
        'list_models',
        'embed',
      ]);
      const ajv = new Ajv({ strict: false });
      for (const t of tools) {
        expect(ajv.validateSchema(t.inputSchema), `${t.name}: ${ajv.errorsText()}`).toBe(true);
        ajv.compile(t.inputSchema);
        expect(t.annotations?.openWorldHint).toBe(true);
        expect(t.annotations?.destructiveHint).toBe(false);
      }
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      expect(byName.generate_text!.annotations?.readOnlyHint).toBe(true);
      expect(byName.upload_file!.annotations?.readOnlyHint).toBe(false);
      // derived from the flags' checks: the range of --temperature, the choices of --reasoning-effort
      const props = byName.generate_text!.inputSchema.properties as Record<string, Record<string, unknown>>;
      expect(props.temperature).toMatchObject({ type: 'number', minimum: 0, maximum: 2 });
      expect(props.reasoning_effort).toMatchObject({ enum: ['none', 'low', 'medium', 'high'] });
      expect(byName.generate_text!.inputSchema.required).toEqual(['prompt']);

      emu.clearRequests();
      const answer = await call(s, 'generate_text', {
        prompt: 'name a colour',
        model: 'svc-4-mini',
        system: 'be brief',
        schema: { type: 'object', properties: { colour: { type: 'string' } }, required: ['colour'] },
      });
      expect(answer.isError).toBeFalsy();
      expect(JSON.parse(text(answer))).toHaveProperty('colour');
      const sent = emu.requests().find((r) => r.path === '/v1/chat/completions')!;
      expect(JSON.parse(String(sent.body))).toMatchObject({
        model: 'svc-4-mini',
        response_format: { type: 'json_schema' },
      });

      const image = await call(s, 'generate_image', { prompt: 'a lighthouse' });
      const saved = text(image);
      expect(saved).toBe(join(root, 'image-1.png'));
      const img = image.content.find((c) => c.type === 'image')!;
      expect(img.mimeType).toBe('image/png');
      expect(Buffer.from(img.data!, 'base64').equals(readFileSync(saved))).toBe(true);

      const speech = await call(s, 'text_to_speech', { text: 'hello from the tools' });
      const spoken = JSON.parse(text(speech)) as { output: string; bytes: number };
      expect(spoken.output).toBe(join(root, 'speech-1.mp3'));
      expect(readFileSync(spoken.output).length).toBe(spoken.bytes);

      const heard = await call(s, 'speech_to_text', { source: 'speech-1.mp3' });
      expect(heard.isError).toBeFalsy();
      expect(text(heard).length).toBeGreaterThan(0);

      const found = await call(s, 'search_documents', { query: 'refund days', collection: ['handbook'] });
      expect(text(found)).toMatch(/refunds\.md/);

      writeFileSync(join(root, 'notes.txt'), 'notes for the agent\n');
      const uploaded = JSON.parse(text(await call(s, 'upload_file', { path: 'notes.txt' }))) as { id: string };
      expect(uploaded.id).toMatch(/^file/);
      expect(text(await call(s, 'list_files', {}))).toContain(uploaded.id);
      mkdirSync(join(root, 'back'));
      const down = await call(s, 'download_file', { id: uploaded.id, output: 'back/notes.txt' });
      expect(text(down)).toBe(join(root, 'back', 'notes.txt'));
      expect(readFileSync(join(root, 'back', 'notes.txt'), 'utf8')).toBe('notes for the agent\n');

      const models = text(await call(s, 'list_models', { kind: 'language' }));
      expect((JSON.parse(models) as { id: string }[]).map((m) => m.id)).toContain('svc-4');
      const vectors = text(await call(s, 'embed', { texts: ['one', 'two'] }));
      expect(vectors.trim().split('\n')).toHaveLength(2);

      // a value out of its flag's range: refused with the flag's message, nothing sent
      emu.clearRequests();
      const hot = await call(s, 'generate_text', { prompt: 'hi', temperature: 9 });
      expect(hot.isError).toBe(true);
      expect(text(hot)).toMatch(/temperature \(--temperature\): 9 is not allowed: a number from 0 to 2/);
      expect(text(await call(s, 'embed', { texts: ['x'], colour: 'red' }))).toMatch(/colour: not an argument/);
      expect(paths()).toEqual([]);
      expect(s.errors).toEqual([]);
    } finally {
      await s.close();
    }
    const logs = readdirSync(join(configDir, 'data', 'logs')).filter((f) => f.endsWith('.jsonl'));
    const records = logs.flatMap((f) =>
      readFileSync(join(configDir, 'data', 'logs', f), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { command: string; path: string }),
    );
    expect(records.find((r) => r.path === '/v1/chat/completions')?.command).toBe('mcp serve generate_text (svc-test)');
    expect(records.some((r) => r.command === 'mcp serve generate_image (svc-test)')).toBe(true);
  });

  it('refuses a write or a read outside --root, sending nothing', async () => {
    const root = tempDir('svc-mcp-root-');
    const outside = tempDir('svc-mcp-out-');
    writeFileSync(join(outside, 'secret.txt'), 'not for agents\n');
    const s = await mcpStdio(['mcp', 'serve', '--root', root], { emu });
    try {
      emu.clearRequests();
      const image = await call(s, 'generate_image', { prompt: 'a fox', output: join(outside, 'fox.png') });
      expect(image.isError).toBe(true);
      expect(text(image)).toMatch(/output: .*fox\.png is not allowed: a path under .* \(the --root of svc mcp serve\)/);
      const up = await call(s, 'upload_file', { path: `../${outside.split('/').pop()}/secret.txt` });
      expect(up.isError).toBe(true);
      expect(text(up)).toMatch(/path: .* is not allowed: a path under/);
      const schema = await call(s, 'generate_text', { prompt: 'hi', schema: '/etc/passwd' });
      expect(text(schema)).toMatch(/schema: \/etc\/passwd is not allowed: a path under/);
      const speech = await call(s, 'text_to_speech', { text: 'hi', output: '/etc/passwd' });
      expect(speech.isError).toBe(true);
      expect(paths()).toEqual([]);
      expect(existsSync(join(outside, 'fox.png'))).toBe(false);
      // never over a file that exists, inside the root either
      writeFileSync(join(root, 'keep.mp3'), 'mine');
      expect(text(await call(s, 'text_to_speech', { text: 'hi', output: 'keep.mp3' }))).toMatch(/exists/);
      expect(readFileSync(join(root, 'keep.mp3'), 'utf8')).toBe('mine');
      expect(paths()).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('a failing API: a tool error saying why, no file left behind, and the server keeps serving', async () => {
    const root = tempDir('svc-mcp-root-');
    const s = await mcpStdio(['mcp', 'serve', '--root', root], { emu });
    try {
      emu.faults.add({ kind: 'status', status: 500, path: '^/v1/images/generations$', times: 3 });
      const failed = await call(s, 'generate_image', { prompt: 'a fox', output: 'fox.png' });
      expect(failed.isError).toBe(true);
      expect(text(failed)).toMatch(/^generate_image: .*500/);
      expect(readdirSync(root)).toEqual([]);
      emu.faults.add({ kind: 'drop', path: '^/v1/chat/completions$', times: 3 });
      const dropped = await call(s, 'generate_text', { prompt: 'hi' });
      expect(dropped.isError).toBe(true);
      emu.faults.clear();
      const ok = await call(s, 'generate_image', { prompt: 'a fox', output: 'fox.png' });
      expect(text(ok)).toBe(join(root, 'fox.png'));
      expect(s.errors).toEqual([]);
    } finally {
      emu.faults.clear();
      await s.close();
    }
  });

  it('over budget: a billable tool is a tool error naming the budget, nothing sent; reads still go', async () => {
    const configDir = tempDir('svc-mcp-cfg-');
    expect((await svcInProcess(['config', 'set', 'budget.daily', '0.5'], { emu, configDir })).exitCode).toBe(0);
    const now = new Date();
    const logs = join(configDir, 'data', 'logs');
    mkdirSync(logs, { recursive: true });
    const spent = { id: 'x', time: now.toISOString(), command: 'chat', method: 'POST', path: '/v1/chat/completions' };
    writeFileSync(
      join(logs, `calls-${now.toISOString().slice(0, 10)}.jsonl`),
      `${JSON.stringify({ ...spent, status: 200, duration_ms: 5, cost_usd: 0.75 })}\n`,
    );
    const s = await mcpStdio(['mcp', 'serve'], { emu, configDir });
    try {
      emu.clearRequests();
      const r = await call(s, 'generate_text', { prompt: 'hello' });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/today's spend \$0\.7500 has reached budget\.daily \$0\.5; nothing was sent/);
      const img = await call(s, 'generate_image', { prompt: 'a fox' });
      expect(text(img)).toMatch(/budget\.daily/);
      expect(paths()).toEqual([]);
      const models = await call(s, 'list_models', {});
      expect(models.isError).toBeFalsy();
      expect(paths()).toEqual(['GET /v1/models']);
    } finally {
      await s.close();
    }
  });

  it('--read-only offers only the tools that change nothing; delete_file only when named', async () => {
    const ro = await mcpStdio(['mcp', 'serve', '--read-only'], { emu });
    try {
      const { tools } = await ro.client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        'generate_text',
        'speech_to_text',
        'search_documents',
        'list_files',
        'list_models',
        'embed',
      ]);
      expect(tools.every((t) => t.annotations?.readOnlyHint)).toBe(true);
      const r = (await ro.client.callTool({ name: 'upload_file', arguments: { path: 'x' } })) as Result;
      expect(r.isError).toBe(true);
    } finally {
      await ro.close();
    }
    const del = await mcpStdio(['mcp', 'serve', '--tools', 'delete_file,list_files'], { emu });
    try {
      const { tools } = await del.client.listTools();
      expect(tools.map((t) => [t.name, t.annotations?.destructiveHint])).toEqual([
        ['list_files', false],
        ['delete_file', true],
      ]);
      emu.clearRequests();
      const r = await call(del, 'delete_file', { id: 'file_nosuch' });
      expect(r.isError).toBe(true);
      expect(paths()).toEqual(['DELETE /v1/files/file_nosuch']);
    } finally {
      await del.close();
    }
  });

  it('bad flags: exit 2 naming the flag and what is allowed', async () => {
    const both = await svcInProcess(['mcp', 'serve', '--read-only', '--tools', 'upload_file'], { emu });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toMatch(/--tools: upload_file is not allowed together with --read-only/);
    const typo = await svcInProcess(['mcp', 'serve', '--tools', 'chat'], { emu });
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toMatch(/--tools: chat is not allowed: tool names among generate_text, /);
    const port = await svcInProcess(['mcp', 'serve', '--http', '70000'], { emu });
    expect(port.exitCode).toBe(2);
    expect(port.stderr).toMatch(/--http: 70000 is not allowed: a whole number from 0 to 65535/);
    const root = await svcInProcess(['mcp', 'serve', '--root', '/nonexistent/dir'], { emu });
    expect(root.exitCode).toBe(2);
    expect(root.stderr).toMatch(/--root: \/nonexistent\/dir is not allowed: a folder that exists/);
  });

  it('stdout carries protocol only, notes on stderr; at the end of stdin every request is answered', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const callText = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'generate_text', arguments: { prompt: 'hi' } },
    };
    // all written and stdin closed at once: the server answers every request read before it ends
    const input = [init, { jsonrpc: '2.0', method: 'notifications/initialized' }, list, callText]
      .map((m) => `${JSON.stringify(m)}\n`)
      .join('');
    const child = spawnSvc(['-v', 'mcp', 'serve'], { emu, input });
    const r = await child;
    expect(r.exitCode).toBe(0);
    const lines = String(r.stdout).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).id)).toEqual([1, 2, 3]);
    for (const l of lines) expect(JSON.parse(l).jsonrpc).toBe('2.0');
    // -v traces the request (on stderr), the notes too
    expect(String(r.stderr)).toMatch(/POST .*\/v1\/chat\/completions/);
    expect(String(r.stderr)).toMatch(/generate_text \(raw\): done/);
  });
});

describe('svc mcp serve --http', () => {
  it('answers the SDK client over streamable HTTP with the bearer token; refuses one without it', async () => {
    const root = tempDir('svc-mcp-root-');
    const token = 'test-token-0123456789';
    const child = spawnSvc(['mcp', 'serve', '--http', '0', '--root', root], { emu, env: { SVC_MCP_TOKEN: token } });
    try {
      const url = await mcpHttpUrl(child);
      const anonymous = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(anonymous.status).toBe(401);
      const client = await mcpHttp(url, token);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('generate_image');
      emu.clearRequests();
      const r = (await client.callTool({ name: 'generate_image', arguments: { prompt: 'a kite' } })) as Result;
      expect(text(r)).toBe(join(root, 'image-1.png'));
      expect(r.content.some((c) => c.type === 'image')).toBe(true);
      expect(paths()).toContain('POST /v1/images/generations');
      await client.close();
    } finally {
      child.kill('SIGTERM');
      await child;
    }
    expect(String((await child).stderr)).not.toContain(token);
  });
});

describe('svc mcp serve --http without SVC_MCP_TOKEN', () => {
  it('makes a token, prints it on stderr (nothing on stdout), and accepts only it', async () => {
    const child = spawnSvc(['mcp', 'serve', '--http', '0', '--read-only'], { emu });
    try {
      const [url, token] = await new Promise<[string, string]>((resolve, reject) => {
        let seen = '';
        child.stderr!.on('data', (d: Buffer) => {
          seen += d.toString();
          const m = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)[\s\S]*token: (\S+) /.exec(seen);
          if (m) resolve([m[1]!, m[2]!]);
        });
        child.catch(reject);
      });
      expect(token.length).toBeGreaterThanOrEqual(32);
      await expect(mcpHttp(url, 'not-the-token')).rejects.toThrow();
      const client = await mcpHttp(url, token);
      expect((await client.listTools()).tools.every((t) => t.annotations?.readOnlyHint)).toBe(true);
      await client.close();
    } finally {
      // Ctrl-C stops the server cleanly (exit 0)
      child.kill('SIGINT');
    }
    const r = await child;
    expect(r.exitCode).toBe(0);
    expect(String(r.stdout)).toBe('');
  });
});

describe('start-up', () => {
  // initialize and tools/list are answered from the build's table (mcp/built-listing.ts, mcp/stdio-front.ts); the
  // SDK's server, a tool's command, the tool runner and ajv (the SDK's validator of elicitation answers, which svc
  // never asks for) load when first needed
  it('answers initialize and tools/list without loading the SDK, the commands its tools run or ajv', async () => {
    const tools = ['generate_text', 'list_models'];
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'trace', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    const run = async (more: object[]) => {
      const trace = join(tempDir(), 'imports.txt');
      const input = [...messages, ...more].map((m) => `${JSON.stringify(m)}\n`).join('');
      const r = await svcProcess(['mcp', 'serve', '--tools', tools.join(',')], {
        emu,
        input,
        nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs')],
        env: { SVC_TRACE_IMPORTS: trace },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      const replies = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      return { replies, loaded: readFileSync(trace, 'utf8').split('\n').filter(Boolean) };
    };
    const commandOrRunner =
      /\/commands\/(models|chat)\/|\/mcp\/run-tool|[\\/]ajv[\\/]|shared\/(run-tool|discriminator)-/;
    const listed = await run([]);
    expect(listed.replies[1].result.tools.map((t: { name: string }) => t.name)).toEqual(tools);
    expect(listed.loaded.some(isLauncher)).toBe(true);
    expect(listed.loaded.filter((u) => commandOrRunner.test(u))).toEqual([]);
    // nor the SDK: the session's start is answered by the stdio front, from the build's table and versions
    expect(listed.loaded.filter((u) => /modelcontextprotocol|zod|shared\/types-/.test(u))).toEqual([]);
    expect(listed.replies[0].result).toEqual({
      protocolVersion: '2025-06-18',
      capabilities: { tools: {} },
      serverInfo: { name: 'svc', title: 'svc: the API as tools', version: expect.any(String) },
    });
    // the first call loads its command (and only its own)
    const called = await run([{ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_models' } }]);
    expect(called.replies[2].result.content[0].text).toContain('svc-4');
    expect(called.loaded.filter((u) => /\/commands\/(models|chat)\//.test(u)).join('\n')).toMatch(/models\/list/);
    expect(called.loaded.filter((u) => /\/commands\/chat\//.test(u))).toEqual([]);
    expect(called.loaded.some((u) => /modelcontextprotocol/.test(u))).toBe(true);
  });

  it('svc --help, svc chat --help and svc mcp serve --help load nothing of the MCP SDK or zod', async () => {
    for (const args of [['--help'], ['chat', '--help'], ['mcp', 'serve', '--help']]) {
      const trace = join(tempDir(), 'imports.txt');
      const r = await svcProcess(args, {
        nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs')],
        env: { SVC_TRACE_IMPORTS: trace },
      });
      expect(r.exitCode).toBe(0);
      const loaded = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
      expect(loaded.some(isLauncher)).toBe(true);
      expect(loaded.filter((u) => /modelcontextprotocol|zod|\/mcp\/(server|client|run-tool|http)/.test(u))).toEqual([]);
    }
  });
});
