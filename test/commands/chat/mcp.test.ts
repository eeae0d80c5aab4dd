// `svc chat --mcp 'COMMAND ARGS'`: a small MCP server written for the test with the official SDK
// (test/fixtures/mcp/two-tools.mjs: city_facts answers text, draw_square an image) lends its tools to the emulator's
// model, which calls the tool its prompt names; the result reaches the next turn and the answer prints. A server
// that exits or hangs is a clear error within --timeout, and nothing reaches the API.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { itWithEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { ROOT, tempDir } from '../../helpers/files.js';
import { svcInProcess } from '../../helpers/in-process.js';

const it = itWithEmulator();
const SERVER = `node ${join(ROOT, 'test', 'fixtures', 'mcp', 'two-tools.mjs')}`;

type Message = { role: string; content: unknown; tool_call_id?: string };
const chatBodies = (emu: TestEmulator) =>
  emu
    .requests()
    .filter((r) => r.path === '/v1/chat/completions')
    .map((r) => JSON.parse(r.body!) as { messages: Message[]; tools?: { function: { name: string } }[] });

describe.concurrent('svc chat --mcp', () => {
  it('offers the server tools; the model calls one, its text reaches the next turn, the answer prints', async ({
    emu,
  }) => {
    const log = join(tempDir('svc-mcp-log-'), 'calls.log');
    const r = await svcInProcess(['chat', '--mcp', SERVER, 'use city_facts please'], {
      emu,
      env: { MCP_TEST_LOG: log },
    });
    expect(r.stderr).toMatch(/running city_facts \{"city":/);
    expect(r.exitCode).toBe(0);
    const [first, second] = chatBodies(emu);
    expect(first!.tools!.map((t) => t.function.name)).toEqual(['city_facts', 'draw_square']);
    const called = readFileSync(log, 'utf8').trim();
    expect(called).toMatch(/^city_facts \{"city":".*"\}$/);
    const city = JSON.parse(called.slice('city_facts '.length)).city as string;
    const tool = second!.messages.find((m) => m.role === 'tool')!;
    expect(tool.content).toBe(`${city} has 2 rivers`);
    expect(r.stdout).toMatch(new RegExp(`^The tool returned ${city} has 2 rivers\\.`));
  });

  it('passes an image result on as an image part of the tool message', async ({ emu }) => {
    const r = await svcInProcess(['chat', '--mcp', SERVER, '--no-stream', 'use draw_square'], { emu });
    expect(r.exitCode).toBe(0);
    const second = chatBodies(emu)[1]!;
    const tool = second.messages.find((m) => m.role === 'tool')!;
    const parts = tool.content as { type: string; text?: string; image_url?: { url: string } }[];
    expect(parts[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^a .* square$/) });
    expect(parts[1]!.type).toBe('image_url');
    expect(parts[1]!.image_url!.url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    expect(r.stdout).toMatch(/^The tool returned a .* square\./);
  });

  it("a server gets svc's environment without svc's secrets (the key, tokens)", async ({ emu }) => {
    const dump = join(tempDir('svc-mcp-env-'), 'env.json');
    const r = await svcInProcess(['chat', '--mcp', SERVER, 'hi'], {
      emu,
      env: { MCP_TEST_ENV: dump, SVC_WEBHOOK_SECRET: 'whsec_mcp_test', SVC_EMULATOR_ADMIN_TOKEN: 'admin-mcp-test' },
    });
    expect(r.exitCode).toBe(0);
    const env = JSON.parse(readFileSync(dump, 'utf8')) as Record<string, string>;
    expect(env.MCP_TEST_ENV).toBe(dump);
    expect(Object.keys(env).filter((k) => /^SVC_\w*(API_KEY|SECRET|TOKEN)/.test(k))).toEqual([]);
    expect(JSON.stringify(env)).not.toContain(emu.key);
  });

  it('a server named in the config (mcp.NAME) is started by --mcp NAME', async ({ emu }) => {
    const configDir = tempDir('svc-mcp-cfg-');
    const set = await svcInProcess(['config', 'set', 'mcp.facts', SERVER], { emu, configDir });
    expect(set.exitCode).toBe(0);
    const r = await svcInProcess(['chat', '--mcp', 'facts', 'use city_facts'], { emu, configDir });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^The tool returned .* has 2 rivers\./);
  });

  it('a server that exits at start: a clear error naming it and what it said; nothing sent', async ({ emu }) => {
    const r = await svcInProcess(['-v', 'chat', '--mcp', `${SERVER} exit`, 'hi'], { emu });
    expect(r.exitCode).toBe(1);
    // -v shows what the server writes on stderr as it comes, named
    expect(r.stderr).toMatch(/\[node .*two-tools\.mjs exit\] two-tools: cannot open the database/);
    expect(r.stderr).toMatch(
      /--mcp .*two-tools\.mjs exit: the MCP server exited before it could start; it said: two-tools: cannot open/,
    );
    expect(emu.requests()).toEqual([]);
  });

  it('a server that never answers: an error within --timeout; nothing sent', async ({ emu }) => {
    const r = await svcInProcess(['--timeout', '1', 'chat', '--mcp', `${SERVER} hang`, 'hi'], { emu });
    expect(r.exitCode).toBe(1);
    // (what the server wrote on stderr is added when it came in time: under load node may not have started yet)
    expect(r.stderr).toMatch(/--mcp .*two-tools\.mjs hang: the MCP server did not start within 1 s \(--timeout\)/);
    expect(emu.requests()).toEqual([]);
  });

  it('a server that dies during a call: a clear error', async ({ emu }) => {
    const r = await svcInProcess(['chat', '--mcp', `${SERVER} crash-on-call`, 'use city_facts'], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/the MCP server exited before it could answer a call of city_facts/);
    expect(chatBodies(emu)).toHaveLength(1);
  });

  it('a server that cannot start: its first error line, not the tail of its stack trace (issue 37, 12)', async ({
    emu,
  }) => {
    const r = await svcInProcess(['chat', '--mcp', 'node ./missing.mjs', 'hi'], { emu, cwd: tempDir('svc-mcp-') });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      /--mcp node \.\/missing\.mjs: the MCP server exited before it could start; it said: Error: Cannot find module '.*missing\.mjs'/,
    );
    expect(r.stderr).not.toMatch(/requireStack|Node\.js v\d/);
    expect(emu.requests()).toEqual([]);
  });

  it('a result over --mcp-max-result is cut: the model gets the first KiB and is told, so is stderr', async ({
    emu,
  }) => {
    const r = await svcInProcess(['chat', '--mcp', `${SERVER} huge`, '--mcp-max-result', '4', 'use city_facts'], {
      emu,
      env: { MCP_TEST_RESULT_BYTES: String(100_000) },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(
      /the result of city_facts was 97\.7 KiB; the model gets its first 4\.0 KiB \(--mcp-max-result\)/,
    );
    const tool = chatBodies(emu)[1]!.messages.find((m) => m.role === 'tool')!;
    expect(tool.content).toBe(
      `${'x'.repeat(4096)}\n[svc: the tool's result was 97.7 KiB; cut to its first 4.0 KiB (--mcp-max-result)]`,
    );
  });

  it('the default cap is 1 MiB (an 8 MB result is not sent whole)', async ({ emu }) => {
    const r = await svcInProcess(['chat', '--mcp', `${SERVER} huge`, '--no-stream', 'use city_facts'], {
      emu,
      env: { MCP_TEST_RESULT_BYTES: String(8_000_000) },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/the result of city_facts was 7\.6 MiB; the model gets its first 1\.0 MiB/);
    // (a body this size is not kept in the emulator's log: its size is)
    const second = emu.requests().filter((q) => q.path === '/v1/chat/completions')[1]!;
    expect(second.bytes).toBeGreaterThan(1024 * 1024);
    expect(second.bytes).toBeLessThan(1024 * 1024 + 16 * 1024);
  });

  it('a reply too large to read is reported as that (not as a server that exited); the model is told', async ({
    emu,
  }) => {
    const r = await svcInProcess(['chat', '--mcp', `${SERVER} huge`, '--no-stream', 'use city_facts'], {
      emu,
      env: { MCP_TEST_RESULT_BYTES: String(17 * 1024 * 1024) },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/the result of city_facts was 17\.0 MiB, more than svc reads of one reply \(16\.0 MiB\)/);
    expect(r.stderr).not.toMatch(/exited/);
    const tool = chatBodies(emu)[1]!.messages.find((m) => m.role === 'tool')!;
    expect(JSON.parse(tool.content as string).error).toMatch(/was 17\.0 MiB, .*nothing of it was passed on/);
  });

  it('--mcp-max-result: its range, and only with --mcp (exit 2, nothing sent)', async ({ emu }) => {
    for (const [args, message] of [
      [['--mcp', SERVER, '--mcp-max-result', '0', 'hi'], /--mcp-max-result: 0 is not allowed: .*1.*65536/],
      [['--mcp', SERVER, '--mcp-max-result', '65537', 'hi'], /--mcp-max-result: 65537 is not allowed/],
      [['--mcp-max-result', '8', 'hi'], /--mcp-max-result: 8 is not allowed: only with --mcp/],
    ] as const) {
      const r = await svcInProcess(['chat', ...args], { emu });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(emu.requests()).toEqual([]);
  });

  it('--max-turns bounds the loop as with --tool-cmd', async ({ emu }) => {
    const r = await svcInProcess(['chat', '--mcp', SERVER, '--max-turns', '1', 'use city_facts'], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/stopped after 1 model turn \(--max-turns 1\): the model still wanted to call city_facts/);
  });

  it('bad combinations and --approve where nobody can be asked: exit 2, nothing sent', async ({ emu }) => {
    const cases: [string[], RegExp][] = [
      [['--approve', '--mcp', SERVER, 'hi'], /--approve: stdin is not a terminal to ask on \(nothing was sent\)/],
      [
        ['--no-input', 'chat', '--approve', '--mcp', SERVER, 'hi'],
        /--approve asks before each tool call: .*--no-input/,
      ],
      [['--approve', 'hi'], /--approve: set is not allowed: only together with --tool-cmd or --mcp/],
      [['--mcp', SERVER, '--deferred', 'hi'], /--deferred: set is not allowed: not together with --mcp/],
      [['--mcp', SERVER, '-n', '2', 'hi'], /-n: 2 is not allowed: only 1 together with --tool-cmd or --mcp/],
      [['--mcp', "node 'unclosed", 'hi'], /--mcp: node 'unclosed is not allowed: a command line whose quotes close/],
    ];
    for (const [args, message] of cases) {
      const r = await svcInProcess(args[0] === '--no-input' ? args : ['chat', ...args], { emu });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(emu.requests()).toEqual([]);
  });
});
