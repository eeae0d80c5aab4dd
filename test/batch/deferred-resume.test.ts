// `svc batch chat --deferred` killed with SIGKILL at -P 16 and resumed: the rows in flight that the API had taken
// deferred are fetched by their journaled request id, not sent (nor paid) again; the resume says how many rows
// may have been paid twice (those killed between the send and the journaled id), and no other row is sent twice.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { itWithEmulator } from '../helpers/emulator.js';
import { spawnSvc } from '../helpers/subprocess.js';
import { tempDir } from '../helpers/files.js';

const ROWS = 80;
const P = 16;

// each deferred answer is ready 400 ms after it was taken: rows are in flight, polled for, when the kill comes
const it = itWithEmulator((emu) => {
  emu.core.settings.deferredDelayMs = 400;
});

const records = (path: string) =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.endsWith('}'))
        .map((l) => JSON.parse(l) as { t: string; row: number })
    : [];

/** rows the API holds for a request id and the journal does not yet have done */
const awaited = (journal: string) => {
  const done = new Set(
    records(journal)
      .filter((r) => r.t === 'done')
      .map((r) => r.row),
  );
  return records(journal).filter((r) => r.t === 'accepted' && !done.has(r.row)).length;
};

describe.concurrent('svc batch --deferred killed and resumed', () => {
  it(`-P ${P}, a SIGKILL with rows in flight: they are fetched by request id, none paid twice`, async ({ emu }) => {
    const dir = tempDir();
    const input = join(dir, 'rows.jsonl');
    writeFileSync(input, `${Array.from({ length: ROWS }, (_, i) => JSON.stringify({ n: i + 1 })).join('\n')}\n`);
    const output = join(dir, 'out.jsonl');
    const journal = `${output}.journal`;
    const args = ['batch', 'chat', input, '--template', 'row {{n}} of the batch', '-o', output, '-P', String(P)];
    const proc = spawnSvc([...args, '--deferred'], { emu });
    let ended = false;
    void proc.then(() => (ended = true)).catch(() => (ended = true));
    while (!ended && awaited(journal) < P / 2) await new Promise((r) => setTimeout(r, 10));
    expect(ended).toBe(false);
    proc.kill('SIGKILL');
    await proc.catch(() => {});
    const inFlight = awaited(journal);
    const again = await spawnSvc([...args, '--deferred', '--resume', '--json'], { emu });
    expect(again.exitCode, String(again.stderr)).toBe(0);
    const summary = JSON.parse(String(again.stdout));
    // an answer the killed run had fetched (the API delivers it once) but not journaled is gone: that row goes again
    const figures = `in flight ${inFlight}, summary ${JSON.stringify(summary)}`;
    expect(summary.fetched_by_id, figures).toBeGreaterThan(0);
    expect(summary.fetched_by_id, figures).toBeLessThanOrEqual(inFlight);
    expect(String(again.stderr)).toContain(
      `${inFlight} taken deferred by the API: their answers are fetched by request id`,
    );
    const out = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out.map((o) => o.row)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
    for (const o of out) expect(o).toMatchObject({ status: 'done', text: expect.stringContaining(`row ${o.row} of`) });
    const posts = new Map<number, number>();
    for (const r of emu.requests()) {
      const row = r.method === 'POST' ? /"content":"row (\d+) of the batch"/.exec(r.body ?? '')?.[1] : undefined;
      if (row) posts.set(Number(row), (posts.get(Number(row)) ?? 0) + 1);
    }
    expect(posts.size).toBe(ROWS);
    const twice = [...posts.values()].filter((n) => n > 1).length;
    // only rows killed between their send and its journaled id go again, and the resume counted each of them
    expect(twice, figures).toBe(summary.maybe_paid_twice);
    // the rows fetched by id are not among them
    expect(twice + summary.fetched_by_id, figures).toBeLessThanOrEqual(inFlight + P);
  });
});

describe.concurrent('svc batch killed and resumed without --deferred', () => {
  it('the resume says how many rows in flight may be paid twice: exactly those sent again', async ({ emu }) => {
    // the first 6 rows are held 3 s by the server, so they are in flight at the kill
    emu.faults.add({ kind: 'slow', delayMs: 3000, times: 6, path: '/v1/chat' });
    const dir = tempDir();
    const input = join(dir, 'rows.jsonl');
    writeFileSync(input, `${Array.from({ length: 6 }, (_, i) => JSON.stringify({ n: i + 1 })).join('\n')}\n`);
    const journal = `${input}.journal`;
    const args = ['batch', 'chat', input, '--template', 'row {{n}} of the batch', '-P', '6'];
    const proc = spawnSvc(args, { emu });
    while (records(journal).filter((r) => r.t === 'sent').length < 6) await new Promise((r) => setTimeout(r, 10));
    proc.kill('SIGKILL');
    await proc.catch(() => {});
    const again = await spawnSvc([...args, '--resume', '--json'], { emu });
    expect(again.exitCode, String(again.stderr)).toBe(0);
    expect(String(again.stderr)).toContain(
      '6 row(s) were in flight when the last run stopped: 6 sent again: they may have been paid twice',
    );
    const summary = JSON.parse(String(again.stderr).trim().split('\n').pop()!);
    expect(summary).toMatchObject({ done: 6, maybe_paid_twice: 6, fetched_by_id: 0 });
  });
});
