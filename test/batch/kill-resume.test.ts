// Issue 28 "Must show": a batch of a few hundred rows against an emulator with a rate limit, killed with SIGKILL
// at several points and resumed each time, ends with every row exactly once in the output, and the emulator's
// request log shows no row sent again after its reply was journaled (rows in flight at a kill may be: counted,
// at most the concurrency). And Ctrl-C: the journal is kept, the way to resume printed, exit 130. The three run at
// once, each against an emulator of its own (they read its request log; they wait on processes and the rate limit).
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { itWithEmulator, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { spawnSvc } from '../helpers/subprocess.js';
import { tempDir } from '../helpers/files.js';

const ROWS = 240;
const P = 8;

/** 60 requests a second (a window of 1 s instead of a minute): 240 rows take several windows */
function rateLimited(emu: TestEmulator): void {
  emu.core.rateLimits.limit = { rpm: 60 };
  emu.core.rateLimits.windowMs = 1000;
}
const limited = itWithEmulator(rateLimited);

const lines = (path: string) =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.endsWith('}'))
        .map((l) => {
          try {
            return JSON.parse(l) as Record<string, any>;
          } catch {
            return undefined;
          }
        })
        .filter((x): x is Record<string, any> => !!x)
    : [];

/** the row a request was sent for: its prompt is "row N" */
const rowOf = (body: string | undefined) => {
  const m = body ? /"content":"row (\d+) of the batch"/.exec(body) : null;
  return m ? Number(m[1]) : undefined;
};

const doneIn = (journal: string) =>
  new Set(
    lines(journal)
      .filter((r) => r.t === 'done')
      .map((r) => r.row as number),
  );

/** resolves once the journal holds `n` rows done */
async function untilDone(journal: string, n: number, proc: Promise<unknown>): Promise<void> {
  let ended = false;
  void proc.then(() => (ended = true));
  while (!ended && doneIn(journal).size < n) await new Promise((r) => setTimeout(r, 25));
  if (ended) throw new Error(`the run ended before ${n} rows were done`);
}

/**
 * The requests a killed process had already sent are in this process's socket buffers, and the emulator (in this
 * process) logs each when its event loop reads it: with three tests at once in this worker that can come after the
 * kill was seen, and such a request would count as the next run's. So: the log unchanged over three turns of 50 ms.
 */
async function settled(emu: { requests(): unknown[] }): Promise<void> {
  let seen = -1;
  for (let still = 0; still < 3; ) {
    await new Promise((r) => setTimeout(r, 50));
    const n = emu.requests().length;
    still = n === seen ? still + 1 : 0;
    seen = n;
  }
}

