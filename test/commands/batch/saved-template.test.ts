// svc batch … -t NAME in-process against the emulator: a saved template applied to every row (its system prompt,
// model, schema and options as flags, the command line winning; its prompt the row template, columns then --var
// filling the variables), the refusals (exit 2, nothing sent), and the journal refusing a resume with another
// template or other --var values.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { itWithEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';

const it = itWithEmulator();

const posts = (emu: TestEmulator, path: string) =>
  emu
    .requests()
    .filter((r) => r.method === 'POST' && r.path === path)
    .map((r) => JSON.parse(r.body!) as Record<string, any>);

const TRANSLATE = `description: answers in a language
model: svc-4-mini
system: You answer in {{lang}} for {{who}}.
prompt: 'Answer briefly: {{input}}'
options: {temperature: 0.3, max-completion-tokens: 60}
defaults: {lang: English}
`;

const PERSON = `system: You extract people.
schema: {type: object, properties: {name: {type: string}}, required: [name]}
prompt: Who is named here?
options: {max-output-tokens: 50}
`;

/** A folder holding a config folder with templates, and the files given. */
function setUp(files: Record<string, string>, templates: Record<string, string> = { translate: TRANSLATE }) {
  const dir = tempDir('svc-batch-t-');
  const configDir = join(dir, 'config');
  mkdirSync(join(configDir, 'templates'), { recursive: true });
  for (const [name, yaml] of Object.entries(templates))
    writeFileSync(join(configDir, 'templates', `${name}.yaml`), yaml);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { dir, configDir };
}

const QUESTIONS = 'id,prompt,lang\nq1,What is a tide?,French\nq2,Why is the sky blue?,\n';

