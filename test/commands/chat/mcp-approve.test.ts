// `svc chat --approve --mcp …` on a real terminal (tmux): the question before the call; a no is told to the model
// (the server is never called), a yes runs the call.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { ROOT, tempDir } from '../../helpers/files.js';
import { TmuxTerminal } from '../../helpers/terminal.js';

const SERVER = `node ${join(ROOT, 'test', 'fixtures', 'mcp', 'two-tools.mjs')}`;
let emu: TestEmulator;
const term = new TmuxTerminal();

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  term.stop();
  await emu.close();
});

const toolMessage = () => {
  const bodies = emu
    .requests()
    .filter((r) => r.path === '/v1/chat/completions')
    .map((r) => JSON.parse(r.body!) as { messages: { role: string; content: unknown }[] });
  return bodies[1]?.messages.find((m) => m.role === 'tool')?.content;
};

describe('svc chat --approve on a terminal', () => {
  it('a no is told to the model and the server is not called; a yes runs the call', async () => {
    const log = join(tempDir('svc-approve-'), 'calls.log');
    emu.clearRequests();
    term.start(['chat', '--approve', '--mcp', SERVER, 'use city_facts'], { emu, env: { MCP_TEST_LOG: log } });
    await term.waitFor(/run city_facts \{"city":".*"\}\? \[y\/N\] /);
    term.keys('n', 'Enter');
    let screen = await term.waitFor('EXIT=0');
    expect(screen).toContain('The tool returned {"error":"the user declined this call"}');
    expect(toolMessage()).toBe('{"error":"the user declined this call"}');
    expect(existsSync(log)).toBe(false);

    emu.clearRequests();
    term.start(['chat', '--approve', '--mcp', SERVER, 'use city_facts'], { emu, env: { MCP_TEST_LOG: log } });
    await term.waitFor(/\? \[y\/N\] /);
    term.keys('y', 'Enter');
    screen = await term.waitFor('EXIT=0');
    expect(readFileSync(log, 'utf8')).toMatch(/^city_facts /);
    expect(toolMessage()).toMatch(/ has 2 rivers$/);
    expect(screen).toMatch(/The tool returned .* has 2 rivers/);
  });

  it('in the REPL the question comes at its prompt, and its answer is not taken as the next turn', async () => {
    const log = join(tempDir('svc-approve-'), 'calls.log');
    emu.clearRequests();
    term.start(['chat', '-i', '--no-save', '--approve', '--mcp', SERVER], { emu, env: { MCP_TEST_LOG: log } });
    await term.waitFor('svc chat · ');
    term.keys('use city_facts', 'Enter');
    await term.waitFor(/run city_facts \{"city":".*"\}\? \[y\/N\] /);
    term.keys('y', 'Enter');
    let screen = await term.waitFor(/The tool returned .* has 2 rivers/);
    expect(readFileSync(log, 'utf8')).toMatch(/^city_facts /);
    term.keys('/exit', 'Enter');
    screen = await term.waitFor('EXIT=0');
    // two model turns (the call, the answer): the "y" was no prompt of its own
    const prompts = emu
      .requests()
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => (JSON.parse(r.body!) as { messages: { role: string }[] }).messages.filter((m) => m.role === 'user'));
    expect(prompts.map((p) => p.length)).toEqual([1, 1]);
    expect(screen).not.toMatch(/answer to "y"/);
  });
});
