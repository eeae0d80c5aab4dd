// svc batch (issue 37, 36): what it writes never replaces what it reads or a file it did not make (-o onto the
// input, --output-dir's files, a planted symlink at the journal), --jq reaches -o, stdin is read as a file is,
// --input-format, the hints say what works, --dry-run estimates the answers too and always runs.
import { chmodSync, existsSync, linkSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { itWithEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcProcess, svcShell } from '../../helpers/subprocess.js';
import { tempDir } from '../../helpers/files.js';
import { needTools } from '../../helpers/tools.js';
import { jsonLines, questionsCsv } from '../../helpers/batch-rows.js';

const it = itWithEmulator();

const posts = (emu: TestEmulator, path = '/v1/chat/completions') =>
  emu.requests().filter((r) => r.method === 'POST' && r.path === path && r.status !== 429);

describe.concurrent('svc batch: what it reads and writes', () => {
  it('-o (or --journal) naming the input, by path, hard link or symlink: exit 2, nothing sent, input kept', async ({
    emu,
  }) => {
    const dir = tempDir();
    const input = join(dir, 'rows.jsonl');
    const rows = `${JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] })}\n`;
    writeFileSync(input, rows);
    linkSync(input, join(dir, 'hard.jsonl'));
    symlinkSync(input, join(dir, 'soft.jsonl'));
    for (const target of [input, join(dir, 'hard.jsonl'), join(dir, 'soft.jsonl')]) {
      const r = await svcInProcess(['batch', 'chat', input, '-o', target], { emu });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(`-o: ${target} is the input (INPUT ${input})`);
    }
    const j = await svcInProcess(['batch', 'chat', input, '--journal', input], { emu });
    expect(j.exitCode).toBe(2);
    expect(j.stderr).toContain('--journal:');
    expect(readFileSync(input, 'utf8')).toBe(rows);
    expect(emu.requests()).toEqual([]);
  });

  it('--output-dir: a file a row would be saved as is never replaced without --force (--clobber)', async ({ emu }) => {
    const dir = tempDir();
    const input = join(dir, 'lines.csv');
    writeFileSync(input, 'id,text\nx1,Hello there\nx2,Goodbye now\n');
    const out = join(dir, 'mp3');
    const args = ['batch', 'tts', input, '--output-dir', out, '-o', join(dir, 'out.jsonl')];
    expect((await svcInProcess(args, { emu })).exitCode).toBe(0);
    const first = readFileSync(join(out, 'x1.mp3'));
    emu.clearRequests();
    const again = await svcInProcess([...args, '--journal', join(dir, 'j2')], { emu });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain(`${join(out, 'x1.mp3')}, ${join(out, 'x2.mp3')}`);
    expect(again.stderr).toContain('nothing was sent: give --force to replace them');
    expect(emu.requests()).toEqual([]);
    expect(readFileSync(join(out, 'x1.mp3'))).toEqual(first);
    for (const force of ['--force', '--clobber']) {
      const r = await svcInProcess([...args, '--journal', join(dir, `j${force}`), force], { emu });
      expect(r.exitCode, r.stderr).toBe(0);
    }
    expect(readdirSync(out).sort()).toEqual(['x1.mp3', 'x2.mp3']);
  });

  it('-o onto an existing file: a new run refuses it (exit 2) unless --force; --resume continues it', async ({
    emu,
  }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 2);
    const output = join(dir, 'answers.jsonl');
    writeFileSync(output, 'precious\n');
    const args = ['batch', 'chat', input, '--template', '{{question}}', '-o', output];
    const r = await svcInProcess(args, { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`-o: ${output} already exists; --force (or --clobber) replaces it`);
    expect(readFileSync(output, 'utf8')).toBe('precious\n');
    expect(emu.requests()).toEqual([]);
    expect((await svcInProcess([...args, '--force'], { emu })).exitCode).toBe(0);
    const resumed = await svcInProcess([...args, '--resume'], { emu });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(readFileSync(output, 'utf8').trim().split('\n')).toHaveLength(2);
    expect(posts(emu)).toHaveLength(2);
  });

  it('--jq with -o: the filter shapes what is written', async ({ emu }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 3);
    const output = join(dir, 'answers.csv');
    const r = await svcInProcess(
      ['batch', 'chat', input, '--template', '{{question}}', '--jq', '[.id, .status] | @csv', '-o', output],
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(output, 'utf8')).toBe('"q1","done"\n"q2","done"\n"q3","done"\n');
  });

  it('stdin is told as a file is: a sentence with a comma is a line of text; --input-format says it', async ({
    emu,
  }) => {
    const dir = tempDir();
    const prompts = 'Hello, how are you?\nWhat is the time\nTell me, briefly, a joke\n';
    const r = await svcInProcess(['batch', 'chat', '-'], { emu, input: prompts, cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(jsonLines(r.stdout).map((o) => o.status)).toEqual(['done', 'done', 'done']);
    expect(posts(emu).map((p) => JSON.parse(p.body!).messages[0].content)).toEqual(
      expect.arrayContaining(['Hello, how are you?', 'What is the time', 'Tell me, briefly, a joke']),
    );
    // a CSV by its header, and the same bytes as text when said so
    const table = 'prompt,lang\nSay hi,en\n';
    const asCsv = await svcInProcess(['batch', 'chat', '-', '--template', '{{prompt}} in {{lang}}'], {
      emu,
      input: table,
      cwd: dir,
    });
    expect(asCsv.exitCode, asCsv.stderr).toBe(0);
    expect(jsonLines(asCsv.stdout)).toHaveLength(1);
    const asText = await svcInProcess(['batch', 'tokenize', '-', '--input-format', 'text'], {
      emu,
      input: table,
      cwd: dir,
    });
    expect(asText.exitCode, asText.stderr).toBe(0);
    expect(jsonLines(asText.stdout)).toHaveLength(2);
    // a header without the column: the error says how it was read and how to read it otherwise
    const bad = await svcInProcess(['batch', 'chat', '-'], { emu, input: 'question,id\nx,1\n', cwd: dir });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('read as CSV from its first line: --input-format text reads a row per line');
    const wrong = await svcInProcess(['batch', 'chat', '-', '--input-format', 'xml'], { emu, input: 'x', cwd: dir });
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toContain('--input-format');
    // no journal left in the folder: stdin's are in the state folder, one per content
    expect(readdirSync(dir)).toEqual([]);
  });

  it('the budget hint names a higher --budget that the resume then finishes under', async ({ emu }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 10);
    // each row reserves its worst case: its input and 16 output tokens
    const args = [
      'batch',
      'chat',
      input,
      '--template',
      '{{question}}',
      '--max-tokens',
      '16',
      '-o',
      join(dir, 'out.jsonl'),
    ];
    const r = await svcInProcess([...args, '--budget', '0.0016'], { emu });
    expect(r.exitCode, r.stderr).toBe(8);
    const hint = /run the same command with --resume and --budget (\d+\.\d\d) \(the spend counts across resumes\)/.exec(
      r.stderr,
    );
    expect(hint, r.stderr).not.toBeNull();
    const again = await svcInProcess([...args, '--resume', '--budget', hint![1]!], { emu });
    expect(again.exitCode, again.stderr).toBe(0);
  });

  it('the re-run hint for failed rows is a command that runs as printed', async ({ emu }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 4);
    emu.faults.add({ kind: 'status', status: 400, times: 2, path: '/v1/chat' });
    const output = join(dir, 'out.jsonl');
    const r = await svcInProcess(['batch', 'chat', input, '--template', '{{question}}', '-P', '1', '-o', output], {
      emu,
    });
    expect(r.exitCode).toBe(1);
    const failed = `${output}.failed.jsonl`;
    const command = `svc batch chat ${failed} -o ${join(dir, 'out.retry.jsonl')}`;
    expect(r.stderr).toContain(`(re-run them: ${command})`);
    const rerun = await svcShell(command, { emu });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(jsonLines(readFileSync(join(dir, 'out.retry.jsonl'), 'utf8')).map((o) => o.id)).toEqual(['q1', 'q2']);
  });

  it('--dry-run estimates the answers too, stating how; it runs whatever journal is there', async ({ emu }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 4);
    const args = ['batch', 'chat', input, '--template', '{{question}}'];
    const dry = await svcInProcess([...args, '--dry-run'], { emu });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/~\d+ input tokens .*~\$\d/);
    expect(dry.stdout).toMatch(/~2000 output tokens \(a typical answer of 500 tokens a row: an assumption;/);
    expect(dry.stdout).toMatch(/~\$\d+\.\d{4} in all/);
    const json = JSON.parse((await svcInProcess([...args, '--dry-run', '--json'], { emu })).stdout);
    expect(json).toMatchObject({ output_tokens_estimate: 2000, output_estimate: 'typical: 500 tokens a row' });
    expect(json.cost_usd_estimate).toBeCloseTo(json.cost_usd_input_estimate + json.cost_usd_output_estimate, 6);
    expect(json.cost_usd_output_estimate).toBeGreaterThan(json.cost_usd_input_estimate);
    expect(posts(emu)).toEqual([]);
    // after a finished run the journal is there: the dry run still runs
    expect((await svcInProcess(args, { emu })).exitCode).toBe(0);
    const after = await svcInProcess([...args, '--dry-run', '--max-tokens', '10', '--json'], { emu });
    expect(after.exitCode, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout)).toMatchObject({ rows_to_send: 4, output_tokens_estimate: 40 });
  });

  it('a symlink planted at the journal is never followed: exit 2, nothing sent, its target not made', async ({
    emu,
  }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 2);
    const output = join(dir, 'out.jsonl');
    const target = join(dir, 'elsewhere');
    symlinkSync(target, `${output}.journal`);
    const r = await svcInProcess(['batch', 'chat', input, '--template', '{{question}}', '-o', output], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('is a symbolic link, which svc neither reads nor writes through');
    expect(existsSync(target)).toBe(false);
    expect(existsSync(output)).toBe(false);
    expect(emu.requests()).toEqual([]);
    // to a file that is there: not read, not appended to
    writeFileSync(target, 'mine\n');
    const again = await svcInProcess(['batch', 'chat', input, '--template', '{{question}}', '-o', output], { emu });
    expect(again.exitCode).toBe(2);
    expect(readFileSync(target, 'utf8')).toBe('mine\n');
  });

  it("-P 16 as a process: stderr holds svc's own lines only (no MaxListenersExceededWarning of Node)", async ({
    emu,
  }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 64);
    const r = await svcProcess(['batch', 'chat', input, '--template', '{{question}}', '-P', '16'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(jsonLines(r.stdout)).toHaveLength(64);
    expect(r.stderr).not.toMatch(/Warning|MaxListeners|node --trace/);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^64\/64 done · 0 failed/)]);
  });

  it('an input in a folder svc cannot write: the journal goes to the state folder, named; a resume finds it', async ({
    emu,
  }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 2);
    chmodSync(dir, 0o555);
    // root writes anywhere: the run is then made as nobody (setpriv), with a config folder nobody may write
    const configDir = tempDir();
    chmodSync(configDir, 0o777);
    if (process.getuid?.() === 0) needTools('setpriv');
    const asUser =
      process.getuid?.() === 0
        ? 'setpriv --reuid=65534 --regid=65534 --clear-groups bash -c "$(declare -f svc); svc \\"\\$@\\"" svc'
        : 'svc';
    const run = (more: string) =>
      svcShell(`${asUser} batch chat ${input} --template '{{question}}' ${more}`, { emu, configDir, cwd: dir });
    const r = await run('');
    expect(r.exitCode, r.stderr).toBe(0);
    const journal = /^journal: (\S+) \(.* cannot be written; --journal FILE puts it elsewhere\)$/m.exec(r.stderr)?.[1];
    expect(journal, r.stderr).toBeDefined();
    expect(journal!.startsWith(join(configDir, 'data', 'batch'))).toBe(true);
    expect(readFileSync(journal!, 'utf8')).toContain('"t":"start"');
    expect(readdirSync(dir)).toEqual(['questions.csv']);
    // the same command again finds that journal: refused without --resume, and --resume has nothing left to send
    expect((await run('')).stderr).toContain(`${journal}: the journal of an earlier run is there`);
    const resumed = await run('--resume');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('every row is done already');
  });
});
