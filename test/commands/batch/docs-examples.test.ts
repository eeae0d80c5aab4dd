// docs/batch.md: the recipes' command lines run as written against the emulator (the PDF recipe from its svc line:
// its pdftotext line needs poppler, which the suite does not install; the texts it would make are written here).
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { ROOT, tempDir } from '../../helpers/files.js';
import { itWithEmulator } from '../../helpers/emulator.js';
import { svcShell } from '../../helpers/subprocess.js';

const it = itWithEmulator();
const doc = readFileSync(join(ROOT, 'docs', 'batch.md'), 'utf8');
const blocks = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim().split('\n'));

describe.concurrent('docs/batch.md recipes', () => {
  it('CSV → chat → CSV with --jq', async ({ emu }) => {
    const [line] = blocks[0]!;
    expect(line).toMatch(/^svc batch chat questions\.csv .* > answers\.csv$/);
    const dir = tempDir();
    writeFileSync(join(dir, 'questions.csv'), 'id,question\nq1,"Why is the sky blue?"\nq2,What is a tide?\n');
    const r = await svcShell(line!, { emu, cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = readFileSync(join(dir, 'answers.csv'), 'utf8').trim().split('\n');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(
      /^"q1","This is the emulator's answer to ""Answer in one sentence: Why is the sky blue\?""/,
    );
    expect(rows[1]).toMatch(/^"q2",/);
    expect(r.stderr).toContain('2/2 done');
  });

  it('a folder of PDFs → embeddings (the svc line)', async ({ emu }) => {
    const [extract, line] = blocks[1]!;
    expect(extract).toContain('pdftotext');
    const dir = tempDir();
    mkdirSync(join(dir, 'texts'));
    writeFileSync(join(dir, 'texts', 'report.txt'), 'The quarterly report.');
    writeFileSync(join(dir, 'texts', 'memo.txt'), 'A memo about tides.');
    const r = await svcShell(line!, { emu, cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = readFileSync(join(dir, 'vectors.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out.map((o) => o.id)).toEqual(['memo', 'report']);
    expect(out[0].reply.data[0].embedding).toHaveLength(256);
  });

  it('lines → mp3s', async ({ emu }) => {
    const [line] = blocks[2]!;
    const dir = tempDir();
    writeFileSync(join(dir, 'lines.txt'), 'Good morning.\n\nThe train leaves at noon.\n');
    const r = await svcShell(line!, { emu, cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readdirSync(join(dir, 'mp3')).sort()).toEqual(['row-000001.mp3', 'row-000002.mp3']);
  });

  it('a saved template for every row (-t, --var)', async ({ emu }) => {
    const lines = blocks[3]!;
    expect(lines[0]).toMatch(/^svc templates save reply /);
    expect(lines[1]).toMatch(/^svc batch chat tickets\.csv -t reply /);
    const dir = tempDir();
    writeFileSync(join(dir, 'tickets.csv'), 'id,message\nt1,My parcel is late.\nt2,Thanks!\n');
    const r = await svcShell(lines.join('\n'), { emu, cwd: dir, configDir: join(dir, 'config') });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = readFileSync(join(dir, 'replies.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out.map((o) => [o.id, o.status])).toEqual([
      ['t1', 'done'],
      ['t2', 'done'],
    ]);
    expect(out[0].text).toContain('Reply to: My parcel is late.');
    const sent = emu
      .requests()
      .filter((q) => q.path === '/v1/chat/completions')
      .map((q) => JSON.parse(q.body!).messages[0].content)
      .sort();
    expect(sent).toEqual(['You answer customers of Acme in English.', 'You answer customers of Acme in English.']);
  });
});
