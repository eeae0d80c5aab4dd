// svc agents simulate against the emulator, which plays the caller and the judge with seeded, schema-valid answers:
// per mode 2 scenarios × 3 runs at -P 3 (JUnit with 6 cases, latency per turn, the judge's reasons in the JSON,
// the same records twice with the same --seed); a latency budget that `svc emulator serve --latency 2000` cannot
// meet; a judge whose answer is not valid JSON fails its call, not the run; Ctrl-C keeps the finished calls'
// reports; --budget starts no call that cannot fit; a malformed scenario file is exit 2 before anything is sent.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { svcInProcess, svcUntilStopped } from '../../helpers/in-process.js';
import { itWithEmulator, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { ROOT, tempDir, writeTemp } from '../../helpers/files.js';
import { BOOK_TABLE, BOOKING_AGENT } from './booking-agent.js';
import { parseWavHeader, wavSamplesToPcm } from 'svc-formats/audio-codecs';
import { tonesToText } from 'svc-emulator/tones';

let emu: TestEmulator;
const dir = tempDir();

const agentFile = writeTemp('sim-agent.json', JSON.stringify(BOOKING_AGENT));

const BOOKING = `
name: books a table
persona: Dana, a busy parent, polite but brief
goal: a table for 4 on Friday at 7 pm
facts: {name: Dana, party_size: 4}
opening: "Hi, please book_table for party_size 4"
max_turns: 3
tools:
  book_table: {confirmed: true, reference: R-42}
criteria:
  - the agent books the table
  - the agent gives a booking reference
latency: {p50_ms: 30000, p95_ms: 60000}
`;

const HOURS = `
scenarios:
  - name: asks the opening hours
    persona: Sam, in a hurry
    goal: learn when the restaurant opens on Sunday
    max_turns: 2
    criteria: [the agent says when it opens on Sunday]
`;

const scenario = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

interface Turn {
  caller: string;
  agent: string;
  latency_ms?: number;
  tool_calls: { name: string; arguments: unknown; result: string }[];
}
interface Call {
  scenario: string;
  run: number;
  passed: boolean;
  turns: Turn[];
  verdicts: { criterion: string; verdict: string; reason: string }[];
  failures: string[];
  latency: { p50_ms?: number; p95_ms?: number };
  duration_ms: number;
}

const records = (stdout: string): Call[] =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Call);

/** A record without its clock readings: what must repeat with the same --seed. */
const untimed = (c: Call) => ({
  ...c,
  duration_ms: 0,
  latency: {},
  turns: c.turns.map((t) => ({ ...t, latency_ms: typeof t.latency_ms })),
});

beforeAll(async () => {
  emu = await startTestEmulator();
  Object.assign(emu.core.settings, { realtimePace: 0, realtimeResponseDelayMs: 0, realtimeLegacyEvents: 0 });
});
afterAll(() => emu.close());

