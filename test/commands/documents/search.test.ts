import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { spawnSvc } from '../../helpers/subprocess.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';

let emu: TestEmulator;
let docs: string;
beforeAll(async () => {
  docs = tempDir('svc-docs-');
  mkdirSync(join(docs, 'handbook'));
  writeFileSync(
    join(docs, 'handbook', 'refunds.md'),
    '---\nyear: 2024\n---\n# Refunds\n\nA refund is paid within 14 days of the return of the ' +
      'goods.\n\nRefunds for digital goods are not possible once downloaded.\n',
  );
  writeFileSync(
    join(docs, 'handbook', 'holidays.md'),
    '---\nyear: 2022\n---\n# Holidays\n\nEvery employee has 25 days of paid holidays a year.\n',
  );
  writeFileSync(join(docs, 'handbook', 'security.txt'), 'Passwords must be long. Never share a password.\n');
  emu = await startTestEmulator({ collections: { handbook: join(docs, 'handbook') } });
});
afterAll(() => emu.close());

describe('svc documents search', () => {
  it('prints a ranked table in a pipe: rank, score, file id, name, snippet', async () => {
    const r = await svcInProcess(['documents', 'search', 'refund of digital goods', '--collection', 'handbook'], {
      emu,
    });
    expect(r.exitCode).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows[0]![0]).toBe('1');
    expect(rows[0]![3]).toBe('refunds.md');
    expect(rows[0]![2]).toMatch(/^file_/);
    expect(rows[0]![4]).toMatch(/refund/i);
    const scores = rows.map((row) => Number(row[1]));
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('sends limit, mode and filter; --json prints each match as sent', async () => {
    emu.clearRequests();
    const r = await svcInProcess(
      [
        'documents',
        'search',
        'days',
        '--collection',
        'handbook',
        '--limit',
        '1',
        '--mode',
        'keyword',
        '--filter',
        'year >= 2023',
        '--json',
      ],
      { emu },
    );
    const body = JSON.parse(emu.requests().find((q) => q.path === '/v1/documents/search')!.body!);
    expect(body).toEqual({
      query: 'days',
      source: { collection_ids: ['handbook'] },
      limit: 1,
      retrieval_mode: { type: 'keyword' },
      filter: 'year >= 2023',
    });
    const matches = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(matches).toHaveLength(1);
    expect(matches[0].fields.file_name).toBe('refunds.md');
    expect(matches[0]).toHaveProperty('chunk_id');
  });

  it("an unknown collection or a bad filter shows the server's message", async () => {
    const r = await svcInProcess(['documents', 'search', 'x', '--collection', 'nope'], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('the collection nope does not exist');
    const f = await svcInProcess(['documents', 'search', 'x', '--collection', 'handbook', '--filter', 'year >'], {
      emu,
    });
    expect(f.exitCode).toBe(1);
    expect(f.stderr).toMatch(/Invalid filter/);
  });
});

describe('svc emulator serve --collection', () => {
  it('serves a collection made of a folder, searchable over the API', async () => {
    const server = spawnSvc(['emulator', 'serve', '--memory', '--collection', `handbook=${join(docs, 'handbook')}`], {
      timeout: 30_000,
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const line = out.split('\n')[0];
          if (out.includes('\n') && line) resolve(line.trim());
        });
        server.once('exit', () => reject(new Error(`serve exited: ${out}`)));
      });
      const r = await svcInProcess(['documents', 'search', 'paid holidays', '--collection', 'handbook', '--json'], {
        env: { SVC_BASE_URL: url, SVC_API_KEY: 'svc-emulator-local-key-0000000000000000' },
      });
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout.split('\n')[0]!).fields.file_name).toBe('holidays.md');
    } finally {
      server.kill('SIGTERM');
      await server.catch(() => undefined);
    }
  });

  it('refuses a path that does not exist', async () => {
    const r = await svcInProcess(['emulator', 'serve', '--memory', '--collection', 'x=/nonexistent/dir']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--collection: x=\/nonexistent\/dir .*existing file or folder/);
  });
});

const cases: [string, string[], RegExp][] = [
  ['no collection', ['x'], /--collection: \(none\) .*at least one collection/],
  ['limit of 0', ['x', '--collection', 'c', '--limit', '0'], /--limit: 0 .*from 1 to 100/],
  ['limit above 100', ['x', '--collection', 'c', '--limit', '101'], /--limit: 101 .*from 1 to 100/],
  ['unknown mode', ['x', '--collection', 'c', '--mode', 'fuzzy'], /--mode: fuzzy .*hybrid, semantic, keyword/],
  ['empty query', ['  ', '--collection', 'c'], /QUERY: .*non-empty/],
];

describe('svc documents search rejects bad input before sending', () => {
  for (const [name, args, message] of cases) {
    it(name, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['documents', 'search', ...args], { emu });
      expect(r.stderr).toMatch(message);
      expect(r.exitCode).toBe(2);
      expect(emu.requests()).toHaveLength(0);
    });
  }
});
