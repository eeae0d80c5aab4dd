// `svc responses create --mcp 'COMMAND ARGS'`: the tools of an MCP server written for the test with the official SDK
// (test/fixtures/mcp/two-tools.mjs) in the responses loop: text as a function_call_output, images as a user message
// of input_image parts after the outputs (function_call_output carries a string).
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { itWithEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { ROOT } from '../../helpers/files.js';
import { svcInProcess } from '../../helpers/in-process.js';

const it = itWithEmulator();
const SERVER = `node ${join(ROOT, 'test', 'fixtures', 'mcp', 'two-tools.mjs')}`;

type Item = { type?: string; role?: string; output?: string; content?: unknown };
const bodies = (emu: TestEmulator) =>
  emu
    .requests()
    .filter((r) => r.method === 'POST' && r.path === '/v1/responses')
    .map((r) => JSON.parse(r.body!) as { input: string | Item[]; tools?: { name: string }[] });

describe.concurrent('svc responses create --mcp', () => {
  it("runs the model's call through the server; the output reaches the next turn; the answer prints", async ({
    emu,
  }) => {
    const r = await svcInProcess(['responses', 'create', '--mcp', SERVER, 'use city_facts'], { emu });
    expect(r.exitCode).toBe(0);
    const [first, second] = bodies(emu);
    expect(first!.tools!.map((t) => t.name)).toEqual(['city_facts', 'draw_square']);
    const output = (second!.input as Item[]).find((i) => i.type === 'function_call_output')!;
    expect(output.output).toMatch(/^.+ has 2 rivers$/);
    expect(r.stdout).toMatch(/^The tool returned .+ has 2 rivers\./);
  });

  it('passes an image result on as an input_image of a user message', async ({ emu }) => {
    const r = await svcInProcess(['responses', 'create', '--mcp', SERVER, '--max-turns', '3', 'use draw_square'], {
      emu,
    });
    expect(r.exitCode).toBe(0);
    const input = bodies(emu)[1]!.input as Item[];
    expect(input[0]).toMatchObject({ type: 'function_call_output', output: expect.stringMatching(/^a .* square$/) });
    const parts = input[1]!.content as { type: string; image_url?: string }[];
    expect(input[1]!.role).toBe('user');
    expect(parts[1]).toMatchObject({ type: 'input_image' });
    expect(parts[1]!.image_url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
  });

  it('a server that exits at start: a clear error; nothing sent', async ({ emu }) => {
    const r = await svcInProcess(['responses', 'create', '--mcp', `${SERVER} exit`, 'hi'], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/the MCP server exited before it could start; it said: two-tools: cannot open/);
    expect(bodies(emu)).toEqual([]);
  });
});
