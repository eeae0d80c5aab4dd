// Issue 42 item 19: every example of the README, the docs and --help runs as written against the emulator. A simple
// svc command runs here, in-process, in a folder of its own (one per help page or block, its examples in order)
// holding the files examples name, with a config where the profile, alias, templates and fragment they name exist;
// it must exit 0, or 5 (not found) when it names an id only the service hands out (agent_123); a confirmation is
// answered yes on a terminal. A server (emulator serve, calls listen) has its flags checked, not run. A line that
// needs a shell (a pipe, a loop, $(…)) runs in bash in the full run (FULL_SIZE); blocks a test of their own runs as
// a script are counted as theirs; the rest are skipped, each with its reason. The counts are printed and asserted.
import { createHash } from 'node:crypto';
import {
  cpSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import {
  type Example,
  examplePages,
  helpExamples,
  pageExamples,
  planExample,
  unknownFlags,
} from '../helpers/examples.js';
import { tempDir } from '../helpers/files.js';
import { svcInProcess } from '../helpers/in-process.js';
import { FULL_RUN } from '../helpers/full.js';
import type { RunResult } from '../helpers/run-env.js';
import { svcBinDir, svcShell } from '../helpers/subprocess.js';
import { BOOK_TABLE } from '../commands/agents/booking-agent.js';
import { fastEmulator } from '../commands/realtime/talk-helpers.js';

/** Examples that cannot run here, by a pattern of their text, with the reason. */
const SKIPS: [RegExp, string][] = [
  [/…|\.\.\.|\[--/, 'a placeholder (…, [--flag]) the reader fills in'],
  [
    /svc-emulator serve|\bsvc (emulator (serve|record)|calls listen)\b.*(&|\|)/,
    'a server left running in the background',
  ],
  [
    /\bsvc realtime talk(?!.*--input \S+\.wav)|\bsvc stt listen(?!.*--input \S+\.(wav|ulaw))|\bsvc audio test|--input-device/,
    'the microphone',
  ],
  [/\bsvc tts say (?!.*(-o|>|\|))/, 'plays on the speakers'],
  [/\bsvc chat .*-i\b|templates edit|\$EDITOR/, 'a person at the keyboard (the REPL, $EDITOR)'],
  [/\bsvc tts stream(?!.*-o)|ffplay|\| aplay/, 'plays on the speakers'],
  [/pbcopy/, "macOS's clipboard"],
  [/pass show/, "the reader's password store (pass)"],
  [/git diff \|/, 'a git repository with changes'],
  [/~\//, 'a path in your home folder'],
  [/\bsvc auth login(?!.*--with-key)/, 'asks for the key at a hidden prompt'],
  [/--follow/, 'follows until Ctrl-C'],
  [/auth token --show/, "prints the API key, which the suite's secret scan refuses in any output"],
  [/--mcp/, "lends the model an MCP server of npm's (npx …) or of the reader's own"],
  [
    /\bsvc emulator (reset|trigger)(?!.*SVC_BASE_URL)/,
    'the emulator `svc emulator serve --port 8080` started, with its numbers',
  ],
  [/https:\/\/(?!api\.example\.com)[a-z.]+\.(com|org)\//, 'a server on the internet'],
];

/** Servers that run until stopped: their flags are checked (known, each value's check by --help), not run. */
const SERVER = /\bsvc (emulator (serve|record)|calls listen)\b/;

/** Examples heavy in CPU (MP3 coded, an audio session, a job waited on): run in the full run only. */
const HEAVY = /\.mp3\b|\bbatch tts|\brealtime talk|\bstt listen|--wait\b|\bagents (test|simulate)\b|\bimages edit/;

/** Ids of the examples that only the service hands out: such an example ends in exit 5 (not found). */
const PLACEHOLDER_ID =
  /\b(file_abc123|file_123|agent_123|pn_123|pn_456|skill_abc123|rtc_abc123|rtc_123|call_abc123|ab12cd34|20261122-213614-k3x9q0ab)\b/;

let emu: TestEmulator;
/** the fixtures as made, before any example ran */
let fixtureSums: Record<string, string>;
const svcBin = FULL_RUN ? svcBinDir() : '';
const scratch = tempDir('svc-examples-');
const fixtures = join(scratch, 'fixtures');
const config = join(scratch, 'config');

async function svcOk(
  args: string[],
  opts: { cwd?: string; input?: string; env?: Record<string, string> } = {},
): Promise<void> {
  const r = await svcInProcess(args, {
    emu,
    configDir: config,
    cwd: fixtures,
    ...opts,
    env: { SVC_DATA_DIR: join(config, 'data'), ...opts.env },
  });
  expect(r.exitCode, `svc ${args.join(' ')}\n${r.stderr}`).toBe(0);
}

/** The files the examples name, made with svc where they are media. */
async function makeFixtures(): Promise<void> {
  const text: Record<string, string> = {
    'notes.md': '# Notes\n\nBackpressure keeps a fast producer from drowning a slow consumer.\n',
    'report.txt': 'Sales rose.\nCosts fell.\n',
    'prompt.md': 'You are a support agent.\n',
    'prompt.txt': 'Answer briefly: {{question}}\n',
    'sentences.txt': 'a red fox\na brown dog\n',
    'notes.txt': 'one\ntwo\n',
    'script.txt': 'Good morning.\n',
    'draft.md': 'This is a draft that is rather long winded.\n',
    'questions.csv': 'id,question\nq1,Why is the sky blue?\n',
    'rows.csv': 'id,question\nr1,What is a tide?\n',
    'tickets.csv': 'id,message\nt1,My parcel is late.\n',
    'lines.csv': 'text\nGood morning.\n',
    'lines.txt': 'Good morning.\n',
    'requests.jsonl': '{"model":"svc-4","messages":[{"role":"user","content":"hi"}]}\n',
    'body.json': '{"model":"svc-4","messages":[{"role":"user","content":"hi"}]}',
    'history.json': '[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]',
    'person.json': '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}',
    'person.schema.json': '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}',
    'weather.json': JSON.stringify({
      type: 'function',
      function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    }),
    'tools.json': JSON.stringify([BOOK_TABLE]),
    'agent.json': JSON.stringify({ name: 'booking', instructions: 'You book tables.', tools: [BOOK_TABLE] }),
    'session.json': '{"model":"svc-realtime"}',
    'big.bin': 'x'.repeat(4096),
    'docs/a.txt': 'A document.\n',
    'assets/logo.txt': 'a logo\n',
    'docs/style-guide.md': 'Write short sentences.\n',
    'my-skill/SKILL.md': '---\nname: my-skill\ndescription: a skill\n---\nDo the thing.\n',
    'tests/support.yaml': 'cases:\n  - name: greets\n    turns:\n      - user: "hello"\n',
    'tests/booking.yaml': 'cases:\n  - name: says hello\n    turns:\n      - user: "hello"\n',
    'scenarios/booking.yaml':
      'name: books a table\npersona: Dana, brief\ngoal: a table for 4 on Friday\nmax_turns: 1\n' +
      'criteria:\n  - the agent answers\n',
    'ci/.keep': '', // the folder `emulator record --out ci/session.json` writes into
  };
  for (const [name, content] of Object.entries(text)) {
    mkdirSync(join(fixtures, name, '..'), { recursive: true });
    writeFileSync(join(fixtures, name), content);
  }
  writeFileSync(join(fixtures, 'weather.sh'), '#!/bin/sh\necho \'{"temp_c": 21}\'\n', { mode: 0o755 });
  writeFileSync(join(fixtures, 'fake-booking.sh'), '#!/bin/sh\necho \'{"confirmed": true}\'\n', { mode: 0o755 });
  await svcOk(['images', 'generate', 'a photo', '-o', 'photo.png']);
  for (const png of ['chart.png', 'first.png']) cpSync(join(fixtures, 'photo.png'), join(fixtures, png));
  // one clip per format, copied to each name the examples use
  const clips: [string, string[], string[]][] = [
    ['call.wav', ['--codec', 'wav', '--sample-rate', '24000'], ['question.wav', 'meeting.wav', 'talk.wav', 'me.wav']],
    ['meeting.mp3', [], ['sample.mp3']],
    ['line.ulaw', ['--codec', 'mulaw', '--sample-rate', '8000'], ['call.ulaw']],
  ];
  for (const [file, codec, copies] of clips) {
    await svcOk(['tts', 'say', 'hello there', ...codec, '-o', file]);
    for (const copy of copies) cpSync(join(fixtures, file), join(fixtures, copy));
  }
  await svcOk(['videos', 'generate', 'waves', '--duration', '2', '--wait', '-o', 'clip.mp4']);
  cpSync(join(fixtures, 'clip.mp4'), join(fixtures, 'boat.mp4'));
  writeFileSync(join(fixtures, 'report.pdf'), '%PDF-1.4\n%%EOF\n');
  const ctx = await svcInProcess(['responses', 'compact', '--model', 'svc-4', '--input', 'history.json'], {
    emu,
    configDir: config,
    cwd: fixtures,
  });
  writeFileSync(join(fixtures, 'ctx.json'), ctx.stdout);
  const skill = await svcInProcess(['skills', 'upload', './my-skill', '--json', '--jq', '.id'], {
    emu,
    configDir: config,
    cwd: fixtures,
  });
  await svcOk(['skills', 'download', skill.stdout.trim(), '-o', 'my-skill.zip']);
  await svcOk(['agents', 'init', 'support-bots', '--env', 'staging']);
  await svcOk(['agents', 'init', '.', '--env', 'staging', '--env', 'production']);
  for (const name of ['support', 'sales'])
    writeFileSync(join(fixtures, 'agents', `${name}.json`), JSON.stringify({ name, instructions: `You do ${name}.` }));
  // what the examples' config holds: a profile, an alias, templates and a fragment they name, a conversation to
  // continue (-c)
  await svcOk(['config', 'set', 'model', 'svc-4', '--profile', 'work']);
  await svcOk(['alias', 'set', 'ask', 'chat -m svc-4-mini']);
  await svcOk([
    'templates',
    'save',
    'summarize',
    '-s',
    'You summarize in {{lang}}.',
    '--var',
    'lang=English',
    '{{input}}',
  ]);
  await svcOk(['templates', 'save', 'reply', '-s', 'You answer for {{shop}}.', 'Reply to: {{message}}']);
  await svcOk(['fragments', 'save', 'style'], { input: 'Answer in one short paragraph.\n' });
  for (const first of [
    ['chat', 'hello'],
    ['responses', 'create', 'hello'],
    ['messages', 'hello'],
  ])
    await svcOk([...first], { env: { SVC_DATA_DIR: join(config, 'data') } });
}

beforeAll(async () => {
  mkdirSync(join(fixtures, 'docs'), { recursive: true });
  mkdirSync(config);
  writeFileSync(join(fixtures, 'docs', 'handbook.md'), 'Refunds are paid within 14 days. Revenue in q3 2024 rose.\n');
  const collection = join(fixtures, 'docs', 'handbook.md');
  emu = await startTestEmulator({ collections: { handbook: collection, reports: collection } });
  fastEmulator(emu);
  Object.assign(emu.core.settings, { deferredDelayMs: 20, videoDelayMs: 20 });
  await makeFixtures();
  fixtureSums = sums(fixtures);
}, 60_000);
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  return emu?.close();
});

/** Pages whose examples run, as whole scripts with the files they need, in a test of their own (the full run). */
const COVERED_PAGES: Record<string, string> = {
  'docs/batch.md': 'test/commands/batch/docs-examples.test.ts',
  'docs/agent-tests.md': 'test/commands/agents/docs-examples.test.ts',
  'docs/agents-phone.md': 'test/commands/agents/docs-examples.test.ts',
};

type How =
  | 'ran'
  | 'not found (a placeholder id)'
  | 'differs (exit 1, as documented)'
  | 'judged (exit 1: a criterion failed, as documented)'
  | 'parsed: a server that runs until stopped'
  | 'a shell line: bash runs it in the full run'
  | 'heavy in CPU: the full run runs it'
  | `skipped: ${string}`
  | `run by ${string}`
  | 'FAILED';
interface Outcome {
  example: Example;
  how: How;
  detail?: string;
}

/** A folder and a config of the group's own: what its examples write (-o FILE, templates save NAME) not there yet. */
function groupFolders(group: Example[]): { cwd: string; configDir: string } {
  const cwd = join(scratch, `g${groupCount}`);
  const configDir = join(scratch, `c${groupCount++}`);
  if (FULL_RUN) cpSync(fixtures, cwd, { recursive: true, verbatimSymlinks: true });
  else linkTree(fixtures, cwd);
  cpSync(config, configDir, { recursive: true, verbatimSymlinks: true });
  for (const { text } of group) {
    // `> FILE` replaces a file as the shell does; -o refuses an existing one (without --force)
    for (const m of text.matchAll(/(?:-o|--output|agents init) ([\w./-]+)/g))
      if (m[1] !== '-') rmSync(join(cwd, m[1]!), { recursive: true, force: true });
    for (const m of text.matchAll(/(templates|fragments) save (\w+)/g))
      for (const ext of ['yaml', 'txt']) rmSync(join(configDir, m[1]!, `${m[2]}.${ext}`), { force: true });
    for (const m of text.matchAll(/alias set (\w+)/g)) {
      const file = join(configDir, 'aliases.json');
      const aliases = JSON.parse(readFileSync(file, 'utf8')) as { aliases: Record<string, string> };
      delete aliases.aliases[m[1]!];
      writeFileSync(file, JSON.stringify(aliases));
    }
  }
  return { cwd, configDir };
}
let groupCount = 0;

/**
 * `from`'s files hard-linked into `to` (its folders made): the everyday run's group folders. svc in-process writes a
 * file through the atomic writer (a new file renamed over the name), never into an existing one, so a group's writes
 * stay its own, and the test checks that the fixtures are unchanged at the end; 105 groups of 55 files copied cost
 * ~1.8 s of CPU. The full run copies: bash's `> FILE` writes into the file, which would reach every group.
 */
function linkTree(from: string, to: string): void {
  mkdirSync(to);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const [source, target] = [join(from, entry.name), join(to, entry.name)];
    if (entry.isDirectory()) linkTree(source, target);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else linkSync(source, target);
  }
}

/** Each file under `dir` (relative path) and the sha256 of its bytes. */
function sums(dir: string): Record<string, string> {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  return Object.fromEntries(
    files.map((e) => {
      const path = join(e.parentPath, e.name);
      return [relative(dir, path), createHash('sha256').update(readFileSync(path)).digest('hex')];
    }),
  );
}

async function runExample(example: Example, folders: () => { cwd: string; configDir: string }): Promise<Outcome> {
  if (example.runBy) return { example, how: `run by ${example.runBy}` };
  const page = example.where.split(':')[0]!;
  if (COVERED_PAGES[page]) return { example, how: `run by ${COVERED_PAGES[page]}` };
  const plan = planExample(example.text, SKIPS);
  if (plan.kind === 'skip') return { example, how: `skipped: ${plan.reason}` };
  if (plan.kind === 'shell' && !FULL_RUN) return { example, how: 'a shell line: bash runs it in the full run' };
  if (HEAVY.test(example.text) && !FULL_RUN) return { example, how: 'heavy in CPU: the full run runs it' };
  const { cwd, configDir } = folders();
  // XDG_DATA_HOME: `svc completion man --install` writes its default folder there, not into the real home
  const env = {
    SVC_DATA_DIR: join(configDir, 'data'),
    XDG_DATA_HOME: join(configDir, 'xdg-data'),
    ...(plan.kind === 'run' ? plan.env : {}),
  };
  if (plan.kind === 'shell') {
    // svc as installed on the PATH; MY_KEY as the reader of `printenv MY_KEY | svc auth login --with-key` has it
    const path = `${svcBin}:${process.env.PATH}`;
    const r = await svcShell(`unset -f svc\n${example.text}`, {
      emu,
      cwd,
      configDir,
      env: { ...env, PATH: path, MY_KEY: emu.key },
    });
    return judge(example, r);
  }
  if (SERVER.test(example.text)) {
    const unknown = await unknownFlags(plan.argv);
    const help = await svcInProcess([...plan.argv, '--help'], { emu, cwd, configDir, env });
    if (unknown.length === 0 && help.exitCode === 0)
      return { example, how: 'parsed: a server that runs until stopped' };
    return {
      example,
      how: 'FAILED',
      detail: `unknown flags ${unknown.join(' ')}; exit ${help.exitCode}: ${help.stderr}`,
    };
  }
  const run = (terminal: boolean) =>
    svcInProcess(plan.argv, {
      emu,
      cwd,
      configDir,
      env,
      inputFile: plan.stdinFile && join(cwd, plan.stdinFile),
      // a confirmation is answered yes on a terminal, as the reader would
      ...(terminal ? { tty: true, stdinTty: true, input: 'y\n' } : plan.stdinFile ? {} : { input: '' }),
      signal: AbortSignal.timeout(15_000),
    });
  let r = await run(false);
  if (r.exitCode === 2 && /confirmation needed/.test(r.stderr)) r = await run(true);
  // what a later example reads (the alternatives shown one after another do not truncate it on a failure)
  if (plan.stdoutFile && r.exitCode === 0) writeFileSync(join(cwd, plan.stdoutFile), r.stdout);
  return judge(example, r);
}

function judge(example: Example, r: RunResult): Outcome {
  if (r.exitCode === 0) return { example, how: 'ran' };
  // in a pipeline or $(…) the shell's status is another program's: the 404 is in svc's stderr
  if (PLACEHOLDER_ID.test(example.text) && (r.exitCode === 5 || /\(HTTP 404\b/.test(r.stderr)))
    return { example, how: 'not found (a placeholder id)' };
  // agents diff: 1 when the server differs from the files, as git diff --exit-code (docs/scripting.md)
  if (/\bagents diff\b/.test(example.text) && r.exitCode === 1 && /differ/.test(r.stdout + r.stderr))
    return { example, how: 'differs (exit 1, as documented)' };
  // agents simulate: 1 when the judge fails a criterion, which the emulator's seeded judge may
  if (/\bagents simulate\b/.test(example.text) && r.exitCode === 1 && /calls passed/.test(r.stdout + r.stderr))
    return { example, how: 'judged (exit 1: a criterion failed, as documented)' };
  const said = (r.stderr.trim() || r.stdout.trim()).split('\n').slice(-2).join(' | ');
  return { example, how: 'FAILED', detail: `exit ${r.exitCode}: ${said}` };
}

describe('every example of the README, the docs and --help', () => {
  it('runs as written (counts printed)', async () => {
    const examples = [...examplePages().flatMap(pageExamples), ...(await helpExamples())];
    const groups = new Map<string, Example[]>();
    for (const e of examples) groups.set(e.group, [...(groups.get(e.group) ?? []), e]);
    const outcomes: Outcome[] = [];
    for (const group of groups.values()) {
      // made when one of the group's examples runs (most groups of skipped lines need none)
      let made: ReturnType<typeof groupFolders> | undefined;
      const folders = () => (made ??= groupFolders(group));
      for (const example of group) outcomes.push(await runExample(example, folders));
    }
    const counts = new Map<string, number>();
    for (const o of outcomes) counts.set(o.how, (counts.get(o.how) ?? 0) + 1);
    const report = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([how, n]) => `  ${n}\t${how}`);
    console.log(`examples found: ${examples.length}\n${report.join('\n')}`);
    // every way of skipping is still needed: a row no example meets any more goes
    const reasons = new Set(outcomes.map((o) => o.how));
    expect(SKIPS.filter(([, reason]) => !reasons.has(`skipped: ${reason}`)).map(([, r]) => r)).toEqual([]);
    const failed = outcomes.filter((o) => o.how === 'FAILED');
    expect(failed.map((o) => `${o.example.where}: ${o.example.text}\n    ${o.detail}`)).toEqual([]);
    expect(examples.length).toBeGreaterThan(350);
    // most run here; the rest are counted above, each with its reason
    expect(counts.get('ran')! + counts.get('not found (a placeholder id)')!).toBeGreaterThan(examples.length / 2);
    // no example wrote into a fixture (linked into each group's folder outside the full run)
    expect(sums(fixtures)).toEqual(fixtureSums);
  }, 240_000);
});
