// One case per documented range or rule of the Responses endpoints: exit 2, a message naming the flag and what is
// allowed, and nothing sent to the emulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { writeTemp } from '../../helpers/files.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const tool = (name: string) => ({ type: 'function', name, parameters: { type: 'object', properties: {} } });
const manyTools = () => writeTemp('tools.json', JSON.stringify(Array.from({ length: 129 }, (_, i) => tool(`t${i}`))));
const oneTool = () => writeTemp('tool.json', JSON.stringify(tool('lookup')));

const create: [string, () => string[], RegExp][] = [
  ['temperature above 2', () => ['--temperature', '2.5'], /--temperature: 2\.5 .*from 0 to 2/],
  ['temperature below 0', () => ['--temperature', '-1'], /--temperature: -1 .*from 0 to 2/],
  ['top_p of 0', () => ['--top-p', '0'], /--top-p: 0 .*greater than 0 and at most 1/],
  ['top_p above 1', () => ['--top-p', '1.01'], /--top-p: 1\.01 .*greater than 0 and at most 1/],
  ['top_k of 0', () => ['--top-k', '0'], /--top-k: 0 .*from 1 to 2147483647/],
  ['min_p above 1', () => ['--min-p', '1.5'], /--min-p: 1\.5 .*from 0 to 1/],
  [
    'max_output_tokens of 0',
    () => ['--max-output-tokens', '0'],
    /--max-output-tokens: 0 .*whole number from 1 to 2147483647/,
  ],
  [
    'max_output_tokens beyond int32',
    () => ['--max-output-tokens', '2147483648'],
    /--max-output-tokens: 2147483648 .*from 1 to 2147483647/,
  ],
  ['max_turns of 0', () => ['--max-turns', '0'], /--max-turns: 0 .*from 1 to 2147483647/],
  ['top_logprobs above 8', () => ['--logprobs', '--top-logprobs', '9'], /--top-logprobs: 9 .*from 0 to 8/],
  ['top_logprobs without logprobs', () => ['--top-logprobs', '2'], /--top-logprobs: 2 .*only together with --logprobs/],
  [
    'unknown reasoning effort',
    () => ['--reasoning-effort', 'max'],
    /--reasoning-effort: max .*none, low, medium, high, xhigh/,
  ],
  [
    'unknown reasoning summary',
    () => ['--reasoning-summary', 'short'],
    /--reasoning-summary: short .*auto, concise, detailed/,
  ],
  ['unknown include option', () => ['--include', 'everything'], /--include: everything .*reasoning\.encrypted_content/],
  ['unknown service tier', () => ['--service-tier', 'auto'], /--service-tier: auto .*default, priority/],
  ['unknown truncation', () => ['--truncation', 'middle'], /--truncation: middle .*auto, disabled/],
  ['unknown search mode', () => ['--search', 'always'], /--search: always .*off, on, auto/],
  ['max search results above 30', () => ['--max-search-results', '31'], /--max-search-results: 31 .*from 1 to 30/],
  ['search date that does not exist', () => ['--search-to', '2024-13-01'], /--search-to: 2024-13-01 .*YYYY-MM-DD/],
  [
    'search from after search to',
    () => ['--search-from', '2024-05-01', '--search-to', '2024-04-01'],
    /--search-from: 2024-05-01 .*not after --search-to/,
  ],
  ['more than 128 tools', () => ['--tool', manyTools()], /--tool: 129 tools .*at most 128/],
  [
    'tool choice naming no tool',
    () => ['--tool', oneTool(), '--tool-choice', 'other'],
    /--tool-choice: other .*name of a --tool function \(lookup\)/,
  ],
  [
    'tool choice required without tools',
    () => ['--tool-choice', 'required'],
    /--tool-choice: required .*needs at least one --tool/,
  ],
  ['tool command without a name', () => ['--tool-cmd', 'just-a-command'], /--tool-cmd: just-a-command .*NAME=COMMAND/],
  ['tool command name with spaces', () => ['--tool-cmd', 'my tool=echo'], /--tool-cmd: my tool .*letters, digits/],
  ['tool command given twice', () => ['--tool-cmd', 'a=echo', '--tool-cmd', 'a=cat'], /--tool-cmd: a is given twice/],
  [
    'schema together with format',
    () => ['--schema', writeTemp('s.json', '{"type":"object"}'), '--format', 'text'],
    /--schema: .* not together with --format/,
  ],
  ['unknown format', () => ['--format', 'yaml'], /--format: yaml .*text, json_object/],
  ['-c together with --previous', () => ['-c', '--previous', 'abc'], /--previous: abc .*not together with -c/],
  [
    'instructions with previous_response_id',
    () => ['--previous', 'abc', '--instructions', 'be brief'],
    /--instructions: be brief .*not together with --previous or -c/,
  ],
  [
    'an --input file that does not exist',
    () => ['--input', '/nonexistent/items.json'],
    /--input: cannot read \/nonexistent\/items\.json: no such file or directory/,
  ],
  ['an --input file that is empty', () => ['--input', writeTemp('empty.json', '  \n')], /--input: .*empty/],
  [
    'instructions from a missing @file',
    () => ['--instructions', '@/nonexistent/sys.txt'],
    /--instructions: cannot read \/nonexistent\/sys\.txt: no such file or directory/,
  ],
];

describe('svc responses create rejects bad input before sending', () => {
  for (const [name, args, message] of create) {
    it(name, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['responses', 'create', ...args(), 'hello'], { emu });
      expect(r.stderr).toMatch(message);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(emu.requests()).toHaveLength(0);
    });
  }

  it('no input at all', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['responses', 'create'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('no input');
    expect(emu.requests()).toHaveLength(0);
  });
});

const items: [string, string[], RegExp][] = [
  ['page size of 0', ['--limit', '0'], /--limit: 0 .*from 1 to 100/],
  ['page size above 100', ['--limit', '101'], /--limit: 101 .*from 1 to 100/],
  ['unknown order', ['--order', 'newest'], /--order: newest .*asc, desc/],
];

describe('svc responses items rejects bad input before sending', () => {
  for (const [name, args, message] of items) {
    it(name, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['responses', 'items', 'some-id', ...args], { emu });
      expect(r.stderr).toMatch(message);
      expect(r.exitCode).toBe(2);
      expect(emu.requests()).toHaveLength(0);
    });
  }

  it('compact needs --model and --input', async () => {
    emu.clearRequests();
    const noModel = await svcInProcess(['responses', 'compact', '--input', writeTemp('h.json', '[]')], { emu });
    expect(noModel.stderr).toMatch(/--model: .*required/);
    expect(noModel.exitCode).toBe(2);
    const noInput = await svcInProcess(['responses', 'compact', '--model', 'svc-4'], { emu });
    expect(noInput.stderr).toMatch(/--input: .*required/);
    expect(noInput.exitCode).toBe(2);
    expect(emu.requests()).toHaveLength(0);
  });
});
