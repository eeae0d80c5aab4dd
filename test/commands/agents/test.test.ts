// svc agents test: scripted conversations against an agent (a local definition or a stored one), run against the
// emulator's realtime engine; passing cases pass, the deliberately failing one fails with exit 1, a JUnit report
// that names it and its transcript on disk; a malformed test file is exit 2 before any connection.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { svcInProcess } from '../../helpers/in-process.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir, writeTemp } from '../../helpers/files.js';
import { BOOK_TABLE } from './booking-agent.js';

let emu: TestEmulator;
const dir = tempDir();

const agentFile = writeTemp(
  'agent.json',
  JSON.stringify({
    name: 'booking',
    instructions: 'You book tables.',
    voice: { voice_id: 'ara' },
    tools: [BOOK_TABLE],
  }),
);

const SUITE = `
cases:
  - name: calls book_table with the party size said
    tools:
      book_table: {confirmed: true, reference: "R-42"}
    turns:
      - user: "Please book_table for party_size 4 in city Paris"
        expect:
          tool_called:
            name: book_table
            arguments: {party_size: 4, city: Paris}
            arguments_schema:
              type: object
              required: [party_size]
              properties: {party_size: {type: integer, minimum: 1}}
  - name: small talk calls no tool
    turns:
      - user: "Hello there"
        expect: {no_tool_call: true}
  - name: the reply repeats the question
    turns:
      - user: "What time do you open"
        expect:
          reply_contains: ["what time do you open"]
          reply_matches: "/^you said/i"
          reply_not_contains: sorry
          within_seconds: 300
  - name: the scripted tool result reaches the next reply
    tools:
      book_table: {confirmed: true, reference: "R-42"}
    turns:
      - user: "book_table party_size 2"
        expect:
          tool_called: book_table
          reply_contains: R-42
      - user: "Thanks"
        expect: {no_tool_call: true}
  - name: an audio turn is heard
    turns:
      - audio: hello.wav
        expect:
          reply_contains: "from an audio file"
          no_tool_call: true
  - name: expects a goodbye it never gets
    turns:
      - user: "Hello there"
        expect:
          reply_contains: goodbye
`;

beforeAll(async () => {
  emu = await startTestEmulator();
  Object.assign(emu.core.settings, { realtimePace: 0, realtimeResponseDelayMs: 0, realtimeLegacyEvents: 0 });
  // the audio turn: speech from the emulator's own TTS, which its realtime engine hears back
  const tts = await svcInProcess(
    [
      'tts',
      'say',
      'Hello from an audio file',
      '--codec',
      'wav',
      '--sample-rate',
      '24000',
      '-o',
      join(dir, 'hello.wav'),
    ],
    { emu },
  );
  expect(tts.exitCode).toBe(0);
});
afterAll(() => emu.close());