describe.concurrent('svc batch killed with SIGKILL and resumed', () => {
  limited(
    `${ROWS} rows, killed at three points: each row once in the output, none sent again once journaled`,
    async ({ emu }) => {
      const dir = tempDir();
      const input = join(dir, 'rows.jsonl');
      writeFileSync(input, `${Array.from({ length: ROWS }, (_, i) => JSON.stringify({ n: i + 1 })).join('\n')}\n`);
      const output = join(dir, 'out.jsonl');
      const journal = `${output}.journal`;
      const args = ['batch', 'chat', input, '--template', 'row {{n}} of the batch', '-o', output, '-P', String(P)];
      emu.clearRequests();
      const kills: { seq: number; done: Set<number> }[] = [];
      for (const [i, at] of [40, 110, 180].entries()) {
        const proc = spawnSvc(i === 0 ? args : [...args, '--resume'], { emu });
        await untilDone(journal, at, proc);
        proc.kill('SIGKILL');
        await proc.catch(() => {});
        await settled(emu);
        const seq = Math.max(0, ...emu.requests().map((r) => r.seq));
        kills.push({ seq, done: doneIn(journal) });
      }
      const last = await spawnSvc([...args, '--resume'], { emu });
      expect(last.exitCode, String(last.stderr)).toBe(0);

      const out = lines(output);
      expect(out.map((o) => o.row)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
      // the temp files of the killed runs' output were cleared by the resumes
      expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
      for (const o of out) expect(o.text).toContain(`row ${o.row} of the batch`);

      const sent = emu
        .requests()
        .filter((r) => r.path === '/v1/chat/completions' && r.status !== 429)
        .map((r) => ({ seq: r.seq, row: rowOf(r.body) }));
      expect(sent.every((s) => s.row !== undefined)).toBe(true);
      let resent = 0;
      for (const [i, k] of kills.entries()) {
        const next = kills[i + 1]?.seq ?? Number.POSITIVE_INFINITY;
        // after a kill: no request for a row the journal held done
        const after = sent.filter((s) => s.seq > k.seq);
        expect(after.filter((s) => k.done.has(s.row!)).map((s) => s.row)).toEqual([]);
        // the run after it sends again only rows that were in flight at the kill: at most the concurrency
        const before = new Set(sent.filter((s) => s.seq <= k.seq).map((s) => s.row));
        const again = new Set(after.filter((s) => s.seq <= next && before.has(s.row)).map((s) => s.row));
        expect(again.size).toBeLessThanOrEqual(P);
        resent += again.size;
      }
      const perRow = new Map<number, number>();
      for (const s of sent) perRow.set(s.row!, (perRow.get(s.row!) ?? 0) + 1);
      const twice = [...perRow.values()].filter((n) => n > 1).length;
      expect(twice).toBe(resent);
      console.log(`kill-resume: ${ROWS} rows, ${kills.length} kills, ${twice} rows sent twice (in flight at a kill)`);
    },
  );
});

describe.concurrent('svc batch and Ctrl-C', () => {
  limited(
    'Ctrl-C stops sending, waits for the rows in flight, keeps the journal and prints how to resume',
    async ({ emu }) => {
      const dir = tempDir();
      const input = join(dir, 'rows.jsonl');
      writeFileSync(input, `${Array.from({ length: 60 }, (_, i) => JSON.stringify({ n: i + 1 })).join('\n')}\n`);
      const journal = `${input}.journal`;
      const args = ['batch', 'chat', input, '--template', 'row {{n}} of the batch', '-P', '4'];
      const proc = spawnSvc(args, { emu });
      await untilDone(journal, 10, proc);
      proc.kill('SIGINT');
      const r = await proc;
      expect(r.exitCode).toBe(130);
      const stderr = String(r.stderr);
      expect(stderr).toContain('stopping: waiting for');
      expect(stderr).toMatch(/interrupted: \d+ row\(s\) not sent; resume with the same command and --resume/);
      expect(stderr).toContain(journal);
      const printed = String(r.stdout)
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).row as number);
      // what was done is printed (in order), and is what the journal holds
      expect(printed.length).toBeGreaterThanOrEqual(10);
      expect(new Set(printed)).toEqual(doneIn(journal));
      const again = await spawnSvc([...args, '--resume'], { emu });
      expect(again.exitCode, String(again.stderr)).toBe(0);
      const all = String(again.stdout)
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).row as number);
      expect(all).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    },
  );
});

describe.concurrent('svc batch and a second Ctrl-C', () => {
  it('abandons the rows in flight: they stay sent in the journal, and a resume sends them', async () => {
    const own = await startTestEmulator();
    try {
      own.faults.add({ kind: 'slow', delayMs: 20_000, times: 4, path: '/v1/chat' });
      const dir = tempDir();
      const input = join(dir, 'rows.jsonl');
      writeFileSync(input, `${Array.from({ length: 8 }, (_, i) => JSON.stringify({ n: i + 1 })).join('\n')}\n`);
      const journal = `${input}.journal`;
      const args = ['batch', 'chat', input, '--template', 'row {{n}} of the batch', '-P', '4'];
      const proc = spawnSvc(args, { emu: own });
      const sent = () => lines(journal).filter((r) => r.t === 'sent').length;
      while (sent() < 4) await new Promise((r) => setTimeout(r, 25));
      proc.kill('SIGINT');
      let stderr = '';
      await new Promise<void>((resolve) => {
        proc.stderr!.on('data', (d: Buffer) => {
          stderr += d;
          if (stderr.includes('Ctrl-C again')) resolve();
        });
      });
      proc.kill('SIGINT');
      const r = await proc;
      expect(r.exitCode).toBe(130);
      expect(String(r.stderr)).toContain('stopping: waiting for 4 row(s) in flight (Ctrl-C again to abandon them)');
      expect(String(r.stderr)).toContain('resume with the same command and --resume');
      expect(doneIn(journal).size).toBe(0);
      expect(String(r.stdout)).toBe('');
      const again = await spawnSvc([...args, '--resume'], { emu: own });
      expect(again.exitCode, String(again.stderr)).toBe(0);
      expect(String(again.stdout).trim().split('\n')).toHaveLength(8);
    } finally {
      await own.close();
    }
  });
});
