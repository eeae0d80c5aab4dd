// `svc realtime talk --mcp 'COMMAND ARGS'`: an MCP server's tool (test/fixtures/mcp/two-tools.mjs, written with the
// official SDK) called by the emulator's voice model; its text goes back as the function_call_output and is spoken.
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { ROOT, tempDir } from '../../helpers/files.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { lastSession, talking, wavClip } from './talk-helpers.js';

const SERVER = `node ${join(ROOT, 'test', 'fixtures', 'mcp', 'two-tools.mjs')}`;

describe.concurrent('svc realtime talk --mcp', () => {
  talking('the model calls the server tool; its text result comes back and is answered', async ({ emu }) => {
    // no long silence after the question: at the end of a file svc sends the VAD's silence itself and waits for
    // the answer (and the tool call before it)
    const input = wavClip('mcp-tool.wav', [
      { silence: 200 },
      { say: 'please use the city facts tool' },
      { silence: 300 },
    ]);
    const out = join(tempDir(), 'answer.wav');
    const r = await svcInProcess(['realtime', 'talk', '--input', input, '--output', out, '--mcp', SERVER], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const log = lastSession(emu);
    const call = log.responses[0]!.function_call!;
    expect(call.name).toBe('city_facts');
    const city = JSON.parse(call.arguments).city as string;
    expect(log.function_outputs).toEqual([{ call_id: call.call_id, output: `${city} has 2 rivers` }]);
    expect(r.stdout).toContain(`assistant: The city_facts tool says: ${city} has 2 rivers`);
  });

  talking('a server that exits at start: a clear error, no session opened', async ({ emu }) => {
    const input = wavClip('mcp-none.wav', [{ silence: 200 }]);
    const r = await svcInProcess(['realtime', 'talk', '--input', input, '--mcp', `${SERVER} exit`], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/the MCP server exited before it could start; it said: two-tools: cannot open/);
    expect(emu.requests()).toEqual([]);
  });
});
