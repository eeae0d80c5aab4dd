// agents test lists every problem of every file at once, names its own flags, and says what is missing
// (issue 25, item 16); nothing is sent.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { svcInProcess } from '../../helpers/in-process.js';

let emu: TestEmulator;
const dir = tempDir();
const file = (name: string, value: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
};
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('svc agents test: problems before anything is sent', () => {
  it('every problem of every file at once: the agent file, duplicates, a bad schema, a malformed case', async () => {
    const agent = file('agent.json', { name: '', instructions: 'answer' });
    const one = file('one.json', {
      cases: [
        { name: 'greets', turns: [{ user: 'hi' }] },
        { name: 'greets', turns: [{ user: 'hello' }] },
        {
          name: 'books',
          turns: [{ user: 'book', expect: { tool_called: { name: 'book', arguments_schema: { type: 'strnig' } } } }],
        },
      ],
    });
    const two = file('two.json', { cases: [{ name: 'greets', turns: [{ user: 'hey' }] }, { name: 'empty' }] });
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'test', '--agent-file', agent, one, two], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--agent-file .*agent\.json: name/);
    expect(r.stderr).toMatch(/one\.json: case "greets" is there twice/);
    expect(r.stderr).toMatch(
      /one\.json: case "books", turn 1: tool_called book: arguments_schema is not a valid JSON Schema/,
    );
    expect(r.stderr).toMatch(/two\.json: case "greets" is also in .*one\.json/);
    expect(r.stderr).toMatch(/two\.json: cases\[1\]\.turns: required/);
    expect(emu.requests()).toEqual([]);
  });

  it('a duplicate name is listed when a case bearing it has another problem too (issue 37 item 17)', async () => {
    const agent = file('agent-ok.json', { name: 'helper', instructions: 'answer' });
    const three = file('three.json', {
      cases: [
        { name: 'greets', turns: [{ user: 'hi' }] },
        { name: 'greets', turns: [] },
      ],
    });
    const four = file('four.json', [{ name: 'greets', turns: [{ user: 'hey', expect: { sayz: 'x' } }] }]);
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'test', '--agent-file', agent, three, four], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/three\.json: cases\[1\]\.turns: required/);
    expect(r.stderr).toMatch(/three\.json: case "greets" is there twice: case names must be unique/);
    expect(r.stderr).toMatch(/four\.json: cases\[0\]\.turns\[0\]\.expect\.sayz: unknown key/);
    expect(r.stderr).toMatch(/four\.json: case "greets" is also in .*three\.json/);
    expect(emu.requests()).toEqual([]);
  });

  it('--agent-file with no test file says the test files are missing (not the agent id)', async () => {
    const agent = file('ok-agent.json', { name: 'desk', instructions: 'answer' });
    const r = await svcInProcess(['agents', 'test', '--agent-file', agent], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`no test file: --agent-file ${agent} is the agent; give the test files`);
    expect(r.stderr).not.toContain("argument 'agent'");
    const none = await svcInProcess(['agents', 'test'], { emu });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('no agent and no test file');
  });

  it("an unreadable --agent-file is named by this command's flag", async () => {
    const r = await svcInProcess(['agents', 'test', '--agent-file', join(dir, 'missing.json'), file('t.json', [])], {
      emu,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--agent-file: cannot read .*missing\.json/);
    expect(r.stderr).not.toMatch(/(^|\s)-f[:\s]/);
  });
});