describe.each(['--text', '--voice'])('svc agents simulate %s', (mode) => {
  it('2 scenarios × 3 runs at -P 3: JUnit of 6 cases, latency per turn, reasons, same with --seed', async () => {
    const files = [scenario('booking.yaml', BOOKING), scenario('hours.yaml', HOURS)];
    const run = async (n: number) => {
      const junit = join(dir, `sim${mode}-${n}.xml`);
      const args = ['agents', 'simulate', '--agent-file', agentFile, ...files, mode, '--runs', '3', '-P', '3'];
      const r = await svcInProcess([...args, '--seed', '42', '--json', '--format', 'junit', '-o', junit], { emu });
      return { r, xml: readFileSync(junit, 'utf8'), calls: records(r.stdout) };
    };
    const first = await run(1);
    expect([0, 1], first.r.stderr).toContain(first.r.exitCode);
    expect(first.r.exitCode).toBe(first.calls.every((c) => c.passed) ? 0 : 1);
    expect(first.calls.map((c) => `${c.scenario} #${c.run}`)).toEqual([
      'books a table #1',
      'books a table #2',
      'books a table #3',
      'asks the opening hours #1',
      'asks the opening hours #2',
      'asks the opening hours #3',
    ]);
    expect(first.xml).toMatch(/<testsuites name="svc agents simulate" tests="6" /);
    expect([...first.xml.matchAll(/<testcase /g)]).toHaveLength(6);
    for (const c of first.calls) {
      expect(c.turns.length).toBeGreaterThan(0);
      for (const t of c.turns) expect(t.latency_ms).toBeGreaterThanOrEqual(0);
      expect(c.latency.p50_ms).toBeGreaterThanOrEqual(0);
      expect(c.verdicts.length).toBe(c.scenario === 'books a table' ? 2 : 1);
      for (const v of c.verdicts) {
        expect(['pass', 'fail']).toContain(v.verdict);
        expect(v.reason.length).toBeGreaterThanOrEqual(10);
      }
    }
    // the opening line names the tool: the emulator's agent calls it with the party size said
    const booking = first.calls[0]!.turns[0]!;
    expect(booking.caller).toBe('Hi, please book_table for party_size 4');
    expect(booking.tool_calls).toEqual([
      {
        name: 'book_table',
        arguments: expect.objectContaining({ party_size: 4 }),
        result: '{"confirmed":true,"reference":"R-42"}',
      },
    ]);
    expect(booking.agent).toContain('R-42');
    expect(first.r.stderr).toMatch(/books a table: \d\/3 passed \(\d+%\), latency p50 \d+ ms p95 \d+ ms/);
    const second = await run(2);
    expect(second.r.exitCode).toBe(first.r.exitCode);
    expect(second.calls.map(untimed)).toEqual(first.calls.map(untimed));
  });
});

describe('svc agents simulate --voice: barge-in', () => {
  // answers spoken at real time (100 ms chunks): the caller's interrupt_after can cut one short
  const realTime = itWithEmulator((e) =>
    Object.assign(e.core.settings, { realtimePace: 1, realtimeChunkMs: 100, realtimeResponseDelayMs: 0 }),
  );
  realTime(
    'interrupt_after: the caller cuts the agent off after that much of its speech, and the call goes on',
    async ({ emu: own }) => {
      const file = scenario(
        'barge-in.yaml',
        'name: barges in\npersona: P\ngoal: G\nopening: Tell me everything about the menu please\nmax_turns: 2\n' +
          'interrupt_after: 0.3\ncriteria: [a]\n',
      );
      const r = await svcInProcess(['agents', 'simulate', '--agent-file', agentFile, file, '--seed', '3', '--json'], {
        emu: own,
      });
      expect([0, 1], r.stderr).toContain(r.exitCode);
      const [call] = records(r.stdout);
      const first = call!.turns[0] as Turn & { interrupted?: boolean };
      expect(first.interrupted).toBe(true);
      // cut short: the emulator's full answer repeats the caller's words and adds a closing sentence
      expect(first.agent.length).toBeLessThan('You said: Tell me everything about the menu please.'.length);
      expect(call!.failures.join()).not.toContain('the call failed');
    },
  );
});