describe('svc agents test', () => {
  it('runs a suite in parallel: passing cases pass; the failing one has its JUnit entry and transcript', async () => {
    const suite = join(dir, 'suite.yaml'); // beside hello.wav: audio paths are relative to the test file
    writeFileSync(suite, SUITE);
    const report = join(dir, 'report.xml');
    const transcripts = join(dir, 'transcripts');
    const r = await svcInProcess(
      [
        'agents',
        'test',
        '--agent-file',
        agentFile,
        suite,
        '-P',
        '3',
        '--format',
        'junit',
        '-o',
        report,
        '--transcripts',
        transcripts,
      ],
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toContain('5 passed, 1 failed (6 cases)');
    const xml = readFileSync(report, 'utf8');
    expect(xml).toMatch(/<testsuites name="svc agents test" tests="6" failures="1"/);
    const failures = [...xml.matchAll(/<testcase [^>]*name="([^"]+)"[^/]*>\s*<failure message="([^"]*)"/g)];
    expect(failures.map((m) => m[1])).toEqual(['expects a goodbye it never gets']);
    expect(failures[0]![2]).toContain('turn 1: the reply does not contain &quot;goodbye&quot;');
    for (const name of [
      'calls book_table with the party size said',
      'small talk calls no tool',
      'the reply repeats the question',
      'the scripted tool result reaches the next reply',
      'an audio turn is heard',
    ]) {
      expect(xml).toContain(`name="${name}" time="`);
      expect(r.stderr).toContain(`ok   ${name}`);
    }
    const files = readdirSync(transcripts);
    expect(files).toEqual(['006-expects-a-goodbye-it-never-gets.txt']);
    const transcript = readFileSync(join(transcripts, files[0]!), 'utf8');
    expect(transcript).toContain('user: Hello there');
    expect(transcript).toMatch(/agent: You said: Hello there\./);
    expect(transcript).toContain('✘ turn 1: the reply does not contain "goodbye"');
  });

  it('tool calls: the arguments the emulator sent, the scripted result sent back, the reply built on it', async () => {
    const res = await fetch(`${emu.url}/_emulator/realtime`, { method: 'DELETE' });
    expect(res.ok).toBe(true);
    const suite = writeTemp('one.yaml', SUITE.split('  - name: small talk')[0]!);
    const r = await svcInProcess(['agents', 'test', '--agent-file', agentFile, suite, '--json'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({
      name: 'calls book_table with the party size said',
      passed: true,
      failures: [],
    });
    const { sessions } = (await (await fetch(`${emu.url}/_emulator/realtime`)).json()) as { sessions: any[] };
    expect(sessions).toHaveLength(1);
    const s = sessions[0];
    // configured like the agent: its instructions, voice and tool; turns committed by the test (no server VAD)
    expect(s.session).toMatchObject({ instructions: 'You book tables.', voice: 'ara', turn_detection: null });
    expect(s.session.tools.map((t: any) => t.name)).toEqual(['book_table']);
    const call = s.responses[0].function_call;
    expect(call.name).toBe('book_table');
    expect(JSON.parse(call.arguments)).toEqual({ party_size: 4, city: 'Paris' });
    expect(s.function_outputs).toEqual([{ call_id: call.call_id, output: '{"confirmed":true,"reference":"R-42"}' }]);
    expect(s.responses[1].transcript).toContain('R-42');
  });

  it('a stored agent by id, a --tool-cmd tool, TAP on stdout', async () => {
    const tools = writeTemp('tools.json', JSON.stringify([BOOK_TABLE]));
    const created = await svcInProcess(['agents', 'create', '--name', 'stored', '--tool', tools, '--json'], { emu });
    expect(created.exitCode, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout).agent ?? JSON.parse(created.stdout)).agent_id as string;
    const suite = writeTemp(
      'cmd.json',
      JSON.stringify({
        cases: [
          {
            name: 'the command answers',
            turns: [
              {
                user: 'book_table party_size 3',
                expect: {
                  tool_called: { name: 'book_table', arguments: { party_size: 3 } },
                  reply_contains: 'seats=3',
                },
              },
            ],
          },
          { name: 'plain', turns: [{ user: 'good morning', expect: { reply_contains: 'good morning' } }] },
        ],
      }),
    );
    const r = await svcInProcess(
      [
        'agents',
        'test',
        id,
        suite,
        '--format',
        'tap',
        '--tool-cmd',
        `book_table=node -e "let ` +
          `s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log('seats='+JSON.parse(s).party_size))"`,
      ],
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('TAP version 14\n1..2\nok 1 - the command answers\nok 2 - plain\n');
    expect(emu.requests().some((q) => q.method === 'GET' && q.path === `/v1/agents/${id}`)).toBe(true);
  });

  it('a tool call with no scripted result and no --tool-cmd fails the case and says how to answer it', async () => {
    const suite = writeTemp(
      'unscripted.yaml',
      'cases:\n  - name: unscripted\n    turns:\n      - user: "book_table party_size 2"\n',
    );
    const r = await svcInProcess(
      ['agents', 'test', '--agent-file', agentFile, suite, '--transcripts', join(dir, 't2')],
      { emu },
    );
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain('FAIL unscripted');
    expect(r.stdout).toContain('add tools.book_table to the case or pass --tool-cmd book_table=COMMAND');
  });

  it('a malformed test file exits 2, lists every problem, and opens no connection', async () => {
    emu.clearRequests();
    const bad = writeTemp(
      'bad.yaml',
      'cases:\n  - name: x\n    turns:\n      - user: hi\n        audio: nope.wav\n' +
        '        expect: {reply_matches: "(", within_seconds: -1, colour: red}\n  - turns: []\n',
    );
    const r = await svcInProcess(['agents', 'test', '--agent-file', agentFile, bad], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('cases[0].turns[0]: give exactly one of user (text) or audio (a file)');
    expect(r.stderr).toContain('cases[0].turns[0].audio: nope.wav: no such file');
    expect(r.stderr).toMatch(/cases\[0\]\.turns\[0\]\.expect\.reply_matches: Invalid regular expression/);
    expect(r.stderr).toContain('cases[0].turns[0].expect.within_seconds: must be a number of seconds');
    expect(r.stderr).toContain('cases[0].turns[0].expect.colour: unknown key');
    expect(r.stderr).toContain('cases[1].name: required');
    expect(r.stderr).toContain('cases[1].turns: required: a list of at least one turn');
    expect(emu.requests()).toEqual([]);
    const notYaml = writeTemp('bad2.json', '{"cases": [');
    const r2 = await svcInProcess(['agents', 'test', 'agent_1', notYaml], { emu });
    expect(r2.exitCode).toBe(2);
    expect(r2.stderr).toContain('bad2.json: JSON:');
    const schema = writeTemp(
      'bad3.yaml',
      'cases:\n  - name: s\n    turns:\n      - user: hi\n' +
        '        expect: {tool_called: {name: t, arguments_schema: {type: 12}}}\n',
    );
    const r3 = await svcInProcess(['agents', 'test', 'agent_1', schema], { emu });
    expect(r3.exitCode).toBe(2);
    expect(r3.stderr).toContain('arguments_schema is not a valid JSON Schema');
    expect(emu.requests()).toEqual([]);
    expect(existsSync(join(dir, 'agent-test-transcripts'))).toBe(false);
  });

  it('docs/agent-tests.schema.json accepts this suite and the docs example, refuses what the command refuses', () => {
    const schema = JSON.parse(readFileSync(join(import.meta.dirname, '../../../docs/agent-tests.schema.json'), 'utf8'));
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(parseYaml(SUITE)), JSON.stringify(validate.errors)).toBe(true);
    const doc = readFileSync(join(import.meta.dirname, '../../../docs/agent-tests.md'), 'utf8');
    const example = /```yaml\n([\s\S]*?)```/.exec(doc)![1]!;
    expect(validate(parseYaml(example)), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ cases: [{ name: 'x', turns: [{ user: 'hi', audio: 'a.wav' }] }] })).toBe(false);
    expect(validate({ cases: [{ name: 'x', turns: [{ user: 'hi', expect: { colour: 'red' } }] }] })).toBe(false);
  });
});
