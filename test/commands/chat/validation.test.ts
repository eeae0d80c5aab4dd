// One case per documented range or rule of the chat request: exit 2, a message naming the flag and what is
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

const tool = (name: string) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: {} } },
});
const manyTools = () => writeTemp('tools.json', JSON.stringify(Array.from({ length: 129 }, (_, i) => tool(`t${i}`))));
const oneTool = () => writeTemp('tool.json', JSON.stringify(tool('lookup')));

const cases: [string, () => string[], RegExp][] = [
  ['temperature above 2', () => ['--temperature', '3'], /--temperature: 3 .*from 0 to 2/],
  ['temperature below 0', () => ['--temperature', '-0.1'], /--temperature: -0\.1 .*from 0 to 2/],
  ['temperature not a number', () => ['--temperature', 'hot'], /--temperature: hot .*number from 0 to 2/],
  ['top_p of 0', () => ['--top-p', '0'], /--top-p: 0 .*greater than 0 and at most 1/],
  ['top_p above 1', () => ['--top-p', '1.5'], /--top-p: 1\.5 .*greater than 0 and at most 1/],
  ['frequency_penalty above 2', () => ['--frequency-penalty', '3'], /--frequency-penalty: 3 .*from -2 to 2/],
  ['frequency_penalty below -2', () => ['--frequency-penalty', '-2.5'], /--frequency-penalty: -2\.5 .*from -2 to 2/],
  ['presence_penalty out of range', () => ['--presence-penalty', '2.01'], /--presence-penalty: 2\.01 .*from -2 to 2/],
  [
    'max_completion_tokens of 0',
    () => ['--max-completion-tokens', '0'],
    /--max-completion-tokens: 0 .*whole number from 1 to 2147483647/,
  ],
  [
    'max_completion_tokens beyond int32',
    () => ['--max-completion-tokens', '2147483648'],
    /--max-completion-tokens: 2147483648 .*from 1 to 2147483647/,
  ],
  [
    'max_completion_tokens not whole',
    () => ['--max-completion-tokens', '1.5'],
    /--max-completion-tokens: 1\.5 .*whole number/,
  ],
  ['max_tokens of 0', () => ['--max-tokens', '0'], /--max-tokens: 0 .*from 1 to 2147483647/],
  ['n of 0', () => ['-n', '0'], /--n: 0 .*from 1 to 2147483647/],
  ['seed beyond int32', () => ['--seed', '2147483648'], /--seed: 2147483648 .*from -2147483648 to 2147483647/],
  [
    'more than 4 stop sequences',
    () => ['--stop', 'a', '--stop', 'b', '--stop', 'c', '--stop', 'd', '--stop', 'e'],
    /--stop: 5 values .*at most 4/,
  ],
  ['logit bias above 100', () => ['--logit-bias', '50=101'], /--logit-bias: 101 .*from -100 to 100/],
  ['logit bias with a non-numeric token id', () => ['--logit-bias', 'abc=1'], /--logit-bias: abc=1 .*TOKEN_ID=BIAS/],
  ['top_logprobs above 8', () => ['--logprobs', '--top-logprobs', '9'], /--top-logprobs: 9 .*from 0 to 8/],
  ['top_logprobs without logprobs', () => ['--top-logprobs', '3'], /--top-logprobs: 3 .*only together with --logprobs/],
  [
    'unknown reasoning effort',
    () => ['--reasoning-effort', 'extreme'],
    /--reasoning-effort: extreme .*none, low, medium, high/,
  ],
  ['unknown service tier', () => ['--service-tier', 'fast'], /--service-tier: fast .*auto, priority/],
  ['unknown search mode', () => ['--search', 'always'], /--search: always .*off, on, auto/],
  ['max search results above 30', () => ['--max-search-results', '31'], /--max-search-results: 31 .*from 1 to 30/],
  ['max search results of 0', () => ['--max-search-results', '0'], /--max-search-results: 0 .*from 1 to 30/],
  ['search date that does not exist', () => ['--search-from', '2024-02-30'], /--search-from: 2024-02-30 .*YYYY-MM-DD/],
  [
    'search from after search to',
    () => ['--search-from', '2024-05-01', '--search-to', '2024-04-01'],
    /--search-from: 2024-05-01 .*not after --search-to/,
  ],
  ['unknown search source', () => ['--search-source', 'mastodon'], /--search-source: mastodon .*web, x, news, rss/],
  ['rss source without a feed', () => ['--search-source', 'rss'], /--search-source rss: needs at least one --rss/],
  ['search country not two letters', () => ['--search-country', 'USA'], /--search-country: USA .*two-letter/],
  ['more than 128 tools', () => ['--tool', manyTools()], /--tool: 129 tools .*at most 128/],
  [
    'tool choice required without tools',
    () => ['--tool-choice', 'required'],
    /--tool-choice: required .*needs at least one --tool/,
  ],
  [
    'tool choice naming no tool',
    () => ['--tool', oneTool(), '--tool-choice', 'other'],
    /--tool-choice: other .*name of a --tool function \(lookup\)/,
  ],
  ['tool file that is not JSON', () => ['--tool', writeTemp('bad.json', '{nope')], /--tool: .*bad\.json .*valid JSON/],
  ['unknown response format', () => ['--response-format', 'yaml'], /--response-format: yaml .*text, json_object/],
  [
    'schema together with response format',
    () => ['--schema', writeTemp('s.json', '{"type":"object"}'), '--response-format', 'text'],
    /--schema: .* not together with --response-format/,
  ],
  [
    'image that does not exist',
    () => ['--image', '/nonexistent/pic.png'],
    /--image: \/nonexistent\/pic\.png: no such file \(give a readable image file/,
  ],
  [
    'image of an unknown type',
    () => ['--image', writeTemp('doc.txt', 'x')],
    /--image: .*doc\.txt is not a PNG, JPEG, GIF or WebP image/,
  ],
  [
    'web search options that are not an object',
    () => ['--web-search-options', '[1]'],
    /--web-search-options: \[1\] .*JSON object/,
  ],
  ['--wait without --deferred', () => ['--wait'], /--wait: only together with --deferred/],
];

describe('svc chat rejects bad input before sending', () => {
  for (const [name, args, message] of cases) {
    it(name, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['chat', ...args(), 'hello'], { emu });
      expect(r.stderr).toMatch(message);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(emu.requests()).toHaveLength(0);
    });
  }

  it('no prompt at all', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['chat'], { emu, input: '' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/no prompt/);
    expect(emu.requests()).toHaveLength(0);
  });

  it('the emulator enforces the same rules when a raw request bypasses the CLI', async () => {
    const r = await svcInProcess(
      [
        'api',
        'POST',
        '/v1/chat/completions',
        '-f',
        'model=svc-4',
        '-F',
        'messages=[{"role":"user","content":"x"}]',
        '-F',
        'temperature=3',
      ],
      { emu },
    );
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/temperature.*at most 2.*HTTP 400, invalid-argument, request id/);
  });

  it('reasoning models refuse penalties and stop sequences (server message shown)', async () => {
    const r = await svcInProcess(['chat', '-m', 'svc-4-reasoning', '--frequency-penalty', '1', 'hello'], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/not supported on reasoning model svc-4-reasoning: frequency_penalty/);
  });
});
