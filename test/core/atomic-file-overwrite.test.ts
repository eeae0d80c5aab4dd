// One rule for every command that writes a file the user named (issue 37, item 2): an existing file is never
// replaced without --force (--clobber is the same flag). Refused before anything is sent (exit 2 naming the flag,
// the file and --force), and at commit time too (a file that appeared meanwhile stays). Pipes and devices are
// written as before. `svc batch` has its own rows (test/commands/batch).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { spawnSvc } from '../helpers/subprocess.js';
import { tempDir } from '../helpers/files.js';
import { loadCommandTree } from '../helpers/command-tree.js';
import { FILE_TARGET_PARSERS } from '../../src/core/option-spec.js';
import { talking } from '../commands/realtime/talk-helpers.js';

let emu: TestEmulator;
let dir: string;
let clip: string;
let ids: { agent: string; file: string };
const PRECIOUS = 'the user file, not to be touched\n';

beforeAll(async () => {
  emu = await startTestEmulator({ settings: { realtimePace: 0 } });
  dir = tempDir('svc-overwrite-');
  clip = join(dir, 'question.wav');
  await svcInProcess(['tts', 'say', 'what time is it', '-o', clip, '--sample-rate', '24000'], { emu });
  writeFileSync(join(dir, 'agent.json'), JSON.stringify({ name: 'desk', instructions: 'answer' }));
  writeFileSync(join(dir, 'suite.json'), JSON.stringify({ cases: [{ name: 'greets', turns: [{ user: 'hi' }] }] }));
  writeFileSync(join(dir, 'data.txt'), 'some data\n');
  const agent = await svcInProcess(['agents', 'create', '--name', 'a', '--instructions', 'y', '--json'], { emu });
  const file = await svcInProcess(['files', 'upload', join(dir, 'data.txt'), '--json'], { emu });
  ids = { agent: JSON.parse(agent.stdout).agent.agent_id, file: JSON.parse(file.stdout).id };
});
afterAll(async () => {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

// [row, the file's name, the command line writing it, the flag that names it, stdin]
const rows: [string, string, (t: string) => string[], string, string?][] = [
  ['tts say -o', 'say.mp3', (t) => ['tts', 'say', 'hello', '-o', t], '--output'],
  ['tts say --rest -o', 'rest.wav', (t) => ['tts', 'say', 'hello', '--rest', '-o', t], '--output'],
  [
    'tts say --timestamps FILE (-o a device)',
    'times.json',
    (t) => ['tts', 'say', 'hello', '-o', '/dev/null', '--timestamps', t],
    '--timestamps',
  ],
  ['tts stream -o', 'stream.wav', (t) => ['tts', 'stream', '-o', t], '--output', 'hello there\n'],
  [
    'stt listen --srt -o',
    'subs.srt',
    (t) => ['stt', 'listen', '--input', clip, '--no-realtime', '--srt', '-o', t],
    '--output',
  ],
  ['realtime talk --output', 'answer.wav', (t) => ['realtime', 'talk', '--input', clip, '--output', t], '--output'],
  [
    'realtime talk --record',
    'both.wav',
    (t) => ['realtime', 'talk', '--input', clip, '--output', '/dev/null', '--record', t],
    '--record',
  ],
  [
    'realtime talk --latency-log',
    'turns.jsonl',
    (t) => ['realtime', 'talk', '--input', clip, '--output', '/dev/null', '--latency-log', t],
    '--latency-log',
  ],
  ['agents pull -o', 'pulled.json', (t) => ['agents', 'pull', ids.agent, '-o', t], '--output'],
  [
    'agents test -o',
    'report.txt',
    (t) => ['agents', 'test', '--agent-file', join(dir, 'agent.json'), join(dir, 'suite.json'), '-o', t],
    '--output',
  ],
  ['images generate -o', 'red.png', (t) => ['images', 'generate', 'a red square', '-o', t], '--output'],
  ['files download -o', 'data.bin', (t) => ['files', 'download', ids.file, '-o', t], '--output'],
];

/** the rule for one row: refused (exit 2, nothing sent, the file as it was), then replaced with the flag given */
async function checkRow(emu: TestEmulator, row: (typeof rows)[number], force: string) {
  const [, file, args, flag, input] = row;
  const target = join(dir, file);
  const first = await svcInProcess(args(target), { emu, input });
  expect(first.exitCode, first.stderr).toBe(0);
  const written = readFileSync(target);

  emu.clearRequests();
  const second = await svcInProcess(args(target), { emu, input });
  expect(second.exitCode, second.stderr).toBe(2);
  expect(second.stderr).toContain(`${flag}: ${target} already exists; --force (or --clobber) replaces it`);
  expect(emu.requests()).toEqual([]);
  expect(readFileSync(target).equals(written)).toBe(true);

  writeFileSync(target, PRECIOUS);
  const forced = await svcInProcess([...args(target), force], { emu, input });
  expect(forced.exitCode, forced.stderr).toBe(0);
  expect(readFileSync(target, 'utf8')).not.toBe(PRECIOUS);
}
// every other row replaces with the alias: each command proves one of the two names (a session costs seconds)
const forceOf = (i: number) => (i % 2 ? '--clobber' : '--force');
const title = (name: string, i: number) =>
  `${name}: exit 2 before anything is sent, the file as it was; ${forceOf(i)} replaces it`;
const isTalk = (name: string) => name.startsWith('realtime talk');

// The talk rows send their clip at real time (~2.5 s a run, three runs a row): they run at once, each with an
// emulator of its own (its requests are the row's alone) that answers at once.
describe.concurrent('a second run with the same output file: realtime talk', () => {
  for (const [i, row] of rows.entries())
    if (isTalk(row[0])) talking(title(row[0], i), ({ emu: own }) => checkRow(own, row, forceOf(i)));
});

describe('a second run with the same output file', () => {
  for (const [i, row] of rows.entries())
    if (!isTalk(row[0])) it(title(row[0], i), () => checkRow(emu, row, forceOf(i)));

  it('calls join --output: an existing file is refused before connecting', async () => {
    const target = join(dir, 'call.wav');
    writeFileSync(target, PRECIOUS);
    emu.clearRequests();
    const r = await svcInProcess(['calls', 'join', 'rtc_1', '--output', target], { emu });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--output: ${target} already exists; --force (or --clobber) replaces it`);
    expect(emu.requests()).toEqual([]);
    expect(readFileSync(target, 'utf8')).toBe(PRECIOUS);
  });

  it('-o /dev/null is written as before, run after run', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await svcInProcess(['tts', 'say', 'hello', '-o', '/dev/null'], { emu });
      expect(r.exitCode, r.stderr).toBe(0);
    }
  });
});

describe('at commit time', () => {
  it('tts stream -o FILE: a file that appeared while the audio streamed stays (exit 2, no temp file)', async () => {
    const work = tempDir('svc-overwrite-race-');
    const target = join(work, 'race.wav');
    const p = spawnSvc(['tts', 'stream', '-o', target], { emu, stdin: 'pipe', timeout: 60_000 });
    p.stdin!.write('first utterance\n\n');
    // the temp file exists once audio arrived: now another program writes the target
    for (let i = 0; i < 500 && readdirSync(work).length < 1; i++) await new Promise((res) => setTimeout(res, 20));
    expect(readdirSync(work)).toHaveLength(1);
    writeFileSync(target, PRECIOUS);
    p.stdin!.end();
    const r = await p;
    expect(r.exitCode, String(r.stderr)).toBe(2);
    expect(r.stderr).toContain(`${target} already exists; --force (or --clobber) replaces it`);
    expect(readFileSync(target, 'utf8')).toBe(PRECIOUS);
    expect(readdirSync(work)).toEqual(['race.wav']);
    rmSync(work, { recursive: true, force: true });
  });
});

describe('every command with an output file flag takes --force', () => {
  it('so that the rule can be met', async () => {
    const without = (await loadCommandTree())
      .filter(({ spec }) => spec?.options?.some((o) => o.parse && FILE_TARGET_PARSERS.has(o.parse)))
      .filter(({ spec }) => !spec!.options!.some((o) => /(^|[ ,])--force\b/.test(o.flags)))
      .map(({ words }) => words);
    expect(without).toEqual([]);
  });
});
