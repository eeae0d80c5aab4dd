// svc templates save/list/show/edit/delete and -t NAME on chat, responses and messages: what reaches the API (the
// emulator's request log), what the command line overrides, the checks (exit 2, nothing sent), the YAML file people
// edit, and the editor on a real terminal.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir, writeTemp } from '../../helpers/files.js';
import { svcBinDir } from '../../helpers/subprocess.js';
import { execa } from 'execa';
import { itWithEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcOnTerminal } from '../../helpers/terminal.js';

const withEmu = itWithEmulator();

const SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

/** A config folder with the templates the tests use, saved through the CLI. */
async function configWithTemplates(): Promise<string> {
  const configDir = tempDir('svc-tpl-');
  const saves = [
    [
      'summarize',
      '-s',
      'You summarize in {{lang}}.',
      '--var',
      'lang=English',
      '--temperature',
      '0.3',
      '-m',
      'svc-4-mini',
      'Summarize for {{who}}:\\n\\n{{input}}',
      '--description',
      'short summaries',
    ],
    ['person', '--schema', writeTemp('person.schema.json', JSON.stringify(SCHEMA)), '-o', 'top-p=0.5'],
  ];
  for (const args of saves) {
    const r = await svcInProcess(['templates', 'save', ...args], { configDir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`saved template ${args[0]}`);
  }
  return configDir;
}

/** The body of the last request that had one (a run may also fetch prices for its cost). */
const lastBody = (emu: TestEmulator) =>
  JSON.parse(
    emu
      .requests()
      .filter((r) => r.method === 'POST')
      .at(-1)!.body!,
  );

describe.concurrent('svc templates', () => {
  it('save writes YAML people can read; list, show and --json read it back', async () => {
    const configDir = await configWithTemplates();
    const yaml = readFileSync(join(configDir, 'templates', 'summarize.yaml'), 'utf8');
    expect(yaml).toContain('system: You summarize in {{lang}}.');
    expect(yaml).toContain('prompt: |-\n  Summarize for {{who}}:\n\n  {{input}}');
    const show = await svcInProcess(['templates', 'show', 'summarize'], { configDir });
    expect(show.stdout).toBe(yaml);
    const list = await svcInProcess(['templates', 'list'], { configDir });
    expect(list.stdout).toBe('person\t\t\t\t\nsummarize\tsvc-4-mini\tlang,who\tshort summaries\t\n');
    const json = await svcInProcess(['templates', 'list', '--json'], { configDir });
    const rows = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const uses = { programs: [], files: [] };
    expect(rows[0]).toEqual({ name: 'person', schema: SCHEMA, options: { 'top-p': '0.5' }, uses });
    expect(rows[1]).toMatchObject({ name: 'summarize', options: { temperature: 0.3 }, defaults: { lang: 'English' } });
    const tty = await svcInProcess(['templates', 'list'], { configDir, tty: true, columns: 80 });
    expect(tty.stdout).toMatch(/NAME +MODEL +VARIABLES +ABOUT +USES\nperson/);
  });

  it('list and show name every program a template runs and every local file it reads (issue 36, item 5)', async () => {
    const configDir = tempDir('svc-tpl-uses-');
    expect((await svcInProcess(['config', 'set', 'mcp.fs', 'npx -y server-fs /home'], { configDir })).exitCode).toBe(0);
    mkdirSync(join(configDir, 'templates'), { recursive: true });
    writeFileSync(
      join(configDir, 'templates', 'busy.yaml'),
      'prompt: hi\noptions:\n  mcp: ["sh -c \'curl x | sh\'", fs]\n  tool-cmd: get=./weather.sh\n' +
        '  attach: [~/.ssh/id_ed25519, https://example.com/a.txt]\n  image: /tmp/photo.png\n  temperature: 0.5\n',
    );
    const uses = {
      programs: ["mcp: sh -c 'curl x | sh'", 'mcp: fs = npx -y server-fs /home', 'tool-cmd: get=./weather.sh'],
      files: ['~/.ssh/id_ed25519', '/tmp/photo.png'],
    };
    const list = await svcInProcess(['templates', 'list'], { configDir });
    expect(list.stdout.split('\t').at(-1)).toBe(
      "mcp: sh -c 'curl x | sh'; mcp: fs = npx -y server-fs /home; tool-cmd: get=./weather.sh; " +
        'reads ~/.ssh/id_ed25519; reads /tmp/photo.png\n',
    );
    // on a narrow terminal the other columns give way: USES is never cut
    const narrow = await svcInProcess(['templates', 'list'], { configDir, tty: true, columns: 200 });
    expect(narrow.stdout).toContain('reads /tmp/photo.png');
    const json = await svcInProcess(['templates', 'list', '--json'], { configDir });
    expect(JSON.parse(json.stdout).uses).toEqual(uses);
    const show = await svcInProcess(['templates', 'show', 'busy'], { configDir });
    expect(show.stdout).toBe(readFileSync(join(configDir, 'templates', 'busy.yaml'), 'utf8'));
    expect(show.stderr.trim().split('\n')).toEqual([
      ...uses.programs.map((p) => `runs ${p}`),
      ...uses.files.map((f) => `reads ${f}`),
    ]);
    expect(
      JSON.parse((await svcInProcess(['templates', 'show', 'busy', '--json'], { configDir })).stdout).uses,
    ).toEqual(uses);
  });

  withEmu(
    'chat --save NAME saves the prompt and the flags as typed (as templates save), sends nothing',
    async ({ emu }) => {
      const configDir = tempDir('svc-tpl-save-');
      const schema = writeTemp('save.schema.json', JSON.stringify(SCHEMA));
      const r = await svcInProcess(
        [
          'chat',
          '--save',
          'terse',
          '-m',
          'svc-4-mini',
          '-s',
          'You are terse.',
          '--temperature',
          '0.2',
          '--stop',
          'END',
          '--stop',
          'STOP',
          '--no-stream',
          '--schema',
          schema,
          '--var',
          'lang=English',
          'Answer in {{lang}}: {{input}}',
        ],
        { emu, configDir },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/saved template terse: .*terse\.yaml/);
      expect(emu.requests()).toEqual([]);
      const shown = await svcInProcess(['templates', 'show', 'terse', '--json'], { configDir });
      expect(JSON.parse(shown.stdout)).toEqual({
        name: 'terse',
        model: 'svc-4-mini',
        system: 'You are terse.',
        prompt: 'Answer in {{lang}}: {{input}}',
        schema: SCHEMA,
        options: { temperature: 0.2, stop: ['END', 'STOP'], 'no-stream': true },
        defaults: { lang: 'English' },
        uses: { programs: [], files: [] },
      });
      // and -t uses it: the flags come back
      const used = await svcInProcess(['chat', '-t', 'terse', 'why is the sky blue?'], { emu, configDir });
      expect(used.exitCode, used.stderr).toBe(0);
      expect(lastBody(emu)).toMatchObject({
        model: 'svc-4-mini',
        temperature: 0.2,
        stop: ['END', 'STOP'],
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'Answer in English: why is the sky blue?' },
        ],
      });
      expect(lastBody(emu).stream).not.toBe(true);
      // a name taken, or --save with -t: exit 2
      const again = await svcInProcess(['chat', '--save', 'terse', 'x'], { emu, configDir });
      expect(again.exitCode).toBe(2);
      expect(again.stderr).toMatch(/--save: template terse exists; svc templates delete terse makes room/);
      const both = await svcInProcess(['chat', '--save', 'other', '-t', 'terse'], { emu, configDir });
      expect(both.exitCode).toBe(2);
      expect(both.stderr).toMatch(/--save: not together with -t/);
    },
  );

  withEmu('chat -t: system, model, options and the prompt with {{input}} from stdin reach the API', async ({ emu }) => {
    const configDir = await configWithTemplates();
    const r = await svcInProcess(['chat', '-t', 'summarize', '--var', 'lang=French', '--var', 'who=ops'], {
      configDir,
      emu,
      input: 'The quarterly report.\n',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(0);
    const body = lastBody(emu);
    expect(body.model).toBe('svc-4-mini');
    expect(body.temperature).toBe(0.3);
    expect(body.messages).toEqual([
      { role: 'system', content: 'You summarize in French.' },
      { role: 'user', content: 'Summarize for ops:\n\nThe quarterly report.' },
    ]);
    // -a -: stdin is the attachment, not the template's {{input}}
    const att = await svcInProcess(['chat', '-t', 'summarize', '--var', 'who=me', '-a', '-', 'the words'], {
      configDir,
      emu,
      input: 'attached text\n',
    });
    expect(att.exitCode, att.stderr).toBe(0);
    expect(lastBody(emu).messages[1].content).toBe(
      'Summarize for me:\n\nthe words\n\n<attachment name="stdin">\nattached text\n</attachment>',
    );
    // the command line wins over the template
    const own = await svcInProcess(
      ['chat', '-t', 'summarize', '--var', 'who=me', '-m', 'svc-4', '--temperature', '1.5', '-s', 'Be brief.', 'x'],
      { configDir, emu },
    );
    expect(own.exitCode, own.stderr).toBe(0);
    expect(lastBody(emu)).toMatchObject({
      model: 'svc-4',
      temperature: 1.5,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Summarize for me:\n\nx' },
      ],
    });
  });

  withEmu('the schema and options of a template on responses and chat; messages refuses a schema', async ({ emu }) => {
    const configDir = await configWithTemplates();
    const resp = await svcInProcess(['responses', 'create', '-t', 'person', 'invent a person', '--no-stream'], {
      configDir,
      emu,
    });
    expect(resp.exitCode, resp.stderr).toBe(0);
    const body = lastBody(emu);
    expect(body.top_p).toBe(0.5);
    expect(body.text.format).toEqual({ type: 'json_schema', name: 'response', schema: SCHEMA, strict: true });
    expect(body.input).toBe('invent a person');
    const chat = await svcInProcess(['chat', '-t', 'person', 'invent one', '--no-stream'], { configDir, emu });
    expect(chat.exitCode, chat.stderr).toBe(0);
    expect(lastBody(emu)).toMatchObject({ top_p: 0.5, response_format: { type: 'json_schema' } });
    emu.clearRequests();
    const msgs = await svcInProcess(['messages', '-t', 'person', 'x'], { configDir, emu });
    expect(msgs.exitCode).toBe(2);
    expect(msgs.stderr).toContain('-t person: svc messages takes no --schema');
    const sum = await svcInProcess(['messages', '-t', 'summarize', '--var', 'who=me', 'text'], { configDir, emu });
    expect(sum.exitCode, sum.stderr).toBe(0);
    expect(lastBody(emu)).toMatchObject({ system: 'You summarize in English.', temperature: 0.3 });
  });

  withEmu('a missing variable, a missing template, a bad option: exit 2, nothing sent', async ({ emu }) => {
    const configDir = await configWithTemplates();
    writeFileSync(join(configDir, 'templates', 'hot.yaml'), 'options:\n  temperature: 9\n');
    writeFileSync(join(configDir, 'templates', 'odd.yaml'), 'sytem: typo\n');
    writeFileSync(join(configDir, 'templates', 'seeded.yaml'), 'options:\n  seed: 7\n');
    const cases: [string[], string][] = [
      [['chat', '-t', 'summarize', 'x'], 'no value for {{who}}; give --var who=…'],
      [['chat', '-t', 'sumarize', 'x'], 'no template sumarize (did you mean summarize?)'],
      [['chat', '-t', 'hot', 'x'], '--temperature (template hot)'],
      [['chat', '-t', 'odd', 'x'], 'unknown key "sytem"'],
      [['messages', '-t', 'person', 'x'], 'takes no --schema'],
      [['responses', 'create', '-t', 'seeded', 'x'], 'option "seed" is not a flag of svc responses create'],
    ];
    for (const [args, message] of cases) {
      const r = await svcInProcess(args, { configDir, emu });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
    }
    expect(emu.requests()).toHaveLength(0);
  });

  it('save of an existing name: exit 2 naming --force; --force or --clobber replaces it (fragments too)', async () => {
    const configDir = tempDir('svc-tpl-force-');
    expect((await svcInProcess(['templates', 'save', 'greet', 'Hello {{input}}'], { configDir })).exitCode).toBe(0);
    expect((await svcInProcess(['fragments', 'save', 'style', '-'], { configDir, input: 'Be brief.' })).exitCode).toBe(
      0,
    );
    const again = await svcInProcess(['templates', 'save', 'greet', 'Hi {{input}}'], { configDir });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('NAME: template greet exists; --force replaces it');
    const fragment = await svcInProcess(['fragments', 'save', 'style', '-'], { configDir, input: 'Be long.' });
    expect(fragment.exitCode).toBe(2);
    expect(fragment.stderr).toContain('NAME: fragment style exists; --force replaces it');
    for (const [force, prompt] of [
      ['--force', 'Hey {{input}}'],
      ['--clobber', 'Yo {{input}}'],
    ]) {
      const r = await svcInProcess(['templates', 'save', 'greet', prompt!, force!], { configDir });
      expect(r.exitCode, r.stderr).toBe(0);
      expect((await svcInProcess(['templates', 'show', 'greet'], { configDir })).stdout).toContain(prompt);
    }
    const f = await svcInProcess(['fragments', 'save', 'style', '-', '--clobber'], { configDir, input: 'Be long.' });
    expect(f.exitCode, f.stderr).toBe(0);
    expect((await svcInProcess(['fragments', 'show', 'style'], { configDir })).stdout).toContain('Be long.');
  });

  it('edit runs $VISUAL/$EDITOR on the file and checks it after; delete removes it', async () => {
    const configDir = await configWithTemplates();
    const dir = tempDir('svc-editor-');
    const editor = join(dir, 'ed.sh');
    writeFileSync(editor, `#!/bin/sh\nprintf 'model: svc-4\\n' >> "$1"\n`);
    chmodSync(editor, 0o755);
    const ok = await svcInProcess(['templates', 'edit', 'person'], { configDir, env: { EDITOR: editor } });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(readFileSync(join(configDir, 'templates', 'person.yaml'), 'utf8')).toMatch(/model: svc-4\n$/);
    const breaker = join(dir, 'break.sh');
    writeFileSync(breaker, `#!/bin/sh\nprintf 'nonsense: 1\\n' >> "$1"\n`);
    chmodSync(breaker, 0o755);
    const bad = await svcInProcess(['templates', 'edit', 'person'], { configDir, env: { VISUAL: breaker } });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain('unknown key "nonsense"');
    expect(bad.stderr).toContain('the file keeps your edit');
    const del = await svcInProcess(['templates', 'delete', 'person'], { configDir });
    expect(del.exitCode).toBe(0);
    expect((await svcInProcess(['templates', 'show', 'person'], { configDir })).exitCode).toBe(5);
  });

  it('edit on a terminal: the editor gets the terminal', async () => {
    const configDir = await configWithTemplates();
    const editor = join(tempDir('svc-editor-'), 'tty.sh');
    writeFileSync(editor, `#!/bin/sh\nif [ -t 0 ] && [ -t 1 ]; then echo "description: on a tty" >> "$1"; fi\n`);
    chmodSync(editor, 0o755);
    const r = await svcOnTerminal(['templates', 'edit', 'person'], { configDir, env: { EDITOR: editor } });
    expect(r.exitCode, r.screen).toBe(0);
    expect(readFileSync(join(configDir, 'templates', 'person.yaml'), 'utf8')).toContain('description: on a tty');
  });

  it('completion offers the saved templates after -t (chat, responses, batch), to templates show (bash)', async () => {
    const configDir = await configWithTemplates();
    const complete = async (line: string) => {
      const words = line.split(' ');
      const script =
        `source ${join(ROOT, 'completions/svc.bash')}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); ` +
        `COMP_CWORD=${words.length - 1}; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const r = await execa('bash', ['-c', script], {
        env: { PATH: `${svcBinDir()}:${process.env.PATH}`, HOME: process.env.HOME, SVC_CONFIG_DIR: configDir },
        extendEnv: false,
      });
      return r.stdout.split('\n').filter(Boolean).sort();
    };
    expect(await complete('svc chat -t ')).toEqual(['person', 'summarize']);
    expect(await complete('svc responses create --template s')).toEqual(['summarize']);
    expect(await complete('svc templates show ')).toEqual(['person', 'summarize']);
    // batch: -t takes a saved template's name; its --template is the row template's text, not a name
    expect(await complete('svc batch chat rows.csv -t ')).toEqual(['person', 'summarize']);
    expect(await complete('svc batch chat rows.csv --saved-template p')).toEqual(['person']);
    expect(await complete('svc batch chat rows.csv --template s')).not.toContain('summarize');
  });
});