describe('svc agents simulate: how a call ends, what it records', () => {
  it('the agent hangs up by calling end_call: the call ends there (ended_by agent)', async () => {
    const endCall = { type: 'function', function: { name: 'end_call', description: 'hang up', parameters: {} } };
    const agent = writeTemp(
      'sim-agent-hangs-up.json',
      JSON.stringify({ name: 'desk', instructions: 'Answer.', tools: [BOOK_TABLE, endCall] }),
    );
    const file = scenario(
      'hang-up.yaml',
      'name: hung up on\npersona: P\ngoal: G\nopening: Please end_call now\nmax_turns: 3\n' +
        'tools: {end_call: {ok: true}}\ncriteria: [a]\n',
    );
    const r = await svcInProcess(['agents', 'simulate', '--agent-file', agent, file, '--text', '--json'], { emu });
    expect([0, 1], r.stderr).toContain(r.exitCode);
    const [call] = records(r.stdout) as (Call & { ended_by: string })[];
    expect(call!.ended_by).toBe('agent');
    expect(call!.turns).toHaveLength(1);
    expect(call!.turns[0]!.tool_calls.map((t) => t.name)).toEqual(['end_call']);
  });

  it('--record: each side of a spoken call as WAV beside its Markdown transcript', async () => {
    const transcripts = join(dir, 'recorded');
    const file = scenario(
      'recorded.yaml',
      'name: recorded\npersona: P\ngoal: G\nopening: Hello there\nmax_turns: 1\ncriteria: [a]\n',
    );
    const args = ['agents', 'simulate', '--agent-file', agentFile, file, '--transcripts', transcripts, '--record'];
    const r = await svcInProcess(args, { emu });
    expect([0, 1], r.stderr).toContain(r.exitCode);
    expect(readdirSync(transcripts).sort()).toEqual([
      '001-recorded-run1.agent.wav',
      '001-recorded-run1.caller.wav',
      '001-recorded-run1.md',
    ]);
    for (const side of ['caller', 'agent']) {
      const wav = readFileSync(join(transcripts, `001-recorded-run1.${side}.wav`));
      const info = parseWavHeader(wav);
      expect(info?.format).toEqual({ sampleRate: 24_000, channels: 1 });
      expect(wav.length).toBeGreaterThan(24_000); // half a second of speech at least
    }
    // the caller's speech is the emulator's TTS of its line: its own speech-to-text hears the words again
    const caller = readFileSync(join(transcripts, '001-recorded-run1.caller.wav'));
    const at = parseWavHeader(caller)!.dataOffset;
    expect(tonesToText(wavSamplesToPcm(caller.subarray(at), 's16'), 24_000)).toContain('Hello there');
    const md = readFileSync(join(transcripts, '001-recorded-run1.md'), 'utf8');
    expect(md).toContain('- recordings: [caller](001-recorded-run1.caller.wav), [agent](001-recorded-run1.agent.wav)');
  });
});

