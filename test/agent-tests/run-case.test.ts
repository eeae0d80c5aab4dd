// A case whose session fails on an API error says the error's status and request id in its line (as agents simulate
// says a failed call's), so that a report names what to look up: a refused handshake is the server's, not the agent's.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/files.js';
import { svcInProcess } from '../helpers/in-process.js';

let emu: TestEmulator;
const dir = tempDir();
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('svc agents test: a session that fails on an API error', () => {
  it("the case's line says HTTP 500 and the request id", async () => {
    const agent = join(dir, 'agent.json');
    writeFileSync(agent, JSON.stringify({ name: 'helper', instructions: 'answer' }));
    const cases = join(dir, 'cases.json');
    writeFileSync(cases, JSON.stringify({ cases: [{ name: 'greets', turns: [{ user: 'hi' }] }] }));
    emu.faults.add({ kind: 'status', status: 500, method: 'WS', message: 'the realtime engine broke' });
    const transcripts = join(dir, 'transcripts');
    const args = ['--max-retries', '0', 'agents', 'test', '--agent-file', agent, '--transcripts', transcripts, cases];
    const r = await svcInProcess(args, { emu });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stdout).toMatch(
      /^FAIL greets[^]*the session failed: the realtime engine broke \(HTTP 500, [^)]*request id [\w-]+\)/m,
    );
    // the transcript of the failed case says it too
    const [written] = readdirSync(transcripts);
    expect(readFileSync(join(transcripts, written!), 'utf8')).toMatch(/✘ the session failed: .*\(HTTP 500, /);
  });
});
