// Issue 26 item 9: the examples of docs/agent-tests.md run as written against the emulator — the test file (its
// "Please book a table for party_size 4 in city Paris" calls book_table, the audio case is heard), the agent file and
// the clip as the page shows them (issue 42 item 18), and the command lines of the first block (all but the first,
// whose agent_123 is an id only the service hands out). The phrasings the emulator understands:
// packages/emulator/test/tool-names.test.ts.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../../helpers/files.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcShell } from '../../helpers/subprocess.js';
import { fastEmulator } from '../realtime/talk-helpers.js';
import { BOOK_TABLE } from './booking-agent.js';
import { registerSecret } from '../../helpers/secrets.js';

const doc = readFileSync(join(ROOT, 'docs', 'agent-tests.md'), 'utf8');
const example = /```yaml\n([\s\S]*?)```/.exec(doc)![1]!;
const commands = /```sh\n([\s\S]*?)```/
  .exec(doc)![1]!
  .trim()
  .split('\n')
  .map((l) => l.replace(/\s+#.*$/, ''));

/** the agent the examples test, as the doc shows it (agent.json): it books tables */
const agentJson = /```json\n([\s\S]*?)```/.exec(doc)![1]!;
/** the block that makes the audio case's clip */
const clipBlock = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('hello.wav'))!;

let emu: TestEmulator;
const dir = tempDir();
beforeAll(async () => {
  emu = await startTestEmulator();
  // answers at once rather than at real time: the command lines run against it are what is checked, not its pace
  fastEmulator(emu);
  mkdirSync(join(dir, 'tests'));
  writeFileSync(join(dir, 'tests', 'booking.yaml'), example);
  writeFileSync(join(dir, 'agent.json'), agentJson);
  // the clip, made as the doc says (its own --emulator, no key)
  const clip = await svcShell(clipBlock, { cwd: dir, timeout: 60_000 });
  expect(clip.exitCode, clip.stderr).toBe(0);
  expect(existsSync(join(dir, 'tests', 'clips', 'hello.wav'))).toBe(true);
});
afterAll(() => emu.close());

describe('docs/agent-tests.md shows what its test file needs (issue 42 item 18)', () => {
  it('the agent file, with the book_table tool the first case expects, and the clip of the second', () => {
    expect(JSON.parse(agentJson).tools).toEqual([BOOK_TABLE]);
    expect(example).toContain('audio: clips/hello.wav');
    expect(clipBlock).toContain('-o tests/clips/hello.wav');
  });
});

// The tests run at once: the first against the emulator --emulator starts in its run, the others against `emu`.
describe.concurrent('docs/agent-tests.md', () => {
  it('the test file example passes as written (svc --emulator agents test …)', async () => {
    const line = commands.find((c) => c.startsWith('svc --emulator '))!;
    expect(line).toBe('svc --emulator agents test --agent-file agent.json tests/booking.yaml');
    // its answers at once (as the doc says), not spoken at real time: what is checked is that the example passes
    const env = { SVC_BASE_URL: undefined, SVC_EMULATOR_REALTIME_PACE: '0' };
    const r = await svcInProcess(line.split(' ').slice(1), { cwd: dir, env });
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ok +books a table with the party size said/m);
    expect(r.stdout).toMatch(/^ok +greets a caller/m);
    expect(r.stderr).toContain('2 passed, 0 failed (2 cases)');
  });

  it('SVC_EMULATOR_REALTIME_PACE out of range: exit 2, named, no emulator started', async () => {
    const data = tempDir();
    for (const pace of ['fast', '-1', '11']) {
      // absolute paths: the test above runs in-process in `dir` at the same time (svcInProcess's cwd is the process's)
      const files = ['--agent-file', join(dir, 'agent.json'), join(dir, 'tests', 'booking.yaml')];
      const r = await svcInProcess(['--emulator', 'agents', 'test', ...files], {
        env: { SVC_BASE_URL: undefined, SVC_DATA_DIR: data, SVC_EMULATOR_REALTIME_PACE: pace },
      });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(`SVC_EMULATOR_REALTIME_PACE: ${pace} is not allowed: a number from 0 to 10`);
      expect(existsSync(join(data, 'emulator'))).toBe(false);
    }
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

// Issue 31: the project example of docs/agents-phone.md runs as written (bash, svc on PATH as a function) against an
// emulator, with CRM_TOKEN set: its secret is registered, so output holding it fails the test.
const phoneDoc = readFileSync(join(ROOT, 'docs', 'agents-phone.md'), 'utf8');
const projectExample = /### Example\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(phoneDoc)![1]!;
const CRM_TOKEN = 'crm-docs-token-8c41d2';
registerSecret(CRM_TOKEN);

describe.concurrent('docs/agents-phone.md', () => {
  it('the project example runs as written: drift, then in sync; the token kept out of the files', async () => {
    const cwd = tempDir();
    const r = await svcShell(`set -e\n${projectExample}`, { emu, cwd, env: { CRM_TOKEN }, timeout: 60_000 });
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    // the first diff exited 1 (not pushed yet), the staging diff --json printed nothing (in sync)
    expect(r.stdout).toContain('differs: not pushed yet');
    expect(r.stdout).toMatch(/^\+ support \[default\]: not on the server yet/m);
    expect(r.stdout).toMatch(/^support\tdefault\tcreated\tname, instructions, tools, voice\tagent_/m);
    expect(r.stdout).toMatch(/^support\tstaging\tcreated\tname, instructions, tools, voice, phone_number\tagent_/m);
    expect(r.stdout).toMatch(/^support\tstaging\tin sync\t\tagent_/m);
    expect(r.stdout).not.toMatch(/"state"/);
    expect(r.stdout).toMatch(/^phone_numbers\t\+1415\d{7} \(pn_\w+, v1\)$/m);
    expect(r.stdout).toMatch(/^support\tstaging\tunchanged\tagents\/support\.staging\.json\tagent_/m);
    const dir = join(cwd, 'support-bots');
    const project = JSON.parse(readFileSync(join(dir, 'svc-agents.json'), 'utf8'));
    expect(Object.keys(project.agents.support.ids)).toEqual(['default', 'staging']);
    expect(project.secrets).toEqual(['CRM_TOKEN']);
    const base = readFileSync(join(dir, 'agents', 'support.json'), 'utf8');
    expect(base).toContain('"authorization": "Bearer ${env:CRM_TOKEN}"');
    for (const f of ['svc-agents.json', 'agents/support.json', 'agents/support.staging.json'])
      expect(readFileSync(join(dir, f), 'utf8')).not.toContain(CRM_TOKEN);
    // the server holds the value
    const agents = emu.core.store.collection<Record<string, any>>('agents');
    const staging = agents.get(project.agents.support.ids.staging)!;
    expect(staging.tools[0].authorization).toBe(`Bearer ${CRM_TOKEN}`);
    expect(staging.voice).toEqual({ voice_id: 'rex', vad_threshold: 0.5 });
  });
});
