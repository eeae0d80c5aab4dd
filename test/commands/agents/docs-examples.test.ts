// Issue 26 item 9: the examples of docs/agent-tests.md run as written against the emulator — the test file (its
// "Please book a table for party_size 4 in city Paris" calls book_table, the audio case is heard) and the command
// lines of the first block (all but the first, whose agent_123 is an id only the service hands out). The phrasings
// the emulator understands: packages/emulator/test/tool-names.test.ts.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../../helpers/files.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcShell } from '../../helpers/subprocess.js';
import { fastEmulator } from '../realtime/talk-helpers.js';
import { BOOK_TABLE } from './booking-agent.js';

const doc = readFileSync(join(ROOT, 'docs', 'agent-tests.md'), 'utf8');
const example = /```yaml\n([\s\S]*?)```/.exec(doc)![1]!;
const commands = /```sh\n([\s\S]*?)```/
  .exec(doc)![1]!
  .trim()
  .split('\n')
  .map((l) => l.replace(/\s+#.*$/, ''));

/** the agent the examples test (the doc's agent.json): it books tables */
const AGENT = {
  name: 'booking',
  instructions: 'You book tables.',
  voice: { voice_id: 'ara' },
  tools: [BOOK_TABLE],
};

let emu: TestEmulator;
const dir = tempDir();
beforeAll(async () => {
  emu = await startTestEmulator();
  // answers at once rather than at real time: the command lines run against it are what is checked, not its pace
  fastEmulator(emu);
  mkdirSync(join(dir, 'tests', 'clips'), { recursive: true });
  writeFileSync(join(dir, 'tests', 'booking.yaml'), example);
  writeFileSync(join(dir, 'agent.json'), JSON.stringify(AGENT));
  // the clip as the doc says to make it
  const say = /`(svc --emulator tts say [^`]+)`/
    .exec(doc)![1]!
    .replace(/\s+/g, ' ')
    .replace('"…"', '"hello"')
    .replace(' clip.wav', '');
  const args = say.split(' ').slice(1);
  const tts = await svcInProcess(
    [...args.map((a) => a.replace(/^"(.*)"$/, '$1')), join(dir, 'tests', 'clips', 'hello.wav')],
    { env: { SVC_BASE_URL: undefined } },
  );
  expect(tts.exitCode, tts.stderr).toBe(0);
});
afterAll(() => emu.close());

describe('docs/agent-tests.md', () => {
  it('the test file example passes as written (svc --emulator agents test …)', async () => {
    const line = commands.find((c) => c.startsWith('svc --emulator '))!;
    expect(line).toBe('svc --emulator agents test --agent-file agent.json tests/booking.yaml');
    const r = await svcInProcess(line.split(' ').slice(1), { cwd: dir, env: { SVC_BASE_URL: undefined } });
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ok +books a table with the party size said/m);
    expect(r.stdout).toMatch(/^ok +greets a caller/m);
    expect(r.stderr).toContain('2 passed, 0 failed (2 cases)');
  });

  it('the other command lines run as written against an emulator', async () => {
    const lines = commands.filter((c) => !c.includes('agent_123') && !c.startsWith('svc --emulator '));
    expect(lines).toHaveLength(2);
    const r = await svcShell(`${lines.join(' && \\\n')} && cat report.xml`, { emu, cwd: dir, timeout: 60_000 });
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ok +books a table with the party size said/m);
    expect(r.stdout).toMatch(/<testsuites name="svc agents test" tests="2" failures="0"/);
  });
});
