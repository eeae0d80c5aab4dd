// issue 12 item 2 (and the responses part of 4): request fields every flag reaches, as the emulator saw them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcOnTerminal } from '../../helpers/terminal.js';
import { tempDir, writeTemp } from '../../helpers/files.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const posted = () =>
  emu
    .requests()
    .filter((r) => r.path === '/v1/responses' && r.method === 'POST')
    .map((r) => JSON.parse(r.body!));

describe('svc responses create: every field', () => {
  it('search source flags build search_parameters.sources, as chat does', async () => {
    emu.clearRequests();
    const r = await svcInProcess(
      [
        'responses',
        'create',
        '--search',
        'on',
        '--search-source',
        'news',
        '--search-country',
        'de',
        '--allowed-website',
        'example.org',
        '--x-handle',
        'svc',
        '--rss',
        'https://example.org/feed.xml',
        '--no-safe-search',
        'headlines',
      ],
      { emu },
    );
    expect(r.exitCode).toBe(0);
    expect(posted()[0].search_parameters).toEqual({
      mode: 'on',
      sources: [
        { type: 'news', country: 'DE', safe_search: false },
        { type: 'web', country: 'DE', safe_search: false, allowed_websites: ['example.org'] },
        { type: 'x', included_x_handles: ['svc'] },
        { type: 'rss', links: ['https://example.org/feed.xml'] },
      ],
    });
  });

  it('a {"type":"web_search"} tool file is sent as is, next to function tools', async () => {
    emu.clearRequests();
    const web = writeTemp('web.json', JSON.stringify({ type: 'web_search' }));
    const fn = writeTemp('fn.json', JSON.stringify({ name: 'lookup', parameters: { type: 'object', properties: {} } }));
    const r = await svcInProcess(['responses', 'create', '--tool', web, '--tool', fn, 'find it'], { emu });
    expect(r.exitCode).toBe(0);
    expect(posted()[0].tools).toEqual([
      { type: 'web_search' },
      { type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } },
    ]);
  });

  it('a tool of a type the convention does not know is exit 2', async () => {
    emu.clearRequests();
    const r = await svcInProcess(
      ['responses', 'create', '--tool', writeTemp('shell.json', JSON.stringify({ type: 'shell' })), 'x'],
      { emu },
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--tool: .*shell\.json\[0\] .*function, web_search, web_search_preview \(got "shell"\)/);
    expect(emu.requests()).toEqual([]);
  });

  it('--context-management (inline or a file) and --reasoning-generate-summary reach the body', async () => {
    emu.clearRequests();
    const cm = [{ type: 'compaction', compact_threshold: 1000 }];
    const file = writeTemp('cm.json', JSON.stringify(cm));
    const r = await svcInProcess(
      [
        'responses',
        'create',
        '-m',
        'svc-4-reasoning',
        '--context-management',
        file,
        '--reasoning-generate-summary',
        'concise',
        '--reasoning-summary',
        'auto',
        'plan',
      ],
      { emu },
    );
    expect(r.exitCode).toBe(0);
    const inline = await svcInProcess(['responses', 'create', '--context-management', JSON.stringify(cm), 'x'], {
      emu,
    });
    expect(inline.exitCode).toBe(0);
    const [a, b] = posted();
    expect(a.context_management).toEqual(cm);
    expect(a.reasoning).toEqual({ summary: 'auto', generate_summary: 'concise' });
    expect(b.context_management).toEqual(cm);
    const bad = await svcInProcess(['responses', 'create', '--context-management', '{"a":1}', 'x'], { emu });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--context-management: .*a JSON array/);
  });

  it('--background is sent; the server refuses it (unsupported) and its message is shown, exit 1', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['responses', 'create', '--background', 'x'], { emu });
    expect(posted()[0].background).toBe(true);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/background responses are not supported/);
  });

  it(
    "--previous ID without -m uses the continued response's model (asked of the server when not " + 'remembered)',
    async () => {
      const one = await svcInProcess(['responses', 'create', '-m', 'svc-4-mini', '--json', '--no-stream', 'first'], {
        emu,
      });
      const id = JSON.parse(one.stdout).id as string;
      emu.clearRequests();
      // a fresh config dir: nothing remembered, so the model comes from GET /v1/responses/ID
      const two = await svcInProcess(['responses', 'create', '--previous', id, 'second'], { emu });
      expect(two.exitCode).toBe(0);
      expect(emu.requests().some((q) => q.method === 'GET' && q.path === `/v1/responses/${id}`)).toBe(true);
      expect(posted()[0]).toMatchObject({ model: 'svc-4-mini', previous_response_id: id });
      emu.clearRequests();
      const three = await svcInProcess(['responses', 'create', '--previous', id, '-m', 'svc-4', 'third'], { emu });
      expect(three.exitCode).toBe(0);
      expect(posted()[0].model).toBe('svc-4');
    },
  );

  it('--previous with the remembered last response takes its model without asking', async () => {
    const configDir = tempDir();
    const one = await svcInProcess(['responses', 'create', '-m', 'svc-4-mini', '--json', '--no-stream', 'first'], {
      emu,
      configDir,
    });
    const id = JSON.parse(one.stdout).id as string;
    emu.clearRequests();
    const two = await svcInProcess(['responses', 'create', '--previous', id, 'second'], { emu, configDir });
    expect(two.exitCode).toBe(0);
    expect(emu.requests().filter((q) => q.method === 'GET')).toEqual([]);
    expect(posted()[0].model).toBe('svc-4-mini');
  });

  it('a malformed JSON --input file is exit 2, nothing sent; text files stay text', async () => {
    emu.clearRequests();
    const bad = await svcInProcess(
      ['responses', 'create', '--input', writeTemp('bad.json', '[{"type": "message", "role": "user"'), 'x'],
      { emu },
    );
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--input: .*bad\.json .*valid JSON or JSON lines/);
    expect(emu.requests()).toEqual([]);
    const text = await svcInProcess(
      ['responses', 'create', '--input', writeTemp('notes.txt', 'plain notes'), '--no-stream'],
      { emu },
    );
    expect(text.exitCode).toBe(0);
    expect(posted()[0].input).toEqual([{ type: 'message', role: 'user', content: 'plain notes' }]);
  });

  it('-u names the model that answered, not the alias that was asked for', async () => {
    const r = await svcInProcess(['responses', 'create', '-u', 'hi'], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/usage: .* · svc-4\n/);
    expect(r.stderr).not.toContain('svc-latest');
  });

  it('prints the response id on stderr on a terminal, not in a pipe', async () => {
    const term = await svcOnTerminal(['responses', 'create', 'hello'], { emu });
    expect(term.exitCode).toBe(0);
    expect(term.screen).toMatch(/\nresponse [0-9a-z_-]{8,}/);
    const pipe = await svcInProcess(['responses', 'create', 'hello'], { emu });
    expect(pipe.stderr).toBe('');
    const unstored = await svcOnTerminal(['responses', 'create', '--no-store', 'hello'], { emu });
    expect(unstored.screen).not.toMatch(/\nresponse /);
  });
});
