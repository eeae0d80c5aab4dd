// The parts of src/batch on their own: the pacer's AIMD and rate-limit reading, the journal's torn lines, the CSV
// reader's quoting, templates.
import { appendFileSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Pacer, parseResetHeader } from '../../src/batch/pacer.js';
import { JournalWriter, readJournal, readOutAt } from '../../src/batch/journal.js';
import { delimitedRows, jsonlRows, type Row } from '../../src/batch/input.js';
import { parseTemplate, placeholders, renderBody, renderText } from '../../src/batch/template.js';
import { tempDir } from '../helpers/files.js';

describe('Pacer', () => {
  it('halves the window once per round of 429s, pauses for Retry-After, grows back one row a window', () => {
    let now = 1000;
    const p = new Pacer({ ceiling: 8, now: () => now });
    const seqs = Array.from({ length: 8 }, () => p.started());
    expect(p.waitMs()).toBe(Number.POSITIVE_INFINITY); // 8 in flight: the window is full
    p.on429(seqs[5]!, 2000);
    p.on429(seqs[6]!, 2000);
    expect(p.window).toBe(4); // the second 429 of the same round does not halve again
    expect(p.waitMs()).toBe(2000);
    now += 2000;
    for (let i = 0; i < 6; i++) p.answered(undefined);
    expect(p.inFlight).toBe(0);
    expect(p.window).toBeGreaterThan(4);
    expect(p.window).toBeLessThan(6);
    const next = p.started();
    p.on429(next, undefined);
    expect(p.window).toBeLessThan(3);
    expect(p.waitMs()).toBe(1000); // no Retry-After: a second
    expect(p.throttled).toBe(3);
  });

  it('reads x-ratelimit-remaining/reset: no row starts when rows in flight take what is left', () => {
    let now = 0;
    const p = new Pacer({ ceiling: 16, now: () => now });
    p.started();
    p.started();
    p.started();
    p.answered({ 'x-ratelimit-remaining-requests': '2', 'x-ratelimit-reset-requests': '3s' });
    expect(p.waitMs()).toBe(3000); // 2 left, 2 in flight
    now = 3000;
    expect(p.waitMs()).toBe(0); // reset: one row may go and tell
    p.started();
    expect(p.waitMs()).toBeGreaterThan(0);
    p.answered({ 'x-ratelimit-remaining-requests': '10', 'x-ratelimit-reset-requests': '1s' });
    expect(p.waitMs()).toBe(0);
  });

  it('parses reset headers: seconds, durations', () => {
    expect(parseResetHeader('12s')).toBe(12_000);
    expect(parseResetHeader('1m3s')).toBe(63_000);
    expect(parseResetHeader('250ms')).toBe(250);
    expect(parseResetHeader('2')).toBe(2000);
    expect(parseResetHeader('soon')).toBeUndefined();
  });
});

describe('the journal', () => {
  it('skips a torn last line, ends it before appending, and finds each done row where it is', async () => {
    const path = join(tempDir(), 'j');
    const w = new JournalWriter(path);
    await w.append({ t: 'sent', row: 1, attempt: 1 });
    const at = await w.append({ t: 'done', row: 1, out: { row: 1, cost_usd: 0.5 } });
    await w.append({ t: 'sent', row: 2, attempt: 1 });
    w.close();
    appendFileSync(path, '{"t":"done","row":2,"out":{"ro');
    let s = readJournal(path);
    expect(s.torn).toBe(true);
    expect([...s.done.keys()]).toEqual([1]);
    expect([...s.unanswered]).toEqual([2]);
    expect(s.spent).toBe(0.5);
    expect(s.done.get(1)).toEqual(at);
    expect(readOutAt(openSync(path, 'r'), at)).toEqual({ row: 1, cost_usd: 0.5 });
    const again = new JournalWriter(path);
    await again.append({ t: 'failed', row: 2, out: { row: 2, status: 'failed' } });
    again.close();
    s = readJournal(path);
    expect(s.failed).toEqual(new Set([2]));
    expect(readFileSync(path, 'utf8').split('\n').at(-2)).toBe(
      '{"t":"failed","row":2,"out":{"row":2,"status":"failed"}}',
    );
  });
});

describe('inputs and templates', () => {
  it('CSV: quoted commas, doubled quotes, a newline inside a field, CRLF; the line each record starts on', async () => {
    const path = join(tempDir(), 'a.csv');
    writeFileSync(path, 'id,text\r\n1,"a, b"\r\n2,"say ""hi"""\r\n3,"two\nlines"\r\n4,plain\r\n');
    const got = [];
    for await (const r of delimitedRows(path, false)) got.push(r);
    expect(got[0]).toEqual(['id', 'text']);
    const rows = got.slice(1).filter((r): r is Row => !Array.isArray(r) && 'n' in r);
    expect(rows.map((r) => [r.line, r.vars?.text])).toEqual([
      [2, 'a, b'],
      [3, 'say "hi"'],
      [4, 'two\nlines'],
      [6, 'plain'],
    ]);
  });

  it('JSON Lines: custom_id is the id, out of the body', async () => {
    const path = join(tempDir(), 'a.jsonl');
    writeFileSync(path, '{"custom_id":"x","input":"a"}\n');
    const got = [];
    for await (const r of jsonlRows(path, false)) got.push(r);
    expect(got).toEqual([{ n: 1, line: 1, id: 'x', body: { input: 'a' } }]);
  });

  it('templates: text, a body whose lone placeholder keeps its value, {{ spaced }} names', () => {
    expect(parseTemplate('{{q}} please').kind).toBe('text');
    const body = parseTemplate('{"input":"{{ q }}","n":"{{n}}","tags":["{{q}}-x"]}');
    expect(body.kind).toBe('body');
    expect(placeholders(body)).toEqual(['q', 'n']);
    if (body.kind === 'body')
      expect(renderBody(body.body, { q: 'fox', n: 3 })).toEqual({ input: 'fox', n: 3, tags: ['fox-x'] });
    expect(renderText('{{a}} and {{b}}', { a: 'x', b: { k: 1 } })).toBe('x and {"k":1}');
    expect(() => parseTemplate('{"broken"')).toThrow(/JSON object/);
  });
});
