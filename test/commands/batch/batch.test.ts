// svc batch in-process against the emulator: output shapes and order, templates, inputs of every kind, bad input
// (exit 2, nothing sent), failures (failed.jsonl, exit 1), retries, --budget (exit 8), --dry-run, the journal and
// --resume, the call log's batch id. The SIGKILL-and-resume runs are in batch-kill.test.ts (processes).
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { itWithEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';
import { jsonLines, questionsCsv } from '../../helpers/batch-rows.js';

const it = itWithEmulator();

const posts = (emu: TestEmulator, path = '/v1/chat/completions') =>
  emu
    .requests()
    // a request refused by the rate limit is logged without its body (the emulator never read it)
    .filter((r) => r.method === 'POST' && r.path === path && r.status !== 429)
    .map((r) => JSON.parse(r.body!) as Record<string, any>);

describe.concurrent('svc batch', () => {
  it('CSV → chat with a template: one line per row in input order, the reply, usage and cost', async ({ emu }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 12);
    const r = await svcInProcess(['batch', 'chat', input, '--template', 'Answer: {{question}}', '-P', '4'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = jsonLines(r.stdout);
    expect(out.map((o) => o.row)).toEqual([...Array(12).keys()].map((i) => i + 1));
    expect(out.map((o) => o.id)).toEqual(out.map((o) => `q${o.row}`));
    for (const o of out) {
      expect(o).toMatchObject({ status: 'done', line: o.row + 1, attempts: 1 });
      expect(o.text).toContain(`What is ${o.row} + ${o.row}, exactly?`);
      expect(o.reply.object).toBe('chat.completion');
      expect(o.usage.input_tokens).toBeGreaterThan(0);
      expect(o.cost_usd).toBeGreaterThan(0);
    }
    const sent = posts(emu).map((b) => b.messages[0].content);
    expect(sent.sort()).toEqual(out.map((o) => `Answer: What is ${o.row} + ${o.row}, exactly?`).sort());
    expect(r.stderr).toMatch(/12\/12 done · 0 failed · 0 retried \(0 × 429\) · \d+ tokens · \$0\.\d{4} · /);
    // the journal beside the input: a start record, then sent and done per row
    const journal = jsonLines(readFileSync(`${input}.journal`, 'utf8'));
    expect(journal[0]).toMatchObject({ t: 'start', op: 'chat', rows: 12 });
    expect(journal.filter((j) => j.t === 'sent')).toHaveLength(12);
    expect(
      journal
        .filter((j) => j.t === 'done')
        .map((j) => j.row)
        .sort((a, b) => a - b),
    ).toHaveLength(12);
  });

  it('JSON Lines of request bodies: flags fill what a body leaves out; custom_id is the id; -o and --json', async ({
    emu,
  }) => {
    const dir = tempDir();
    const input = join(dir, 'in.jsonl');
    const bodies = [
      { custom_id: 'first', messages: [{ role: 'user', content: 'hello' }] },
      { custom_id: 'second', model: 'svc-4-mini', messages: [{ role: 'user', content: 'bye' }], temperature: 0.5 },
    ];
    writeFileSync(input, `${bodies.map((b) => JSON.stringify(b)).join('\n')}\n\n`);
    const output = join(dir, 'out.jsonl');
    const r = await svcInProcess(
      ['batch', 'chat', input, '-o', output, '-m', 'svc-4', '--temperature', '1.5', '--json', '--order', 'done'],
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const sent = posts(emu).sort((a, b) => a.messages[0].content.localeCompare(b.messages[0].content));
    expect(sent[0]).toMatchObject({ model: 'svc-4-mini', temperature: 0.5 });
    expect(sent[1]).toMatchObject({ model: 'svc-4', temperature: 1.5 });
    expect(sent.every((b) => !('custom_id' in b))).toBe(true);
    const out = jsonLines(readFileSync(output, 'utf8'));
    expect(out.map((o) => o.id).sort()).toEqual(['first', 'second']);
    // the summary as JSON on stdout, since the rows went to the file
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ rows: 2, done: 2, failed: 0, exit_code: 0, journal: `${output}.journal` });
    expect(summary.cost_usd).toBeGreaterThan(0);
  });

  it('a request-body template (@FILE): placeholders in strings, a placeholder alone keeps a value as it is', async ({
    emu,
  }) => {
    const dir = tempDir();
    const input = join(dir, 'rows.jsonl');
    writeFileSync(input, '{"q":"red","n":7}\n{"q":"blue","n":9}\n');
    const tpl = join(dir, 'body.json');
    writeFileSync(tpl, '{"messages":[{"role":"user","content":"colour {{q}}"}],"max_completion_tokens":"{{n}}"}');
    const r = await svcInProcess(['batch', 'chat', input, '--template', `@${tpl}`], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const sent = posts(emu).sort((a, b) => a.max_completion_tokens - b.max_completion_tokens);
    expect(sent.map((b) => [b.messages[0].content, b.max_completion_tokens])).toEqual([
      ['colour red', 7],
      ['colour blue', 9],
    ]);
  });

  it('bad input: every malformed JSON line named with its line number, exit 2, nothing sent', async ({ emu }) => {
    const dir = tempDir();
    const input = join(dir, 'bad.jsonl');
    writeFileSync(input, '{"messages":[]}\n{"messages": [\n\n[1,2]\n{"model":"x"}\n{"messages":[]}\nnot json\n');
    const r = await svcInProcess(['batch', 'chat', input], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('4 malformed rows; nothing was sent');
    expect(r.stderr).toMatch(new RegExp(`${input}:2: not valid JSON`));
    expect(r.stderr).toContain(`${input}:4: not a JSON object`);
    expect(r.stderr).toContain(`${input}:5: the request body has no messages`);
    expect(r.stderr).toMatch(new RegExp(`${input}:7: not valid JSON`));
    expect(r.stdout).toBe('');
    expect(emu.requests()).toEqual([]);
    expect(existsSync(`${input}.journal`)).toBe(false);
  });

  it("bad input: a CSV without a template's column, a ragged row, an unclosed quote, an empty file", async ({
    emu,
  }) => {
    const dir = tempDir();
    const missing = join(dir, 'missing.csv');
    writeFileSync(missing, 'id,question\n1,hi\n');
    let r = await svcInProcess(['batch', 'chat', missing, '--template', '{{question}} in {{language}}'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      `${missing}:1: no column "language" (the template uses it); the columns are id, question`,
    );
    const ragged = join(dir, 'ragged.csv');
    writeFileSync(ragged, 'prompt,x\na,b\nc\n"d\n');
    r = await svcInProcess(['batch', 'chat', ragged], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`${ragged}:3: 1 fields where the header has 2`);
    expect(r.stderr).toContain(`${ragged}:4: a quoted field is never closed`);
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    r = await svcInProcess(['batch', 'chat', empty], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`${empty}: no rows to send (empty)`);
    const headerOnly = join(dir, 'header.csv');
    writeFileSync(headerOnly, 'prompt\n');
    r = await svcInProcess(['batch', 'chat', headerOnly], { emu });
    expect(r.exitCode).toBe(2);
    expect(emu.requests()).toEqual([]);
  });

  it('bad flags: one that does not apply to the operation, -P out of range, a binary result without a folder', async ({
    emu,
  }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 2);
    let r = await svcInProcess(['batch', 'chat', input, '--template', '{{question}}', '--voice', 'ara'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--voice');
    expect(r.stderr).toContain('only with tts');
    r = await svcInProcess(['batch', 'chat', input, '-P', '0'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/-P|--concurrency/);
    r = await svcInProcess(['batch', 'tts', input, '--template', '{{question}}'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--output-dir');
    r = await svcInProcess(['batch', 'documents', input, '--template', '{{question}}'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--collection');
    const audio = join(dir, 'audio.jsonl');
    writeFileSync(audio, `${JSON.stringify({ file: join(dir, 'missing.wav') })}\n`);
    r = await svcInProcess(['batch', 'stt', audio], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`${audio}:1: the audio`);
    r = await svcInProcess(['batch', 'chat', input, '--journal', join(dir, 'no', 'such', 'j')], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--journal');
    r = await svcInProcess(['batch', 'videos', input], { emu });
    expect(r.exitCode).toBe(2);
    r = await svcInProcess(['batch', 'chat', join(dir, 'nope.csv')], { emu });
    expect(r.exitCode).toBe(2);
    expect(emu.requests()).toEqual([]);
  });

  it('rows that keep failing are recorded failed, the run goes on: exit 1 and failed.jsonl re-runs them', async ({
    emu,
  }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 6);
    emu.faults.add({ kind: 'status', status: 400, times: 2, path: '/v1/chat' });
    const r = await svcInProcess(['batch', 'chat', input, '--template', '{{question}}', '-P', '1'], { emu });
    expect(r.exitCode, r.stderr).toBe(1);
    const out = jsonLines(r.stdout);
    expect(out.map((o) => [o.row, o.status])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'done'],
      [4, 'done'],
      [5, 'done'],
      [6, 'done'],
    ]);
    expect(out[0]!.error).toMatchObject({ status: 400 });
    const failedPath = join(dir, 'questions.csv.failed.jsonl');
    expect(r.stderr).toContain(`failed rows: ${failedPath}`);
    const failed = jsonLines(readFileSync(failedPath, 'utf8'));
    expect(failed.map((f) => [f.custom_id, f.messages[0].content])).toEqual([
      ['q1', 'What is 1 + 1, exactly?'],
      ['q2', 'What is 2 + 2, exactly?'],
    ]);
    const again = await svcInProcess(['batch', 'chat', failedPath], { emu });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(jsonLines(again.stdout).map((o) => o.id)).toEqual(['q1', 'q2']);
  });

  it('5xx replies are retried with backoff; --max-failures stops the run', async ({ emu }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 3);
    emu.faults.add({ kind: 'status', status: 503, times: 2, path: '/v1/chat' });
    const r = await svcInProcess(['batch', 'chat', input, '--template', '{{question}}', '-P', '1'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(jsonLines(r.stdout)[0]).toMatchObject({ row: 1, status: 'done', attempts: 3 });
    expect(r.stderr).toContain('3/3 done · 0 failed · 2 retried');
    const other = questionsCsv(tempDir(), 5);
    emu.faults.add({ kind: 'status', status: 400, times: 5, path: '/v1/chat' });
    const s = await svcInProcess(
      ['batch', 'chat', other, '--template', '{{question}}', '-P', '1', '--max-failures', '2'],
      {
        emu,
      },
    );
    expect(s.exitCode).toBe(1);
    expect(jsonLines(s.stdout)).toHaveLength(2);
    expect(s.stderr).toContain(
      'stopped at --max-failures: 3 row(s) not sent; resume with the same command and --resume',
    );
  });

  it('429s: the window halves and everyone waits for Retry-After; every row done, few 429s', async ({ emu }) => {
    emu.core.rateLimits.limit = { rpm: 6 };
    emu.core.rateLimits.windowMs = 1000;
    const dir = tempDir();
    const input = questionsCsv(dir, 20);
    const r = await svcInProcess(['batch', 'chat', input, '--template', '{{question}}', '-P', '8', '--json'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(jsonLines(r.stdout).map((o) => o.row)).toEqual([...Array(20).keys()].map((i) => i + 1));
    const summary = JSON.parse(r.stderr.trim().split('\n').pop()!);
    const refused = emu.requests().filter((q) => q.status === 429).length;
    expect(summary.throttled).toBe(refused);
    // the rate-limit headers keep the pacer under the limit: at most the first window's excess is refused
    expect(refused).toBeLessThanOrEqual(8);
    expect(posts(emu)).toHaveLength(20);
  });

  it('--budget stops sending before the spend would pass it (exit 8); --resume with more goes on', async ({ emu }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 10);
    // each row's worst case (its input bytes and 16 output tokens at svc-4's price) is reserved before it goes
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
    const first = jsonLines(readFileSync(join(dir, 'out.jsonl'), 'utf8'));
    const spent = first.reduce((s, o) => s + o.cost_usd, 0);
    expect(spent).toBeLessThanOrEqual(0.0016);
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThan(10);
    expect(r.stderr).toContain('stopped at the budget');
    expect(r.stderr).toContain('--resume');
    emu.clearRequests();
    const again = await svcInProcess([...args, '--resume', '--budget', '1'], { emu });
    expect(again.exitCode, r.stderr + again.stderr + readFileSync(join(dir, 'out.jsonl.journal'), 'utf8')).toBe(0);
    expect(posts(emu)).toHaveLength(10 - first.length);
    const all = jsonLines(readFileSync(join(dir, 'out.jsonl'), 'utf8'));
    expect(all.map((o) => o.row)).toEqual([...Array(10).keys()].map((i) => i + 1));
  });

  it('--dry-run: rows, a local token estimate and dollars; no row is sent', async ({ emu }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 5);
    const r = await svcInProcess(
      ['batch', 'chat', input, '--template', '{{question}}', '--max-tokens', '100', '--dry-run', '--json'],
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const est = JSON.parse(r.stdout);
    expect(est).toMatchObject({ rows: 5, rows_to_send: 5, output_tokens_at_most: 500 });
    expect(est.input_tokens_estimate).toBe(Math.ceil((5 * 'What is 1 + 1, exactly?'.length) / 4));
    expect(est.cost_usd_estimate).toBeGreaterThan(0);
    expect(posts(emu)).toEqual([]);
    expect(existsSync(`${input}.journal`)).toBe(false);
  });

  it('--resume: rows done are skipped, a torn last line is tolerated, the output has each row once', async ({
    emu,
  }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 8);
    const output = join(dir, 'out.jsonl');
    const args = ['batch', 'chat', input, '--template', '{{question}}', '-o', output, '-P', '2'];
    expect((await svcInProcess(args, { emu })).exitCode).toBe(0);
    // the journal as a crash after row 3 would leave it: rows 1-3 done, a record torn in the middle
    const journal = `${output}.journal`;
    const records = readFileSync(journal, 'utf8').trim().split('\n');
    const keep: string[] = [];
    for (const line of records) {
      const rec = JSON.parse(line);
      if (rec.t === 'start' || rec.row <= 3) keep.push(line);
    }
    writeFileSync(journal, `${keep.join('\n')}\n{"t":"done","row":4,"out":{"row`);
    const again = await svcInProcess(args, { emu });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('--resume');
    emu.clearRequests();
    const resumed = await svcInProcess([...args, '--resume'], { emu });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(
      posts(emu)
        .map((b) => b.messages[0].content)
        .sort(),
    ).toEqual([4, 5, 6, 7, 8].map((i) => `What is ${i} + ${i}, exactly?`));
    const out = jsonLines(readFileSync(output, 'utf8'));
    expect(out.map((o) => o.row)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // another input under the same journal is refused
    writeFileSync(input, 'id,question\nx,changed\n');
    const changed = await svcInProcess([...args, '--resume'], { emu });
    expect(changed.exitCode).toBe(2);
    expect(changed.stderr).toContain('the input has changed since');
  });

  it('a folder → embed: one row per file, named by the file; stdin rows; tokenize', async ({ emu }) => {
    const dir = tempDir();
    const docs = join(dir, 'docs');
    mkdirSync(docs);
    writeFileSync(join(docs, 'b.txt'), 'the second document');
    writeFileSync(join(docs, 'a.txt'), 'the first document');
    writeFileSync(join(docs, '.hidden'), 'not a row');
    const r = await svcInProcess(['batch', 'embed', docs], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = jsonLines(r.stdout);
    expect(out.map((o) => o.id)).toEqual(['a', 'b']);
    expect(out[0]!.reply.data[0].embedding).toHaveLength(256);
    expect(
      posts(emu, '/v1/embeddings')
        .map((b) => b.input[0])
        .sort(),
    ).toEqual(['the first document', 'the second document']);
    const s = await svcInProcess(['batch', 'tokenize', '-', '--journal', join(dir, 'stdin.journal')], {
      emu,
      input: 'hello world\nthree more words\n',
    });
    expect(s.exitCode, s.stderr).toBe(0);
    expect(jsonLines(s.stdout).map((o) => [o.row, o.line])).toEqual([
      [1, 1],
      [2, 2],
    ]);
    for (const o of jsonLines(s.stdout)) expect(o.text).toBe(String(o.reply.token_ids.length));
    expect(
      posts(emu, '/v1/tokenize-text')
        .map((b) => b.text)
        .sort(),
    ).toEqual(['hello world', 'three more words']);
  });

  it('lines → mp3s: tts saves each row into --output-dir, named from the row', async ({ emu }) => {
    const dir = tempDir();
    const input = join(dir, 'lines.csv');
    writeFileSync(input, 'id,text\nhello,Hello there\nbye,Goodbye now\n');
    const mp3 = join(dir, 'mp3');
    const r = await svcInProcess(['batch', 'tts', input, '--output-dir', mp3, '--voice', 'ara'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readdirSync(mp3).sort()).toEqual(['bye.mp3', 'hello.mp3']);
    const head = readFileSync(join(mp3, 'hello.mp3')).subarray(0, 3);
    expect(head[0] === 0x49 || head[0] === 0xff).toBe(true); // ID3 or an MPEG frame
    const out = jsonLines(r.stdout);
    expect(out[0]!.files).toEqual([join(mp3, 'hello.mp3')]);
    expect(JSON.stringify(out)).not.toContain('"audio"');
  });

  it('every row is in the call log with the batch id', async ({ emu }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 3);
    const configDir = tempDir();
    const r = await svcInProcess(['batch', 'chat', input, '--template', '{{question}}', '--json'], { emu, configDir });
    expect(r.exitCode).toBe(0);
    const batch = JSON.parse(r.stderr.trim().split('\n').pop()!).batch as string;
    const logs = join(configDir, 'data', 'logs');
    const records = readdirSync(logs).flatMap((f) => jsonLines(readFileSync(join(logs, f), 'utf8')));
    const rows = records.filter((x) => x.path === '/v1/chat/completions');
    expect(rows).toHaveLength(3);
    for (const x of rows) expect(x).toMatchObject({ batch, command: 'batch', status: 200 });
  });

  it('a key the API refuses stops the run (exit 4); a server that is down stops it after a run of failures', async ({
    emu,
  }) => {
    const dir = tempDir();
    const input = questionsCsv(dir, 40);
    const r = await svcInProcess(['batch', 'chat', input, '--template', '{{question}}', '-P', '2'], {
      emu,
      key: 'svc-not-a-key-of-this-emulator-000000',
    });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/stopped: the API refused the key \(.*HTTP 4\d\d/);
    expect(jsonLines(r.stdout).length).toBeLessThanOrEqual(2);
    const down = await svcInProcess(
      [
        'batch',
        'chat',
        input,
        '--template',
        '{{question}}',
        '-P',
        '2',
        '--max-retries',
        '0',
        '--journal',
        `${input}.j2`,
      ],
      { emu, env: { SVC_BASE_URL: 'http://127.0.0.1:9' } },
    );
    expect(down.exitCode).toBe(1);
    expect(down.stderr).toContain('stopped: rows failed one after another, the last with');
    const failed = jsonLines(down.stdout);
    expect(failed.length).toBeGreaterThanOrEqual(10);
    expect(failed.length).toBeLessThanOrEqual(12);
    expect(down.stderr).toMatch(/\d+ row\(s\) not sent; resume with the same command and --resume/);
  });
});
