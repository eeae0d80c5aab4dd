// svc batch over the operations not covered in batch.test.ts (responses, messages, images, stt, documents), the
// status line at a terminal, and the call log's daily budget.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestEmulator, itWithEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';
import { jsonLines } from '../../helpers/batch-rows.js';

const withEmu = itWithEmulator();

function prompts(dir: string): string {
  const path = join(dir, 'prompts.csv');
  writeFileSync(path, 'id,prompt\nfox,a red fox\nowl,"an owl, at night"\n');
  return path;
}

describe.concurrent('svc batch operations', () => {
  withEmu('responses and messages: the text of each answer, usage and cost', async ({ emu }) => {
    const input = prompts(tempDir());
    for (const op of ['responses', 'messages']) {
      const r = await svcInProcess(
        ['batch', op, input, '--journal', `${input}.${op}.journal`, '--system', 'Be brief'],
        {
          emu,
        },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      const out = jsonLines(r.stdout);
      expect(out.map((o) => o.id)).toEqual(['fox', 'owl']);
      for (const o of out) {
        expect(o.text).toContain(o.id === 'fox' ? 'a red fox' : 'an owl, at night');
        expect(o.usage.input_tokens).toBeGreaterThan(0);
      }
    }
    const sent = emu.requests().filter((q) => q.method === 'POST');
    const responses = sent.filter((q) => q.path === '/v1/responses').map((q) => JSON.parse(q.body!));
    expect(responses.map((b) => [b.input, b.instructions]).sort()).toEqual([
      ['a red fox', 'Be brief'],
      ['an owl, at night', 'Be brief'],
    ]);
    const messages = sent.filter((q) => q.path === '/v1/messages').map((q) => JSON.parse(q.body!));
    for (const b of messages) expect(b).toMatchObject({ system: 'Be brief', max_tokens: 1024 });
  });

  withEmu('images: each row saved into --output-dir, the base64 left out of the output', async ({ emu }) => {
    const dir = tempDir();
    const input = prompts(dir);
    const img = join(dir, 'img');
    const r = await svcInProcess(['batch', 'images', input, '--output-dir', img], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const files = readdirSync(img).sort();
    expect(files.map((f) => f.replace(/\.\w+$/, ''))).toEqual(['fox', 'owl']);
    expect(r.stdout).not.toContain('b64_json');
    expect(jsonLines(r.stdout)[0]!.files).toEqual([join(img, files[0]!)]);
    // each row priced at the catalogue's image_price (cents per image)
    const catalogue = await svcInProcess(['api', '/v1/image-generation-models'], { emu });
    const { models } = JSON.parse(catalogue.stdout) as { models: { image_price: number }[] };
    const perImage = models[0]!.image_price / 100;
    expect(perImage).toBeGreaterThan(0);
    expect(jsonLines(r.stdout).map((o) => o.cost_usd)).toEqual([perImage, perImage]);
  });

  withEmu('stt: a folder of audio files, one transcript a file', async ({ emu }) => {
    const dir = tempDir();
    const clips = join(dir, 'clips');
    const lines = join(dir, 'lines.csv');
    writeFileSync(lines, 'id,text\nmorning,Good morning\nnoon,The train leaves at noon\n');
    const made = await svcInProcess(['batch', 'tts', lines, '--output-dir', clips, '--codec', 'wav'], { emu });
    expect(made.exitCode, made.stderr).toBe(0);
    const r = await svcInProcess(['batch', 'stt', clips, '--language', 'en'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = jsonLines(r.stdout);
    expect(out.map((o) => o.id)).toEqual(['morning', 'noon']);
    for (const o of out) expect(typeof o.text).toBe('string');
    expect(emu.requests().filter((q) => q.path === '/v1/stt')).toHaveLength(2);
  });

  it('documents: each query searched in the collection', async () => {
    const docs = tempDir();
    mkdirSync(join(docs, 'handbook'));
    writeFileSync(join(docs, 'handbook', 'refunds.md'), '# Refunds\n\nA refund is paid within 14 days.\n');
    const emu = await startTestEmulator({ collections: { handbook: join(docs, 'handbook') } });
    try {
      const input = join(docs, 'queries.txt');
      writeFileSync(input, 'refund\nhow many days\n');
      const r = await svcInProcess(['batch', 'documents', input, '--collection', 'handbook', '--limit', '2'], { emu });
      expect(r.exitCode, r.stderr).toBe(0);
      const out = jsonLines(r.stdout);
      expect(out).toHaveLength(2);
      expect(out[0]!.reply.matches[0].chunk_content).toContain('refund');
      const bodies = emu.requests().map((q) => JSON.parse(q.body!));
      for (const b of bodies) expect(b).toMatchObject({ source: { collection_ids: ['handbook'] }, limit: 2 });
    } finally {
      await emu.close();
    }
  });

  withEmu('at a terminal: a status line of rows, rows/s, ETA, dollars and retries', async ({ emu }) => {
    const input = prompts(tempDir());
    const r = await svcInProcess(['batch', 'chat', input, '-P', '1'], { emu, tty: true, columns: 120 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\r1\/2 50% · [\d.]+ rows\/s · ETA \d+:\d\d · \$0\.\d{4} · 0 retried/);
    // the line is erased before the summary
    expect(r.stderr).toMatch(/\r\u001b\[K2\/2 done/);
  });

  withEmu("the call log's daily budget stops the run (exit 8)", async ({ emu }) => {
    const dir = tempDir();
    const configDir = tempDir();
    const set = await svcInProcess(['config', 'set', 'budget.daily', '0.0012'], { configDir });
    expect(set.exitCode, set.stderr).toBe(0);
    const input = join(dir, 'rows.txt');
    writeFileSync(input, Array.from({ length: 10 }, (_, i) => `question ${i}`).join('\n'));
    const r = await svcInProcess(['batch', 'chat', input, '--max-tokens', '16', '-o', join(dir, 'out.jsonl')], {
      emu,
      configDir,
    });
    expect(r.exitCode, r.stderr).toBe(8);
    expect(r.stderr).toContain('stopped at the budget');
    const out = jsonLines(readFileSync(join(dir, 'out.jsonl'), 'utf8'));
    expect(out.length).toBeGreaterThan(0);
    expect(out.reduce((s, o) => s + o.cost_usd, 0)).toBeLessThanOrEqual(0.0012);
  });

  withEmu('--budget with an operation whose replies carry no usage is refused, nothing sent', async ({ emu }) => {
    const dir = tempDir();
    const r = await svcInProcess(['batch', 'images', prompts(dir), '--output-dir', join(dir, 'i'), '--budget', '1'], {
      emu,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--budget: images replies carry no usage');
    expect(emu.requests()).toEqual([]);
  });

  withEmu('--schema and the sampling flags reach every row; ids that repeat never share a file', async ({ emu }) => {
    const dir = tempDir();
    const schema = join(dir, 'person.schema.json');
    writeFileSync(schema, JSON.stringify({ type: 'object', properties: { name: { type: 'string' } } }));
    const input = prompts(dir);
    const r = await svcInProcess(
      ['batch', 'chat', input, '--schema', schema, '--temperature', '0.2', '--top-p', '0.9', '--max-tokens', '50'],
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const bodies = emu.requests().map((q) => JSON.parse(q.body!));
    expect(bodies).toHaveLength(2);
    for (const b of bodies)
      expect(b).toMatchObject({
        temperature: 0.2,
        top_p: 0.9,
        max_completion_tokens: 50,
        response_format: { type: 'json_schema', json_schema: { name: 'response', strict: true } },
      });
    const twice = join(dir, 'twice.csv');
    writeFileSync(twice, 'id,text\nsame,one\nsame,two\n');
    const t = await svcInProcess(['batch', 'tts', twice, '--output-dir', join(dir, 'a')], { emu });
    expect(t.exitCode, t.stderr).toBe(0);
    expect(readdirSync(join(dir, 'a')).sort()).toEqual(['same-row-2.mp3', 'same.mp3']);
  });
});