describe('svc agents simulate: failures', () => {
  // --latency delays each of the run's ~7 requests: 600 ms (2000 took ~15 s), twice the budget
  it('a latency budget the emulator cannot meet (serve --latency 600): exit 1, the budget named', async () => {
    const { firstLine, stop } = await svcUntilStopped([
      'emulator',
      'serve',
      '--port',
      '0',
      '--memory',
      '--latency',
      '600',
    ]);
    try {
      const settings = await fetch(`${firstLine}/_emulator/settings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ realtimePace: 0, realtimeResponseDelayMs: 0 }),
      });
      expect(settings.status).toBe(200);
      const file = scenario(
        'slow.yaml',
        'name: slow\npersona: P\ngoal: G\nopening: Hello\nmax_turns: 1\ncriteria: [c]\nlatency: {p95_ms: 300}\n',
      );
      const r = await svcInProcess(['agents', 'simulate', '--agent-file', agentFile, file, '--text', '--json'], {
        key: 'svc-emulator-local-key-0000000000000000',
        env: { SVC_BASE_URL: firstLine },
      });
      expect(r.exitCode, r.stderr).toBe(1);
      const [call] = records(r.stdout);
      expect(call!.turns[0]!.latency_ms).toBeGreaterThanOrEqual(600);
      expect(call!.failures.join('\n')).toMatch(
        /latency budget p95_ms 300 ms: the agent's first audio came after \d+ ms \(p95\)/,
      );
      expect(r.stderr).toContain('latency budget p95_ms 300 ms');
    } finally {
      await stop();
    }
  });

  it('a judge whose answer is not valid JSON fails that call, not the run', async () => {
    const many = scenario(
      'many.yaml',
      `name: six criteria\npersona: P\ngoal: G\nopening: Hello\nmax_turns: 1\ncriteria: [a, b, c, d, e, f]\n`,
    );
    const one = scenario(
      'one.yaml',
      'name: one criterion\npersona: P\ngoal: G\nopening: Hi\nmax_turns: 1\ncriteria: [a]\n',
    );
    // the emulator cuts its answer at the cap: one verdict fits in 60 tokens, six do not
    const args = ['agents', 'simulate', '--agent-file', agentFile, many, one, '--text', '--json'];
    const r = await svcInProcess([...args, '--judge-max-tokens', '60', '--seed', '1'], { emu });
    expect(r.exitCode, r.stderr).toBe(1);
    const [six, single] = records(r.stdout);
    expect(six!.verdicts).toEqual([]);
    expect(six!.failures).toEqual([
      expect.stringMatching(/^the judge's answer is not valid JSON \(cut short at its token cap\): /),
    ]);
    expect(single!.verdicts).toHaveLength(1);
    expect(single!.failures.join()).not.toContain('not valid JSON');
  });

  it("Ctrl-C mid-run keeps the finished calls' reports (JUnit, transcripts, JSON lines): exit 130", async () => {
    const file = scenario('booking-ctrl-c.yaml', BOOKING);
    const junit = join(dir, 'ctrl-c.xml');
    const transcripts = join(dir, 'ctrl-c-transcripts');
    const abort = new AbortController();
    const args = ['agents', 'simulate', '--agent-file', agentFile, file, '--text', '--runs', '5', '--json'];
    const r = await svcInProcess([...args, '--format', 'junit', '-o', junit, '--transcripts', transcripts], {
      emu,
      signal: abort.signal,
      onStdout: () => abort.abort(), // Ctrl-C as soon as the first call's record is out
    });
    expect(r.exitCode, r.stderr).toBe(130);
    const done = records(r.stdout);
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(done.length).toBeLessThan(5);
    const xml = readFileSync(junit, 'utf8');
    expect([...xml.matchAll(/<testcase /g)]).toHaveLength(done.length);
    expect(readdirSync(transcripts).filter((f) => f.endsWith('.md'))).toHaveLength(done.length);
    expect(readFileSync(join(transcripts, '001-books-a-table-run1.md'), 'utf8')).toContain('**Caller** (turn 1)');
  });

  it('--budget starts no call that cannot fit: the cheap scenario runs, the costly one never starts', async () => {
    const cheap = scenario(
      'cheap.yaml',
      'name: cheap\npersona: P\ngoal: G\nopening: Hi\nmax_turns: 1\ncriteria: [a]\n',
    );
    const costly = scenario('costly.yaml', 'name: costly\npersona: P\ngoal: G\nmax_turns: 50\ncriteria: [a]\n');
    const base = ['agents', 'simulate', '--agent-file', agentFile, cheap, costly, '--text'];
    emu.clearRequests();
    const dry = await svcInProcess([...base, '--dry-run', '--json'], { emu });
    expect(dry.exitCode, dry.stderr).toBe(0);
    const est = JSON.parse(dry.stdout) as {
      calls: number;
      scenarios: { scenario: string; cost_usd_at_most: number }[];
    };
    expect(est.calls).toBe(2);
    const [c, k] = est.scenarios.map((s) => s.cost_usd_at_most);
    expect(k!).toBeGreaterThan(c! * 10);
    expect(emu.requests().filter((q) => q.path === '/v1/chat/completions')).toEqual([]);

    const budget = (c! * 2).toFixed(8);
    const r = await svcInProcess([...base, '--budget', budget, '--json'], { emu });
    expect(r.exitCode, r.stderr).toBe(8);
    expect(records(r.stdout).map((x) => x.scenario)).toEqual(['cheap']);
    expect(r.stderr).toMatch(
      /stopped at the budget: call 2 of 2 may cost up to \$[\d.]+, and \$[\d.]+ is left of --budget/,
    );
    expect(r.stderr).toContain('1 call(s) not started');
  });

  it('--budget below one call: nothing is sent, exit 8', async () => {
    emu.clearRequests();
    const file = scenario(
      'cheap2.yaml',
      'name: cheap\npersona: P\ngoal: G\nopening: Hi\nmax_turns: 1\ncriteria: [a]\n',
    );
    const r = await svcInProcess(['agents', 'simulate', '--agent-file', agentFile, file, '--budget', '0.0000001'], {
      emu,
    });
    expect(r.exitCode, r.stderr).toBe(8);
    expect(r.stdout).toBe('');
    expect(emu.requests().filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('a malformed scenario file: every problem at once, exit 2, nothing sent', async () => {
    emu.clearRequests();
    const bad = scenario(
      'bad.yaml',
      'name: x\npersona: P\nmax_turns: 0\ninterrupt_after: -1\ncriteria: []\n' +
        'latency: {p50_ms: 900, p95_ms: 100}\nwho: me\n',
    );
    const r = await svcInProcess(['agents', 'simulate', '--agent-file', agentFile, bad], { emu });
    expect(r.exitCode).toBe(2);
    for (const want of [
      'goal: required: non-empty text',
      'max_turns: must be a whole number from 1 to 50',
      'interrupt_after: must be seconds, more than 0 and at most 60',
      'criteria: must be non-empty text or a list of it',
      'latency.p50_ms: 900 is more than p95_ms 100',
      'scenario.who: unknown key',
    ])
      expect(r.stderr).toContain(want);
    expect(emu.requests()).toEqual([]);
  });

  it('flags that do not go together are exit 2 before anything is sent', async () => {
    emu.clearRequests();
    const file = scenario('ok.yaml', 'name: ok\npersona: P\ngoal: G\ncriteria: [a]\n');
    const base = ['agents', 'simulate', '--agent-file', agentFile, file];
    for (const [extra, want] of [
      [['--text', '--voice'], '--text'],
      [['--record'], '--record'],
      [['--runs', '0'], '--runs'],
      [['-P', '17'], '--parallel'],
    ] as const) {
      const r = await svcInProcess([...base, ...extra], { emu });
      expect(r.exitCode, extra.join(' ')).toBe(2);
      expect(r.stderr).toContain(want);
    }
    expect(existsSync(join(dir, 'nothing'))).toBe(false);
    expect(emu.requests()).toEqual([]);
  });
});

describe('docs/agent-simulations.md', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'agent-simulations.md'), 'utf8');
  const example = /```yaml\n([\s\S]*?)```/.exec(doc)![1]!;
  const schema = JSON.parse(readFileSync(join(ROOT, 'docs', 'agent-simulation.schema.json'), 'utf8'));
  const validate = new Ajv2020({ strict: false }).compile(schema);

  it("the schema accepts the docs' scenario and this file's, and refuses what the command refuses", () => {
    for (const text of [example, BOOKING, HOURS])
      expect(validate(parseYaml(text)), JSON.stringify(validate.errors)).toBe(true);
    const ok = parseYaml(example) as Record<string, unknown>;
    for (const bad of [
      { ...ok, goal: undefined },
      { ...ok, max_turns: 51 },
      { ...ok, interrupt_after: 0 },
      { ...ok, criteria: [] },
      { ...ok, colour: 'red' },
      { ...ok, latency: { p99_ms: 3 } },
    ])
      expect(validate(JSON.parse(JSON.stringify(bad))), JSON.stringify(bad)).toBe(false);
  });

  it("the docs' scenario runs as written (--dry-run: it is read and priced, nothing is sent)", async () => {
    emu.clearRequests();
    const file = scenario('docs-example.yaml', example);
    const r = await svcInProcess(['agents', 'simulate', '--agent-file', agentFile, file, '--runs', '3', '--dry-run'], {
      emu,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^books a table for four: 3 call\(s\), each at most \$[\d.]+ \(4 caller line\(s\)/);
    expect(emu.requests().filter((q) => q.method !== 'GET')).toEqual([]);
  });
});