describe.concurrent('svc batch -t NAME', () => {
  it('chat: every row gets the system prompt, model, options and prompt; columns, then --var, fill', async ({
    emu,
  }) => {
    const { dir, configDir } = setUp({ 'q.csv': QUESTIONS });
    const args = ['batch', 'chat', join(dir, 'q.csv'), '-t', 'translate', '--var', 'who=ops', '--var', 'lang=German'];
    const r = await svcInProcess([...args, '--temperature', '0.9'], { emu, configDir });
    expect(r.exitCode, r.stderr).toBe(0);
    const sent = posts(emu, '/v1/chat/completions').sort((a, b) =>
      a.messages[1].content.localeCompare(b.messages[1].content),
    );
    expect(sent).toHaveLength(2);
    // q1's lang column wins over --var; q2's empty lang column is a value too (a column is given as it is)
    expect(sent[0]).toMatchObject({
      model: 'svc-4-mini',
      temperature: 0.9,
      max_completion_tokens: 60,
      messages: [
        { role: 'system', content: 'You answer in French for ops.' },
        { role: 'user', content: 'Answer briefly: What is a tide?' },
      ],
    });
    expect(sent[1].messages).toEqual([
      { role: 'system', content: 'You answer in  for ops.' },
      { role: 'user', content: 'Answer briefly: Why is the sky blue?' },
    ]);
    // without the column, --var gives lang, and -m and --system on the command line win over the template
    emu.clearRequests();
    writeFileSync(join(dir, 'plain.csv'), 'prompt\nWhat is a tide?\n');
    const own = await svcInProcess(
      ['batch', 'chat', join(dir, 'plain.csv'), '-t', 'translate', '--var', 'who=ops', '--var', 'lang=German'],
      { emu, configDir },
    );
    expect(own.exitCode, own.stderr).toBe(0);
    expect(posts(emu, '/v1/chat/completions')[0]!.messages[0].content).toBe('You answer in German for ops.');
    emu.clearRequests();
    const flags = await svcInProcess(
      [
        'batch',
        'chat',
        join(dir, 'plain.csv'),
        '-t',
        'translate',
        '--var',
        'who=x',
        '-m',
        'svc-4',
        '--system',
        'S',
      ].concat(['--journal', join(dir, 'flags.journal')]),
      { emu, configDir },
    );
    expect(flags.exitCode, flags.stderr).toBe(0);
    const [body] = posts(emu, '/v1/chat/completions');
    expect(body).toMatchObject({ model: 'svc-4', temperature: 0.3 });
    expect(body!.messages).toEqual([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'Answer briefly: What is a tide?' },
    ]);
  });

  it('responses: the schema and instructions; a prompt without variables gets each line appended', async ({ emu }) => {
    const { dir, configDir } = setUp(
      { 'lines.txt': 'Ada Lovelace wrote the first program.\nGrace Hopper.\n' },
      {
        person: PERSON,
      },
    );
    const r = await svcInProcess(['batch', 'responses', join(dir, 'lines.txt'), '-t', 'person', '-o', join(dir, 'o')], {
      emu,
      configDir,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const sent = posts(emu, '/v1/responses').sort((a, b) => a.input.localeCompare(b.input));
    expect(sent.map((b) => b.input)).toEqual([
      'Who is named here?\n\nAda Lovelace wrote the first program.',
      'Who is named here?\n\nGrace Hopper.',
    ]);
    for (const b of sent) {
      expect(b).toMatchObject({ instructions: 'You extract people.', max_output_tokens: 50 });
      expect(b.text.format).toMatchObject({ type: 'json_schema', schema: { required: ['name'] } });
    }
  });

  it("a folder ({{input}}: a file's text) and JSON Lines ({{input}}: the prompt field) with -t", async ({ emu }) => {
    const { dir, configDir } = setUp(
      { 'rows.jsonl': '{"prompt": "a tide?", "who": "kids"}\n' },
      {
        named: 'system: For {{who}}.\nprompt: "{{name}} says: {{input}}"\ndefaults: {name: someone}\n',
      },
    );
    mkdirSync(join(dir, 'notes'));
    writeFileSync(join(dir, 'notes', 'memo.txt'), 'Costs fell.');
    const folder = await svcInProcess(['batch', 'chat', join(dir, 'notes'), '-t', 'named', '--var', 'who=ops'], {
      emu,
      configDir,
    });
    expect(folder.exitCode, folder.stderr).toBe(0);
    const jsonl = await svcInProcess(['batch', 'chat', join(dir, 'rows.jsonl'), '-t', 'named'], { emu, configDir });
    expect(jsonl.exitCode, jsonl.stderr).toBe(0);
    expect(posts(emu, '/v1/chat/completions').map((b) => b.messages)).toEqual([
      // a folder's row has {{name}} (the file's name): it wins over the template's default
      [
        { role: 'system', content: 'For ops.' },
        { role: 'user', content: 'memo.txt says: Costs fell.' },
      ],
      [
        { role: 'system', content: 'For kids.' },
        { role: 'user', content: 'someone says: a tide?' },
      ],
    ]);
  });

  it('messages: the system prompt and options; a template with a schema is refused there', async ({ emu }) => {
    const { dir, configDir } = setUp(
      { 'q.csv': QUESTIONS },
      { translate: TRANSLATE, person: PERSON, short: 'system: Be short.\noptions: {max-tokens: 40}\n' },
    );
    const r = await svcInProcess(['batch', 'messages', join(dir, 'q.csv'), '-t', 'short'], { emu, configDir });
    expect(r.exitCode, r.stderr).toBe(0);
    const sent = posts(emu, '/v1/messages');
    expect(sent).toHaveLength(2);
    for (const b of sent) expect(b).toMatchObject({ system: 'Be short.', max_tokens: 40 });
    expect(sent.map((b) => b.messages[0].content).sort()).toEqual(['What is a tide?', 'Why is the sky blue?']);
    emu.clearRequests();
    const schema = await svcInProcess(['batch', 'messages', join(dir, 'q.csv'), '-t', 'person'], { emu, configDir });
    expect(schema.exitCode).toBe(2);
    expect(schema.stderr).toContain('-t person: batch messages takes no --schema');
    expect(emu.requests()).toEqual([]);
  });

  it('refusals before anything is sent (exit 2), each naming what is wrong', async ({ emu }) => {
    const { dir, configDir } = setUp(
      {
        'q.csv': QUESTIONS,
        'rows.jsonl': '{"prompt": "a", "who": "me"}\n{"prompt": "b"}\n',
        'lines.txt': 'one\n',
      },
      { translate: TRANSLATE, streamy: 'prompt: hi {{input}}\noptions: {stream: true}\n' },
    );
    const csv = join(dir, 'q.csv');
    const cases: [string[], string[]][] = [
      // {{who}}: neither a column nor a --var
      [
        ['chat', csv, '-t', 'translate'],
        [`${csv}:1: no column "who"`, '--var who=…', 'nothing was sent'],
      ],
      [
        ['chat', join(dir, 'rows.jsonl'), '-t', 'translate'],
        [`rows.jsonl:2: no field "who"`, '--var who=…'],
      ],
      [['chat', csv, '-t', 'translate', '--template', '{{prompt}}'], ['-t translate and --template: give one']],
      [
        ['embed', csv, '-t', 'translate'],
        ['-t translate: batch embed takes no saved template', 'chat, responses'],
      ],
      [['tts', join(dir, 'lines.txt'), '-t', 'translate', '--output-dir', dir], ['batch tts takes no saved']],
      [
        ['chat', csv, '-t', 'nope'],
        ['-t: no template nope', 'saved: streamy, translate'],
      ],
      [['chat', csv, '-t', 'streamy'], ['-t streamy: option "stream" is not a flag of batch chat']],
      [
        ['chat', csv, '--template', 'translate'],
        ['"translate" is the name of a saved template', 'give -t translate'],
      ],
      [
        ['chat', csv, '--var', 'who=x'],
        ['--var', 'only with -t NAME or --template'],
      ],
      [['responses', csv, '-t', 'translate', '--var', 'who=x', '--temperature', '7'], ['--temperature']],
    ];
    for (const [args, messages] of cases) {
      const r = await svcInProcess(['batch', ...args], { emu, configDir });
      expect(r.exitCode, `${args.join(' ')}\n${r.stderr}`).toBe(2);
      for (const m of messages) expect(r.stderr, args.join(' ')).toContain(m);
    }
    expect(emu.requests()).toEqual([]);
  });

  it('--resume: the template is part of the run; another template or other --var values are refused', async ({
    emu,
  }) => {
    const { dir, configDir } = setUp({ 'q.csv': 'prompt\none\ntwo\nthree\n' });
    const out = join(dir, 'out.jsonl');
    const args = ['batch', 'chat', join(dir, 'q.csv'), '-t', 'translate', '--var', 'who=ops', '-o', out, '-P', '1'];
    // the first row fails (400) and stays for the resume
    emu.faults.add({ kind: 'status', status: 400, times: 1, path: '/v1/chat' });
    const first = await svcInProcess(args, { emu, configDir });
    expect(first.exitCode, first.stderr).toBe(1);
    emu.clearRequests();
    const otherVar = await svcInProcess([...args.slice(0, 6), 'who=devs', ...args.slice(7), '--resume'], {
      emu,
      configDir,
    });
    expect(otherVar.exitCode).toBe(2);
    expect(otherVar.stderr).toContain('the template has changed since (-t translate; with its --var values)');
    writeFileSync(join(configDir, 'templates', 'translate.yaml'), TRANSLATE.replace('briefly', 'at length'));
    const edited = await svcInProcess([...args, '--resume'], { emu, configDir });
    expect(edited.exitCode).toBe(2);
    expect(edited.stderr).toContain('the template has changed since');
    const plain = await svcInProcess(
      ['batch', 'chat', join(dir, 'q.csv'), '--template', '{{prompt}}', '-o', out, '--resume'],
      { emu, configDir },
    );
    expect(plain.exitCode).toBe(2);
    expect(emu.requests()).toEqual([]);
    // the template as it was (its description aside, which is not sent): only the failed row is sent again
    writeFileSync(join(configDir, 'templates', 'translate.yaml'), TRANSLATE.replace('answers in', 'replies in'));
    const resumed = await svcInProcess([...args, '--resume'], { emu, configDir });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const sent = posts(emu, '/v1/chat/completions');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.messages[0].content).toBe('You answer in English for ops.');
    expect(sent[0]!.messages[1].content).toBe('Answer briefly: one');
  });

  it('a template reading a file outside the folder asks as chat -t does: in a pipe exit 2 unless --yes', async ({
    emu,
  }) => {
    const secret = join(tempDir('svc-batch-secret-'), 'private.json');
    writeFileSync(secret, '{"type": "object", "description": "PRIVATE"}');
    const { dir, configDir } = setUp(
      { 'q.txt': 'one\n' },
      { sly: `prompt: '{{input}}'\noptions: {schema: ${secret}}\n` },
    );
    const args = ['batch', 'chat', join(dir, 'q.txt'), '-t', 'sly'];
    const r = await svcInProcess(args, { emu, configDir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /-t sly: the template reads .*private\.json \(outside this folder\); use it: confirmation needed, .*pass --yes/,
    );
    expect(emu.requests()).toEqual([]);
    const yes = await svcInProcess([...args, '--yes'], { emu, configDir });
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect(JSON.stringify(posts(emu, '/v1/chat/completions'))).toContain('PRIVATE');
  });
});
