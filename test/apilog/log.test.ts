import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fork } from 'node:child_process';
import { ROOT, tempDir } from '../helpers/files.js';
import { fullOr } from '../helpers/full.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { svcShell } from '../helpers/subprocess.js';
import { CallRecorder } from '../../src/apilog/recorder.js';
import {
  appendRecords,
  dayFiles,
  newCallId,
  readRecords,
  removeRecords,
  type CallRecord,
} from '../../src/apilog/log.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const logLines = (configDir: string): string[] => {
  const dir = join(configDir, 'data', 'logs');
  return readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean));
};

describe('the call log under concurrent writers', () => {
  // 200 files in the full run, 50 in the others (test/helpers/full.ts): 8 × 51 appends at once still race
  const FILES = fullOr(200, 50);
  const paging = `8 processes paging ${FILES} files one per call (8 × ${FILES + 1} calls at once)`;
  it(`${paging} lose or corrupt no record`, async () => {
    const configDir = tempDir();
    const src = tempDir();
    const paths = Array.from({ length: FILES }, (_, i) => {
      const p = join(src, `f${i}.txt`);
      writeFileSync(p, `file ${i}\n`);
      return p;
    });
    const up = await svcInProcess(['files', 'upload', '--no-log', ...paths], { emu, configDir, timeout: 120_000 });
    expect(up.exitCode, up.stderr).toBe(0);
    emu.clearRequests();
    const run = await svcShell(
      'pids=(); for i in 1 2 3 4 5 6 7 8; do svc files list --all --limit 1 > "out$i" & pids+=($!); done; ' +
        'for p in "${pids[@]}"; do wait "$p" || exit 9; done',
      {
        emu,
        configDir,
        cwd: src,
        timeout: 170_000,
      },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    for (let i = 1; i <= 8; i++)
      expect(
        readFileSync(join(src, `out${i}`), 'utf8')
          .trim()
          .split('\n'),
      ).toHaveLength(FILES);
    const sent = emu.requests().filter((r) => r.path === '/v1/files');
    expect(sent.length).toBeGreaterThanOrEqual(8 * FILES);
    const lines = logLines(configDir);
    const records = lines.map((l) => JSON.parse(l) as CallRecord);
    expect(records).toHaveLength(sent.length);
    expect(records.every((r) => r.command === 'files list' && r.status === 200 && r.path === '/v1/files')).toBe(true);
    expect(new Set(records.map((r) => r.request_id)).size).toBe(sent.length);
    expect(new Set(records.map((r) => r.id)).size).toBe(sent.length);
  }, 240_000);

  it('records past the size of a pipe buffer are capped and stay whole with 8 writers appending at once', async () => {
    const configDir = tempDir();
    const big = 'word '.repeat(4000);
    // each writer appends 3 records in the full run, 1 in the others (test/helpers/full.ts): 8 at once still race
    const each = fullOr(3, 1);
    const run = await svcShell(
      `pids=(); for i in 1 2 3 4 5 6 7 8; do (for j in $(seq ${each}); do ` +
        'svc chat --no-save "$BIG $i $j" > /dev/null || exit 1; done) & pids+=($!); done; ' +
        'for p in "${pids[@]}"; do wait "$p" || exit 9; done',
      {
        emu,
        configDir,
        env: { BIG: big },
        timeout: 170_000,
      },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    const records = logLines(configDir).map((l) => JSON.parse(l) as CallRecord);
    expect(records).toHaveLength(8 * each);
    for (const r of records) {
      expect(r.prompt!.length).toBe(8192);
      expect(r.truncated).toBe(true);
      expect(r.usage!.total_tokens).toBeGreaterThan(0);
    }
  }, 240_000);

  it(
    'removing records by id (svc logs rm ID) while 4 processes append: every appended record is kept, the ' +
      'removed ones are gone',
    async () => {
      const dir = join(tempDir(), 'logs');
      const record = (command: string): CallRecord => {
        const now = new Date();
        return {
          id: newCallId(now),
          time: now.toISOString(),
          command,
          method: 'GET',
          path: '/v1/models',
          status: 200,
          duration_ms: 1,
        };
      };
      const seeded = Array.from({ length: 200 }, () => record('seeded'));
      appendRecords(dir, seeded);
      // the writers append one record per write, as svc processes do, to the same day file
      const writers = [0, 1, 2, 3].map(
        (w) =>
          new Promise<number | null>((done, fail) =>
            fork(join(ROOT, 'test/fixtures/append-records.mjs'), [dir, `writer ${w}`, '2000'])
              .on('error', fail)
              .on('exit', done),
          ),
      );
      // the removals start once every writer is appending
      const today = dayFiles(dir)[0]!.file;
      while ([0, 1, 2, 3].some((w) => !readFileSync(today, 'utf8').includes(`"writer ${w}"`)))
        await new Promise((r) => setTimeout(r, 5));
      const removed = seeded.filter((_, i) => i % 2 === 0).map((r) => r.id);
      let count = 0;
      for (let i = 0; i < removed.length; i += 5) {
        count += removeRecords(dir, new Set(removed.slice(i, i + 5)));
        await new Promise((r) => setTimeout(r, 2));
      }
      expect(await Promise.all(writers)).toEqual([0, 0, 0, 0]);
      expect(count).toBe(100);
      const left = readRecords(dir);
      for (const w of [0, 1, 2, 3]) expect(left.filter((r) => r.command === `writer ${w}`)).toHaveLength(2000);
      const ids = new Set(left.map((r) => r.id));
      expect(removed.filter((id) => ids.has(id))).toEqual([]);
      expect(left.filter((r) => r.command === 'seeded')).toHaveLength(100);
      // the removed records' text is gone from the file, not only hidden
      const onDisk = dayFiles(dir)
        .map((f) => readFileSync(f.file, 'utf8'))
        .join('');
      expect(removed.some((id) => onDisk.includes(id))).toBe(false);
    },
  );
});

describe('the call log store', () => {
  it(
    'costs come from the catalogue when the API sent none, and are absent when the catalogue is ' + 'unreachable',
    async () => {
      for (const reachable of [true, false]) {
        const dataDir = tempDir();
        const env = { SVC_DATA_DIR: dataDir };
        const rec = new CallRecorder(env, 'messages', 30);
        const call = {
          method: 'POST',
          path: '/v1/messages',
          status: 200,
          durationMs: 5,
          json: { model: 'm-1', messages: [{ role: 'user', content: 'hi' }] },
        };
        rec.onCall(call);
        rec.onReply(call, {
          type: 'message',
          model: 'm-1',
          content: [{ type: 'text', text: 'hello' }],
          usage: { input_tokens: 10, output_tokens: 20 },
        });
        await rec.flush(async () => {
          if (!reachable) throw new Error('down');
          return {
            models: [
              { id: 'm-1', aliases: ['m'], prompt_text_token_price: 30000, completion_text_token_price: 150000 },
            ],
          };
        });
        const [r] = readRecords(join(dataDir, 'logs'));
        expect(r).toMatchObject({
          command: 'messages',
          model: 'm-1',
          prompt: 'hi',
          answer: 'hello',
          usage: { input_tokens: 10, output_tokens: 20, total_tokens: 30 },
        });
        if (reachable) expect(r!.cost_usd).toBeCloseTo((10 * 30000 + 20 * 150000) / 1e10, 15);
        else expect(r).not.toHaveProperty('cost_usd');
      }
    },
  );

  it('day files past the retention are deleted when a new day starts; a torn line is skipped by queries', () => {
    const dir = join(tempDir(), 'logs');
    const at = (day: string): CallRecord => ({
      id: `${day.replace(/-/g, '')}-120000-aaaaaaaa`,
      time: `${day}T12:00:00.000Z`,
      command: 'x',
      method: 'GET',
      path: '/',
      status: 200,
      duration_ms: 1,
    });
    appendRecords(dir, [at('2026-01-01'), at('2026-01-20')], 30);
    writeFileSync(join(dir, 'calls-2026-01-20.jsonl'), '{"id":"torn', { flag: 'a' });
    expect(readRecords(dir).map((r) => r.time.slice(0, 10))).toEqual(['2026-01-01', '2026-01-20']);
    appendRecords(dir, [at('2026-02-05')], 30);
    expect(dayFiles(dir).map((f) => f.day)).toEqual(['2026-01-20', '2026-02-05']);
  });
});
